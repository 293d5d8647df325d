package feed

import (
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

func openrouter(url string) catalog.Service {
	return catalog.Service{Slug: "openrouter", Name: "OpenRouter", StatusPage: "https://status.openrouter.ai",
		Feed: catalog.Feed{Format: catalog.FormatHTML, URL: url}}
}

func htmlRead(t *testing.T, rep reply) (Result, error) {
	t.Helper()
	srv, _ := serve(t, "text/html", map[string]reply{"/": rep})
	return read(t, htmlPage{}, openrouter(srv.URL+"/"))
}

func TestHTMLStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want api.Status
	}{
		{"html-openrouter-operational.html", api.Operational},
		{"html-openrouter-degraded.html", api.Degraded},
		{"html-openrouter-some-degraded.html", api.Degraded},
		{"html-openrouter-partial.html", api.PartialOutage},
		{"html-openrouter-major.html", api.MajorOutage},
		{"html-openrouter-disruption.html", api.MajorOutage},
		{"html-openrouter-maintenance.html", api.Maintenance},
		// The banner says partial outage, a component major outage: the worst wins.
		{"html-openrouter-mixed.html", api.MajorOutage},
		// Spans, &nbsp;, <br> and capitals inside the banner.
		{"html-openrouter-nested.html", api.Operational},
		// Hidden, templated and noscript variants of the banner are ignored.
		{"html-openrouter-hidden-variants.html", api.Operational},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := htmlRead(t, reply{file: tt.file})
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
	t.Parallel()
	deep := strings.Repeat("<div>", 600) + "<h2>All systems operational</h2>"
	cases := []errorCase{
		{"redesigned page without a banner", reply{file: "html-openrouter-redesign.html"}, "no recognised status banner"},
		{"client-rendered shell", reply{file: "html-openrouter-shell.html"}, "no recognised status banner"},
		{"200 challenge page", reply{file: "html-openrouter-challenge.html"}, "no recognised status banner"},
		{"403 challenge page", reply{code: 403, file: "html-openrouter-challenge.html"}, "HTTP 403"},
		{"HTTP 503", reply{code: 503, ctype: "text/html", body: []byte("<h1>Service disruption</h1>")}, "HTTP 503"},
		{"JSON instead of HTML", reply{file: "flashduty-operational.json"}, "no recognised status banner"},
		{"empty body", reply{}, "no recognised status banner"},
		{"over MaxBody", reply{ctype: "text/html", body: oversized(fixture(t, "html-openrouter-operational.html"))}, "larger than"},
		{"nested deeper than the parser allows", reply{ctype: "text/html", body: []byte(deep)}, "parsing HTML"},
	}
	checkErrors(t, cases, htmlRead)
}

// The exact-match rule on small documents: a phrase must be an element's
// whole visible text, anywhere but links, forms, scripts and hidden parts.
func TestParseHTMLStatus(t *testing.T) {
	t.Parallel()
	const none = api.Status("") // an error
	tests := []struct {
		doc  string
		want api.Status
	}{
		{`<h1>ALL SYSTEMS OPERATIONAL</h1>`, api.Operational},
		{`<p>  all
		   systems   operational </p>`, api.Operational},
		{`All systems operational`, api.Operational}, // the body's whole text
		{`<div><h2>Partial system outage</h2></div><div><h2>Under maintenance</h2></div>`, api.PartialOutage},
		{`<h2>Partially degraded service</h2>`, api.Degraded},
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
		{`<div aria-hidden="false"><h2>Major outage</h2></div><h2>All systems operational</h2>`, api.MajorOutage},
		{`<ul><li>Operational</li><li>Degraded</li></ul>`, none},
		{strings.Repeat("x ", 1<<16) + `<h2>Degraded performance</h2>`, api.Degraded},
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
	addFixtures(f, "html-openrouter-*.html")
	f.Add([]byte(`<div><h2>All systems operational</h2><h2 hidden>Major outage</h2></div>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseHTMLStatus(data)
		if err != nil {
			if st != "" {
				t.Fatalf("error %v with status %q", err, st)
			}
			return
		}
		if !st.Valid() || st == api.Unknown {
			t.Fatalf("status %q", st)
		}
	})
}
