package site

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// Maintenance calendars (iCalendar, RFC 5545): one per service and one for
// all, each event a maintenance window aistatus observed (see
// maintenanceWindow: past and ongoing windows, no announced schedule).
//
// Each event's UID is the window's id (service and start) at the site's
// host, so a calendar client updates the event it has rather than adding
// one. SEQUENCE is derived from the change log (maintenanceWindow.Sequence):
// 0 when the window opens, 1 when it closes and gains its end. DTSTAMP and
// LAST-MODIFIED are the time of that last change, so an unchanged window
// renders byte for byte the same in every build.

// FileCalendar is the calendar of every service's maintenance windows.
const FileCalendar = "maintenance.ics"

// ServiceCalendar is the path of a service's maintenance calendar.
func ServiceCalendar(slug string) string { return snapshot.DirServices + "/" + slug + ".ics" }

// calendar renders windows (of one service or all) as a VCALENDAR.
func (m *model) calendar(name string, windows []maintenanceWindow) []byte {
	host := "aistatus"
	if u, err := url.Parse(m.base); err == nil && u.Host != "" {
		host = u.Host
	}
	var b icsWriter
	b.line("BEGIN:VCALENDAR")
	b.line("VERSION:2.0")
	b.line("PRODID:-//aistatus//maintenance calendar//EN")
	b.line("CALSCALE:GREGORIAN")
	b.line("METHOD:PUBLISH")
	b.prop("X-WR-CALNAME", name)
	for _, w := range windows {
		svc := m.bySlug[w.Service]
		svcName := m.serviceName(w.Service)
		changed := w.Start
		if w.End != nil {
			changed = *w.End
		}
		b.line("BEGIN:VEVENT")
		b.line("UID:" + w.ID() + "@" + host)
		b.line("DTSTAMP:" + icsTime(changed))
		b.line("LAST-MODIFIED:" + icsTime(changed))
		b.line("SEQUENCE:" + strconv.Itoa(w.Sequence()))
		b.line("DTSTART:" + icsTime(w.Start))
		desc := "aistatus observed " + svcName + " under maintenance (the status it published) from " + rfc3339(w.Start)
		if w.End != nil {
			b.line("DTEND:" + icsTime(*w.End))
			desc += " to " + rfc3339(*w.End) + "."
		} else {
			desc += "; still ongoing at " + rfc3339(m.now) + ", end not known."
		}
		desc += " Observed, not announced: aistatus does not read the official maintenance schedules."
		b.prop("SUMMARY", svcName+" under maintenance")
		b.prop("DESCRIPTION", desc)
		b.line("CATEGORIES:MAINTENANCE")
		b.line("STATUS:CONFIRMED")
		b.line("TRANSP:TRANSPARENT")
		if svc != nil {
			b.line("URL:" + m.base + "/services/" + svc.Slug) // a URI, not escaped
		}
		b.line("END:VEVENT")
	}
	b.line("END:VCALENDAR")
	return []byte(b.String())
}

// FileRetirementsCalendar is the retirement calendar of the watched models
// (api.RetirementsDoc), beside its JSON (snapshot.FileModelRetirements).
const FileRetirementsCalendar = snapshot.DirModels + "/retirements.ics"

// retirementsCalendar renders the retirement calendar as a VCALENDAR: one
// day-long event per date, naming every model retired or to be retired on
// it. The UID is the date at the site's host; SEQUENCE counts the models
// of the date already retired, so that a client updates the event as they
// go; DTSTAMP is the date itself, so an unchanged calendar renders byte for
// byte the same.
func (m *model) retirementsCalendar() []byte {
	var b icsWriter
	b.line("BEGIN:VCALENDAR")
	b.line("VERSION:2.0")
	b.line("PRODID:-//aistatus//model retirements//EN")
	b.line("CALSCALE:GREGORIAN")
	b.line("METHOD:PUBLISH")
	b.prop("X-WR-CALNAME", "aistatus: model retirements")
	byDate := map[string][]api.ModelRetirement{}
	var dates []string
	for _, r := range m.docs.Retirements.Retirements {
		if _, seen := byDate[r.Date]; !seen {
			dates = append(dates, r.Date)
		}
		byDate[r.Date] = append(byDate[r.Date], r)
	}
	for _, date := range dates {
		day, err := time.Parse(time.DateOnly, date)
		if err != nil {
			continue // not a date: the calendar has nothing to place
		}
		models := byDate[date]
		retired, names, lines := 0, make([]string, 0, len(models)), make([]string, 0, len(models))
		for _, r := range models {
			if r.State == api.RetirementRetired {
				retired++
			}
			names = append(names, r.Name)
			where := ""
			if r.Service != "" {
				where = " at " + m.serviceName(r.Service)
			}
			lines = append(lines, r.Name+" ("+r.ID+")"+where+": "+r.State+". "+r.Reason+".")
		}
		b.line("BEGIN:VEVENT")
		b.line("UID:retirements-" + day.Format("20060102") + "@" + m.host())
		b.line("DTSTAMP:" + icsTime(day))
		b.line("SEQUENCE:" + strconv.Itoa(retired))
		b.line("DTSTART:" + icsTime(day))
		b.line("DTEND:" + icsTime(day.AddDate(0, 0, 1)))
		b.prop("SUMMARY", "Retiring: "+strings.Join(names, ", "))
		b.prop("DESCRIPTION", strings.Join(lines, "\n"))
		b.line("TRANSP:TRANSPARENT")
		b.line("URL:" + m.base + snapshot.PathModelRetirements) // a URI, not escaped
		b.line("END:VEVENT")
	}
	b.line("END:VCALENDAR")
	return []byte(b.String())
}

// host is the site's host, for calendar UIDs.
func (m *model) host() string {
	if u, err := url.Parse(m.base); err == nil && u.Host != "" {
		return u.Host
	}
	return "aistatus"
}

func icsTime(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// icsWriter writes content lines: CRLF-terminated and folded at 75 octets
// (RFC 5545 §3.1), never inside a UTF-8 sequence.
type icsWriter struct{ strings.Builder }

func (w *icsWriter) line(s string) {
	limit := 75
	for len(s) > limit {
		cut := limit
		for cut > 0 && s[cut]&0xC0 == 0x80 { // a continuation byte: back off
			cut--
		}
		w.WriteString(s[:cut] + "\r\n ")
		s = s[cut:]
		limit = 74 // a continuation line starts with the folding space
	}
	w.WriteString(s + "\r\n")
}

// prop writes a property whose value is TEXT, escaped (§3.3.11).
func (w *icsWriter) prop(name, value string) {
	w.line(name + ":" + icsEscape.Replace(value))
}

var icsEscape = strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\n", `\n`, "\r", "")
