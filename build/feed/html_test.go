package feed

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

func openrouter(url string) snapshot.Service {
	return snapshot.Service{Slug: "openrouter", Name: "OpenRouter", StatusPage: "https://status.openrouter.ai",
		Feed: snapshot.Feed{Format: snapshot.FormatHTML, URL: url}}
}

func htmlRead(t *testing.T, page fdPage) (Result, error) {
	t.Helper()
	url := fdServe(t, "text/html", page)
	return htmlPage{}.Read(context.Background(), &http.Client{Timeout: 10 * time.Second}, openrouter(url))
}

func htmlFile(t *testing.T, name string) fdPage {
	return fdPage{ctype: "text/html; charset=utf-8", body: fdFixture(t, name)}
}

func TestHTMLStatus(t *testing.T) {
	tests := []struct {
		file string
		want snapshot.Status
	}{
		{"html-openrouter-operational.html", snapshot.Operational},
		{"html-openrouter-degraded.html", snapshot.Degraded},
		{"html-openrouter-some-degraded.html", snapshot.Degraded},
		{"html-openrouter-partial.html", snapshot.PartialOutage},
		{"html-openrouter-major.html", snapshot.MajorOutage},
		{"html-openrouter-disruption.html", snapshot.MajorOutage},
		{"html-openrouter-maintenance.html", snapshot.Maintenance},
		// The banner says partial outage, a component major outage: the worst wins.
		{"html-openrouter-mixed.html", snapshot.MajorOutage},
		// Spans, &nbsp;, <br> and capitals inside the banner.
		{"html-openrouter-nested.html", snapshot.Operational},
		// Hidden, templated and noscript variants of the banner are ignored.
		{"html-openrouter-hidden-variants.html", snapshot.Operational},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := htmlRead(t, htmlFile(t, tt.file))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if res.Status != tt.want || res.Incidents != nil {
				t.Errorf("Read = %+v, want status %q and no incidents", res, tt.want)
			}
		})
	}
}

func TestHTMLErrors(t *testing.T) {
	oversized := append(bytes.Repeat([]byte(" "), MaxBody), fdFixture(t, "html-openrouter-operational.html")...)
	deep := strings.Repeat("<div>", 600) + "<h2>All systems operational</h2>"
	tests := []struct {
		name string
		page fdPage
		want string
	}{
		{"redesigned page without a banner", htmlFile(t, "html-openrouter-redesign.html"), "no recognised status banner"},
		{"client-rendered shell", htmlFile(t, "html-openrouter-shell.html"), "no recognised status banner"},
		{"200 challenge page", htmlFile(t, "html-openrouter-challenge.html"), "no recognised status banner"},
		{"403 challenge page", fdPage{403, "text/html", fdFixture(t, "html-openrouter-challenge.html")}, "HTTP 403"},
		{"HTTP 503", fdPage{503, "text/html", []byte("<h1>Service disruption</h1>")}, "HTTP 503"},
		{"JSON instead of HTML", fdPage{200, "application/json", fdFixture(t, "flashduty-operational.json")}, "no recognised status banner"},
		{"empty body", fdPage{}, "no recognised status banner"},
		{"over MaxBody", fdPage{200, "text/html", oversized}, "larger than"},
		{"nested deeper than the parser allows", fdPage{200, "text/html", []byte(deep)}, "parsing HTML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := htmlRead(t, tt.page)
			if err == nil {
				t.Fatalf("Read succeeded with %+v, want an error", res)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
			if res.Status != "" || res.Incidents != nil {
				t.Errorf("a failed read returned %+v, want the zero Result", res)
			}
		})
	}
}

// The exact-match rule on small documents: a phrase must be an element's
// whole visible text, anywhere but links, forms, scripts and hidden parts.
func TestParseHTMLStatus(t *testing.T) {
	const none = snapshot.Status("") // an error
	tests := []struct {
		doc  string
		want snapshot.Status
	}{
		{`<h1>ALL SYSTEMS OPERATIONAL</h1>`, snapshot.Operational},
		{`<p>  all
		   systems   operational </p>`, snapshot.Operational},
		{`All systems operational`, snapshot.Operational}, // the body's whole text
		{`<div><h2>Partial system outage</h2></div><div><h2>Under maintenance</h2></div>`, snapshot.PartialOutage},
		{`<h2>Partially degraded service</h2>`, snapshot.Degraded},
		{`<p>All systems operational.</p>`, none},
		{`<p>All systems operational as of today</p>`, none},
		{`<p>Not all systems operational</p>`, none},
		{`<p>All systems <b>are</b> operational</p>`, none},
		{`<a href="/incidents/1">Major outage</a>`, none},
		{`<button>Partial outage</button>`, none},
		{`<select><option>Major outage</option></select>`, none},
		{`<div aria-hidden="true">Major outage</div>`, none},
		{`<div style="DISPLAY: none">Major outage</div>`, none},
		{`<div class="md:block invisible">Major outage</div>`, none},
		{`<script>document.write("Major outage")</script>`, none},
		{`<title>Major outage</title>`, none},
		{`<svg><text>Major outage</text></svg>`, none},
		{`<!-- Major outage -->`, none},
		{`<div aria-hidden="false"><h2>Major outage</h2></div><h2>All systems operational</h2>`, snapshot.MajorOutage},
		{`<ul><li>Operational</li><li>Degraded</li></ul>`, none},
		{strings.Repeat("x ", 1<<16) + `<h2>Degraded performance</h2>`, snapshot.Degraded},
	}
	for _, tt := range tests {
		got, err := parseHTMLStatus([]byte(tt.doc))
		name := tt.doc[:min(len(tt.doc), 60)]
		switch {
		case tt.want == none && err == nil:
			t.Errorf("%q: got %q, want an error", name, got)
		case tt.want != none && (err != nil || got != tt.want):
			t.Errorf("%q: got %q, %v; want %q", name, got, err, tt.want)
		case err != nil && !strings.Contains(err.Error(), "no recognised status banner"):
			t.Errorf("%q: error %v", name, err)
		}
	}
}

func FuzzHTMLStatus(f *testing.F) {
	files, _ := filepath.Glob("testdata/html-openrouter-*.html")
	for _, name := range files {
		f.Add(fdFixture(f, filepath.Base(name)))
	}
	f.Add([]byte(`<div><h2>All systems operational</h2><h2 hidden>Major outage</h2></div>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseHTMLStatus(data)
		if err != nil {
			if st != "" {
				t.Fatalf("error %v with status %q", err, st)
			}
			return
		}
		if !st.Valid() || st == snapshot.Unknown {
			t.Fatalf("status %q", st)
		}
	})
}
