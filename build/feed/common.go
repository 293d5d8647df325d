package feed

// The code every adapter shares: reading times, and cleaning what a status
// page controls (text, links, ids) before anything of ours stores or
// renders it. A status page is run by its owner, not by us: whatever it
// says must be bounded and inert.

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/snapshot"
)

// The sane range of a feed's times. Anything outside is a broken or hostile
// page: year 0, or 9999-12-31T23:59:59-01:00, which is year 10000 in UTC and
// cannot even be encoded as JSON.
var (
	earliestTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	latestTime   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// saneTime reports whether t is within the range a status page can mean.
func saneTime(t time.Time) bool { return !t.Before(earliestTime) && t.Before(latestTime) }

// parseTime parses an RFC 3339 time (with or without fractional seconds) and
// returns it in UTC. An empty string is the zero time; ok is false for a
// time that is present but unreadable. A readable time outside the sane
// range is returned as it is: the cleaning door (clean) drops the incident
// that carries it and names it in the log, where an adapter skipping it
// would drop it unseen.
func parseTime(s string) (t time.Time, ok bool) {
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// The caps on feed-supplied text, in characters.
const (
	maxHeadline      = 300
	maxStatusWord    = 40
	maxComponentName = 200
	maxComponentID   = 100
	maxURL           = 2048
)

// cleanText makes feed text safe to store and render anywhere: control
// characters (CR and LF included) become spaces, bidirectional overrides
// and other invisible format characters are dropped, runs of white space
// are folded, and the result is cut to max characters.
func cleanText(s string, max int) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			continue
		case unicode.IsControl(r) || unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.Is(unicode.Cf, r): // bidi controls, zero-width characters
			continue
		}
		if n >= max {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	out := b.String()
	if n >= max {
		out = strings.TrimSpace(string([]rune(out)[:max-1])) + "…"
	}
	return out
}

// cleanURL returns raw when it is an absolute http(s) link of sane length,
// else fallback: a javascript: or data: link from a feed must never reach
// an href of ours, nor an API client that renders links.
func cleanURL(raw, fallback string) string {
	if raw == "" || len(raw) > maxURL {
		return fallback
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fallback
	}
	return u.String()
}

// clean bounds everything in a result that came from the page, and drops
// (naming them) the incidents that cannot be published: no usable id, or a
// time outside the sane range.
func clean(svc snapshot.Service, res Result) (Result, []string) {
	var dropped []string
	kept := res.Incidents[:0]
	for _, inc := range res.Incidents {
		if inc.UpdatedAt.IsZero() {
			inc.UpdatedAt = inc.StartedAt
		}
		if why := unpublishable(svc, inc); why != "" {
			dropped = append(dropped, why)
			continue
		}
		inc.Service = svc.Slug
		inc.Headline = cleanText(inc.Headline, maxHeadline)
		if inc.Headline == "" {
			inc.Headline = "Untitled incident"
		}
		inc.Status = cleanText(inc.Status, maxStatusWord)
		inc.URL = cleanURL(inc.URL, svc.StatusPage)
		if inc.EndedAt != nil && inc.EndedAt.Before(inc.StartedAt) {
			// Imported or back-filed incidents can be resolved before they
			// were declared. It began no later than it ended.
			inc.StartedAt = *inc.EndedAt
		}
		if inc.UpdatedAt.Before(inc.StartedAt) {
			inc.UpdatedAt = inc.StartedAt
		}
		kept = append(kept, inc)
	}
	res.Incidents = kept
	for i, c := range res.Components {
		res.Components[i].ID = cleanText(c.ID, maxComponentID)
		res.Components[i].Name = cleanText(c.Name, maxComponentName)
		res.Components[i].Group = cleanText(c.Group, maxComponentName)
		if !c.Status.Valid() {
			res.Components[i].Status = snapshot.Unknown
		}
	}
	if !res.Status.Valid() {
		res.Status = snapshot.Unknown
	}
	return res, dropped
}

// unpublishable says why an incident cannot be published, or "".
func unpublishable(svc snapshot.Service, inc snapshot.Incident) string {
	prefix := svc.Slug + "-"
	if !strings.HasPrefix(inc.ID, prefix) || snapshot.OfficialIncidentID(svc.Slug, inc.ID[len(prefix):]) != inc.ID {
		return fmt.Sprintf("incident id %q is not a safe id", cleanText(inc.ID, 80))
	}
	for _, t := range []time.Time{inc.StartedAt, inc.UpdatedAt} {
		if !saneTime(t) {
			return fmt.Sprintf("incident %s: time %s out of range", inc.ID, t.Format(time.RFC3339))
		}
	}
	if inc.EndedAt != nil && !saneTime(*inc.EndedAt) {
		return fmt.Sprintf("incident %s: end %s out of range", inc.ID, inc.EndedAt.Format(time.RFC3339))
	}
	if !inc.Severity.Valid() {
		return fmt.Sprintf("incident %s: severity %q", inc.ID, cleanText(string(inc.Severity), 20))
	}
	return ""
}

// severityOf is an incident's severity from the worst status it gave a
// component, for pages whose incidents carry no impact of their own.
func severityOf(worst snapshot.Status) snapshot.Severity {
	switch worst {
	case snapshot.MajorOutage:
		return snapshot.Critical
	case snapshot.PartialOutage:
		return snapshot.Major
	}
	return snapshot.Minor
}
