package api

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The cleaning of text and times that come from outside — a status page, or
// a history file read back — so that whatever is stored and published is
// bounded, inert and renderable anywhere. The feed adapters' door and the
// history's load share it.

// The sane range of an incident's times. Anything outside is a broken or
// hostile page: year 0, or 9999-12-31T23:59:59-01:00, which is year 10000
// in UTC and cannot even be encoded as JSON.
var (
	earliestTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	latestTime   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// SaneTime reports whether t is within the range a status page can mean.
func SaneTime(t time.Time) bool { return !t.Before(earliestTime) && t.Before(latestTime) }

// IncidentFutureSlack is how far ahead of our clock an incident's times may
// be: a page's clock may be off, and RSS items are dated by hand, sometimes
// in the wrong time zone. Further ahead, an item announces something to come
// (a scheduled maintenance), and a time is no incident's.
const IncidentFutureSlack = time.Hour

// The caps on incident text, in characters.
const (
	MaxHeadline   = 300
	MaxStatusWord = 40
	MaxURL        = 2048
)

// CleanText makes outside text safe to store and render anywhere: control
// characters (CR and LF included) become spaces, bidirectional overrides
// and other invisible format characters are dropped, runs of white space
// are folded, and the result is cut to max characters.
func CleanText(s string, max int) string {
	if cleanASCII(s, max) {
		// Text cleaned before, as every history read back holds 100 000
		// incidents' of: nothing to fold, drop or cut.
		return s
	}
	return cleanRunes(s, max)
}

// cleanASCII reports whether CleanText would return s as it is: printable
// ASCII, single spaces between words and none at either end, shorter than
// max.
func cleanASCII(s string, max int) bool {
	if len(s) >= max || s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == "" && max > 0
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

// cleanRunes is CleanText rune by rune.
func cleanRunes(s string, max int) string {
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

// CleanURL returns raw when it is an absolute http(s) link of sane length,
// else fallback: a javascript: or data: link from a feed must never reach
// an href of ours, nor an API client that renders links.
func CleanURL(raw, fallback string) string {
	if raw == "" || len(raw) > MaxURL {
		return fallback
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fallback
	}
	return u.String()
}

// Clean bounds an incident's outside text and checks its times, the same
// for one read from a status page and one read back from a history: it
// reports why the incident cannot be published ("" when it can). Times
// must be sane, and with a non-zero now no later than now plus
// IncidentFutureSlack: an incident that starts or ends further ahead is a
// broken page or clock, or an announcement, not news. Text is capped and made inert; a link that is
// not http(s) becomes fallback. An end before the start moves the start
// back (imported or back-filed incidents are resolved before they were
// declared), and the update is never before the start.
func (inc *Incident) Clean(now time.Time, fallback string) (why string) {
	if inc.UpdatedAt.IsZero() {
		inc.UpdatedAt = inc.StartedAt
	}
	limit := now.Add(IncidentFutureSlack)
	for _, t := range []struct {
		name string
		at   *time.Time
	}{{"time", &inc.StartedAt}, {"update", &inc.UpdatedAt}, {"end", inc.EndedAt}} {
		switch {
		case t.at == nil:
		case !SaneTime(*t.at):
			return fmt.Sprintf("incident %s: %s %s out of range", inc.ID, t.name, t.at.Format(time.RFC3339))
		case !now.IsZero() && t.at.After(limit):
			return fmt.Sprintf("incident %s: %s %s is in the future", inc.ID, t.name, t.at.Format(time.RFC3339))
		}
	}
	if !inc.Severity.Valid() {
		return fmt.Sprintf("incident %s: severity %q", inc.ID, CleanText(string(inc.Severity), 20))
	}
	inc.Headline = CleanText(inc.Headline, MaxHeadline)
	if inc.Headline == "" {
		inc.Headline = "Untitled incident"
	}
	inc.Status = CleanText(inc.Status, MaxStatusWord)
	inc.URL = CleanURL(inc.URL, fallback)
	if inc.EndedAt != nil && inc.EndedAt.Before(inc.StartedAt) {
		inc.StartedAt = *inc.EndedAt
	}
	if inc.UpdatedAt.Before(inc.StartedAt) {
		inc.UpdatedAt = inc.StartedAt
	}
	return ""
}

// HumanDuration is a short human duration, rounded to the minute (at
// least one): "45 min", "3 h 20 min", "1 d 2 h". It is the one way a
// duration is said to people, on the status page, in /check, the
// statusline and the chat notices alike, so that one outage reads the same
// everywhere. From a day on it counts days and hours, leaving the minutes
// out: "1 d 2 h" is read at a glance where "26 h 42 min" has to be worked
// out, and past a day the minutes change nothing anyone does.
func HumanDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case days > 0 && hours > 0:
		return strconv.Itoa(days) + " d " + strconv.Itoa(hours) + " h"
	case days > 0:
		return strconv.Itoa(days) + " d"
	case hours > 0 && mins > 0:
		return strconv.Itoa(hours) + " h " + strconv.Itoa(mins) + " min"
	case hours > 0:
		return strconv.Itoa(hours) + " h"
	}
	return strconv.Itoa(max(mins, 1)) + " min"
}

// Truncate shortens outside input to n bytes before it is echoed in a
// message or a log, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// JoinList joins items as "a, b, c<last>d": JoinList(names, " or ") asks
// "OpenAI, Azure OpenAI or OpenRouter".
func JoinList(items []string, last string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + last + items[len(items)-1]
}
