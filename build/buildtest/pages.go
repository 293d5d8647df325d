package buildtest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// ComponentsVariant is a captured status page (a Statuspage summary.json
// or incident.io's widget document) with each component's status as
// status(id, captured status) gives it, and no incident.
func ComponentsVariant(t testing.TB, page []byte, status func(id, captured string) string) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(page, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc["components"].([]any) {
		comp := c.(map[string]any)
		comp["status"] = status(comp["id"].(string), comp["status"].(string))
	}
	doc["incidents"] = []any{}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// NodeText is the text of the first element of that class, "" for none.
func NodeText(n *html.Node, class string) string {
	return TextOf(n, func(n *html.Node) bool {
		return slices.ContainsFunc(n.Attr, func(a html.Attribute) bool {
			return a.Key == "class" && slices.Contains(strings.Fields(a.Val), class)
		})
	})
}

// TextOf is the text of the first element that match holds of, its
// spaces collapsed; "" for none.
func TextOf(n *html.Node, match func(*html.Node) bool) string {
	if n.Type == html.ElementNode && match(n) {
		var b strings.Builder
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.TextNode {
				b.WriteString(n.Data)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if s := TextOf(c, match); s != "" {
			return s
		}
	}
	return ""
}
