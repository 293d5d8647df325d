package snapshot

import (
	"net/url"
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
