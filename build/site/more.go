package site

import (
	"fmt"
	"slices"
)

// renderMore adds the files that speak other clients' languages: the JSON
// Feed twins of the Atom feeds, the Statuspage v2 facade, the maintenance
// calendars and the metrics exposition.
func (m *model) renderMore(files map[string][]byte) error {
	windows := maintenanceWindows(m.h, m.docs.Services, m.now)
	var all []maintenanceWindow
	var err error
	for _, svc := range m.services {
		if files[ServiceJSONFeed(svc.Slug)], err = m.serviceJSONFeed(svc); err != nil {
			return fmt.Errorf("%s: %w", svc.Slug, err)
		}
		facade, err := m.statuspage(svc, windows[svc.Slug])
		if err != nil {
			return fmt.Errorf("%s: %w", svc.Slug, err)
		}
		for name, data := range facade {
			files[name] = data
		}
		files[ServiceCalendar(svc.Slug)] = m.calendar("aistatus: "+svc.Name+" maintenance", windows[svc.Slug])
		all = append(all, windows[svc.Slug]...)
	}
	if files[FileJSONFeed], err = m.incidentsJSONFeed(); err != nil {
		return err
	}
	slices.SortStableFunc(all, func(a, b maintenanceWindow) int { return a.Start.Compare(b.Start) })
	files[FileCalendar] = m.calendar("aistatus: maintenance of AI services", all)
	if files[FileMetrics], err = m.metrics(); err != nil {
		return err
	}
	files[FileRetirementsCalendar] = m.retirementsCalendar()
	return nil
}
