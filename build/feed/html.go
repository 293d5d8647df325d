package feed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aistatus/aistatus/api"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlPage reads a status page that serves only HTML: OpenRouter's
// (status.openrouter.ai, hosted by OnlineOrNot). It finds the page's overall
// banner: an element whose whole visible text, whitespace-normalised and
// lower-cased, is exactly one of bannerPhrases. Nothing is guessed: a page
// with no such element (a redesign, a client-rendered shell, a challenge
// page) is an error, "no recognised status banner", so the service falls
// back to probe-only for that cycle instead of getting a wrong status.
// Several phrases on one page give the worst. Incidents are not read.
type htmlPage struct{}

var bannerPhrases = map[string]api.Status{
	"all systems operational":           api.Operational,
	"degraded performance":              api.Degraded,
	"some systems degraded":             api.Degraded,
	"partially degraded service":        api.Degraded,
	"partial outage":                    api.PartialOutage,
	"partial system outage":             api.PartialOutage,
	"major outage":                      api.MajorOutage,
	"major system outage":               api.MajorOutage,
	"service disruption":                api.MajorOutage,
	"under maintenance":                 api.Maintenance,
	"scheduled maintenance in progress": api.Maintenance,
}

// maxPhrase is longer than every phrase: an element with more text cannot
// be a banner, and neither can any element around it.
const maxPhrase = 40

// Read fetches the page and reads its banner.
func (htmlPage) Read(ctx context.Context, req Request) (Result, error) {
	return readDocument(ctx, req, "text/html", func(data []byte, _ Request) (Result, error) {
		st, err := parseHTMLStatus(data)
		if err != nil {
			// An HTML page is what is expected here: a page without a
			// banner we know is a page of another shape.
			return Result{}, &Error{Kind: api.FailureSchema, Err: err}
		}
		return Result{Status: st}, nil
	})
}

// parseHTMLStatus returns the worst status among the page's banners.
func parseHTMLStatus(data []byte) (api.Status, error) {
	doc, err := html.Parse(bytes.NewReader(data)) // rejects nesting deeper than 512
	if err != nil {
		return "", fmt.Errorf("parsing HTML: %w", err)
	}
	found := api.Unknown
	bannerText(doc, &found)
	if found == api.Unknown {
		return "", errors.New("no recognised status banner")
	}
	return found, nil
}

// bannerText returns n's normalised text, or long when it is longer than
// maxPhrase, and records in found each element whose text is a phrase.
// Invisible and interactive elements are skipped: hidden variants of the
// banner, scripts, and links (past incidents titled "Service disruption").
func bannerText(n *html.Node, found *api.Status) (text string, long bool) {
	switch {
	case n.Type == html.TextNode:
		text = strings.Join(strings.Fields(strings.ToLower(n.Data)), " ")
		return text, len(text) > maxPhrase
	case n.Type == html.ElementNode && skipped(n):
		return "", false
	case n.Type != html.ElementNode && n.Type != html.DocumentNode:
		return "", false
	}
	var parts []string
	for c := range n.ChildNodes() {
		t, l := bannerText(c, found)
		if long = long || l; !long && t != "" {
			parts = append(parts, t)
			text = strings.Join(parts, " ")
			long = len(text) > maxPhrase
		}
	}
	if long {
		return "", true
	}
	if st, ok := bannerPhrases[text]; ok && n.Type == html.ElementNode {
		*found = api.Worse(*found, st)
	}
	return text, false
}

var skippedAtoms = []atom.Atom{atom.Head, atom.Script, atom.Style, atom.Noscript, atom.Template,
	atom.Svg, atom.A, atom.Button, atom.Select, atom.Option, atom.Textarea}

// skipped reports whether n and its contents are left out.
func skipped(n *html.Node) bool {
	if slices.Contains(skippedAtoms, n.DataAtom) {
		return true
	}
	for _, a := range n.Attr {
		v := strings.ToLower(a.Val)
		style := strings.Join(strings.Fields(v), "")
		class := strings.Fields(v)
		if a.Key == "hidden" || a.Key == "aria-hidden" && strings.TrimSpace(v) == "true" ||
			a.Key == "style" && (strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")) ||
			a.Key == "class" && (slices.Contains(class, "hidden") || slices.Contains(class, "invisible")) {
			return true
		}
	}
	return false
}
