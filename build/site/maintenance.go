package site

import (
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// maintenanceWindow is a period during which a service's status was
// "maintenance", as the change log recorded it: it opens at the
// status.changed entry into maintenance and closes at the next one out.
//
// These are observed windows, not announced schedules: no feed reader keeps
// the official pages' scheduled maintenances yet, so nothing is known of a
// maintenance before it starts. The Statuspage façade's upcoming list is
// therefore always empty, and the calendars hold past and ongoing windows.
type maintenanceWindow struct {
	Service string
	Start   time.Time
	// End is nil while the maintenance goes on.
	End *time.Time
}

// Open reports whether the window has not closed.
func (w maintenanceWindow) Open() bool { return w.End == nil }

// Sequence is the iCalendar SEQUENCE of the window: the number of changes
// to it after it opened, read from the change log, so that every build
// derives the same number: 0 while it is open, 1 once it has closed.
func (w maintenanceWindow) Sequence() int {
	if w.End == nil {
		return 0
	}
	return 1
}

// ID is the window's stable identifier: the service and the start, which no
// later build changes (the start is the time the change log recorded).
func (w maintenanceWindow) ID() string {
	return "maintenance-" + w.Service + "-" + w.Start.UTC().Format("20060102T150405Z")
}

// maintenanceWindows reads every service's maintenance windows from the
// change log, oldest first. A service whose current status is maintenance
// without an open window in the log (a log that began while it was already
// under maintenance) gets one from the log's start, the earliest time the
// log can vouch for; that start is stable across builds.
func maintenanceWindows(h *history.History, docs []api.ServiceDoc, now time.Time) map[string][]maintenanceWindow {
	out := map[string][]maintenanceWindow{}
	if h != nil {
		for _, c := range h.Changes {
			if c.Type != api.ChangeStatus {
				continue
			}
			list := out[c.Service]
			open := len(list) > 0 && list[len(list)-1].Open()
			switch {
			case c.NewStatus == api.Maintenance && !open:
				out[c.Service] = append(list, maintenanceWindow{Service: c.Service, Start: c.Time.UTC()})
			case c.NewStatus != api.Maintenance && open:
				end := c.Time.UTC()
				list[len(list)-1].End = &end
			}
		}
	}
	for _, doc := range docs {
		list := out[doc.Slug]
		open := len(list) > 0 && list[len(list)-1].Open()
		switch {
		case doc.Status == api.Maintenance && !open:
			start := now
			if h != nil && !h.ChangesSince.IsZero() {
				start = h.ChangesSince.UTC()
			}
			out[doc.Slug] = append(list, maintenanceWindow{Service: doc.Slug, Start: start})
		case doc.Status != api.Maintenance && open:
			// The log says it is still on, the current status says not: a
			// change the log lost. The window ends at this build.
			end := now
			list[len(list)-1].End = &end
		}
	}
	return out
}
