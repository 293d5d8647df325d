package site

import (
	"net/url"
	"strconv"
	"strings"
	"time"

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
