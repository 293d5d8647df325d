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
// (api.RetirementsDoc), beside its JSON (snapshot.FileModelRetirements);
// the API answers it at snapshot.PathModelRetirementsCalendar.
const FileRetirementsCalendar = snapshot.FileModelRetirementsCalendar

// retirementsCalendar renders the retirement calendar as a VCALENDAR: one
// all-day event per date (a retirement date is a day, in no time zone:
// VALUE=DATE, DTEND the next day, exclusive), naming every model retired
// or to be retired on it. The UID is the date at the site's host; SEQUENCE
// counts the models of the date already retired, so that a client updates
// the event as they go. DTSTAMP is the build's time: with METHOD present,
// RFC 5545 §3.8.7.2 makes it when the calendar was written, not the date
// it is about (which may lie years ahead).
//
// A date that cannot be written as a DATE, its next day included, has no
// event: not a date at all, or outside years 0001–9999 (9999-12-31 ends
// in a year of five digits, which no reader takes). The model list's door
// keeps such dates out of the documents; this renderer holds on its own,
// since one unreadable line makes a strict reader refuse the whole file.
// It has no logger to say so: the date stays in the JSON, which has no
// such limit, and the calendar is one event short.
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
		day, ok := icsDay(date)
		if !ok {
			continue // no event rather than a file no reader takes (above)
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
			line := r.Name + " (" + r.ID + ")" + where + ": " + r.State + ". " + r.Reason + "."
			if len(r.Sources) > 0 {
				said := make([]string, 0, len(r.Sources))
				for _, s := range r.Sources {
					said = append(said, s.Name+": "+s.Date)
				}
				line += " Sources: " + strings.Join(said, "; ") + "."
			}
			if r.Disagreement != "" {
				line += " " + r.Disagreement
			}
			lines = append(lines, line)
		}
		b.line("BEGIN:VEVENT")
		b.line("UID:retirements-" + day.Format(icsDateLayout) + "@" + m.host())
		b.line("DTSTAMP:" + icsTime(m.now))
		b.line("SEQUENCE:" + strconv.Itoa(retired))
		b.line("DTSTART;VALUE=DATE:" + day.Format(icsDateLayout))
		b.line("DTEND;VALUE=DATE:" + day.AddDate(0, 0, 1).Format(icsDateLayout))
		b.prop("SUMMARY", "Retiring: "+strings.Join(names, ", "))
		b.prop("DESCRIPTION", strings.Join(lines, "\n"))
		b.line("TRANSP:TRANSPARENT")
		b.line("URL:" + m.base + snapshot.PathModelRetirements) // a URI, not escaped
		b.line("END:VEVENT")
	}
	b.line("END:VCALENDAR")
	return []byte(b.String())
}

// icsDateLayout is an iCalendar DATE (RFC 5545 §3.3.4): four digits of
// year, then month and day.
const icsDateLayout = "20060102"

// icsDay reads a retirement date (YYYY-MM-DD) as the day it names, when
// it and its next day (the event's exclusive end) are both writable as a
// DATE: years 0001 to 9999.
func icsDay(date string) (time.Time, bool) {
	day, err := time.Parse(time.DateOnly, date)
	if err != nil || day.Year() < 1 || day.AddDate(0, 0, 1).Year() > 9999 {
		return time.Time{}, false
	}
	return day, true
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
