package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// A status page is run by its owner, not by us. Each case is an attack seen
// on loopback against the first version, sent through the door every read
// goes through (Read): what comes out must be bounded, inert and renderable.
func TestReadCleansHostileFeeds(t *testing.T) {
	t.Parallel()
	incident := func(fields string) string {
		return `{"id":"ok1","name":"Elevated errors","status":"investigating","impact":"minor","created_at":"2026-11-01T10:00:00Z"` + fields + `}`
	}
	calm := `"components":[{"id":"api","name":"API","status":"operational"}]`
	tests := []struct {
		name  string
		inc   string
		check func(t *testing.T, incs []api.Incident)
	}{
		{"a time that is year 10000 in UTC is dropped, not fatal, and named",
			incident(`,"id":"bad","started_at":"9999-12-31T23:59:59-01:00"`),
			func(t *testing.T, incs []api.Incident) {
				if len(incs) != 1 || incs[0].ID != "svc-ok1" {
					t.Errorf("incidents %+v, want only the sane one", incs)
				}
			}},
		{"year 0 with a positive offset is dropped and named",
			incident(`,"id":"bad","started_at":"0000-01-01T00:30:00+01:00"`),
			func(t *testing.T, incs []api.Incident) {
				if len(incs) != 1 {
					t.Errorf("incidents %+v, want only the sane one", incs)
				}
			}},
		{"an incident starting years ahead of our clock is dropped and named",
			incident(`,"id":"bad","started_at":"` + time.Now().AddDate(5, 0, 0).UTC().Format(time.RFC3339) + `"`),
			func(t *testing.T, incs []api.Incident) {
				if len(incs) != 1 {
					t.Errorf("incidents %+v, want only the sane one", incs)
				}
			}},
		{"an update in 2150 is dropped and named, not ignored",
			incident(`,"id":"bad","updated_at":"2150-01-01T00:00:00Z"`),
			func(t *testing.T, incs []api.Incident) {
				if len(incs) != 1 {
					t.Errorf("incidents %+v, want only the sane one", incs)
				}
			}},
		{"a 1 MiB headline is capped",
			incident(`,"id":"big","name":"` + strings.Repeat("A", 1<<20) + `"`),
			func(t *testing.T, incs []api.Incident) {
				for _, inc := range incs {
					if n := utf8.RuneCountInString(inc.Headline); n > api.MaxHeadline {
						t.Errorf("headline of %d characters", n)
					}
				}
			}},
		{"javascript: and data: links become the status page",
			incident(`,"id":"js","shortlink":"javascript:alert(1)"`) + `,` + incident(`,"id":"data","shortlink":"data:text/html,<script>alert(1)</script>"`),
			func(t *testing.T, incs []api.Incident) {
				for _, inc := range incs {
					if inc.URL != "https://status.example.com" {
						t.Errorf("%s: link %q", inc.ID, inc.URL)
					}
				}
			}},
		{"an id that is markup is made safe",
			incident(`,"id":"x\"><img src=x onerror=alert(1)>"`),
			func(t *testing.T, incs []api.Incident) {
				for _, inc := range incs {
					if strings.ContainsAny(inc.ID, `"<> =()`) {
						t.Errorf("id %q", inc.ID)
					}
				}
			}},
		{"CR, LF and bidi controls are stripped from text",
			incident(`,"id":"ctl","name":"Line one\r\nInjected: header\u202eevil\u2066","status":"inv\nestigating"`),
			func(t *testing.T, incs []api.Incident) {
				for _, inc := range incs {
					if inc.ID == "svc-ctl" && (inc.Headline != "Line one Injected: headerevil" || inc.Status != "inv estigating") {
						t.Errorf("headline %q, status %q", inc.Headline, inc.Status)
					}
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"page":{"id":"p"},` + calm + `,"incidents":[` + incident("") + `,` + tt.inc + `]}`
			srv, _ := serve(t, jsonAccept, map[string]reply{summaryPath: {body: []byte(body)}})
			svc := service(srv, "svc", "https://status.example.com", catalog.FormatStatuspage, false)
			res, dropped, err := Read(context.Background(), Adapters()[catalog.FormatStatuspage], Request{Client: srv.Client(), Service: svc, Now: time.Now()})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			tt.check(t, res.Incidents)
			// What the door drops it names, for the build's log.
			if kept := len(res.Incidents); strings.Contains(tt.name, "dropped") != (len(dropped) > 0) ||
				(len(dropped) > 0 && !strings.Contains(dropped[0], "out of range") && !strings.Contains(dropped[0], "in the future")) {
				t.Errorf("%d kept, dropped %q", kept, dropped)
			}
			if _, err := json.Marshal(res); err != nil {
				t.Errorf("the result does not render: %v", err)
			}
		})
	}
}

// TestReadCapsComponents: every component of a page is published in its
// service's document and kept in the history's roster, so a page may list
// at most MaxComponents. One that lists more (a 5 MiB page holds some
// 100 000) fails at the door as a schema failure, neither kept whole nor
// cut. The page is Anthropic's real one with its components repeated.
func TestReadCapsComponents(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(fixture(t, "real/statuspage-anthropic-20260729.json"), &doc); err != nil {
		t.Fatal(err)
	}
	comps := doc["components"].([]any)
	page := func(n int) []byte {
		list := make([]map[string]any, n)
		for i := range list {
			c := comps[i%len(comps)].(map[string]any)
			list[i] = map[string]any{"id": fmt.Sprintf("c%d", i), "name": c["name"], "status": c["status"]}
		}
		doc["components"] = list
		out, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		n    int
		fail bool
	}{
		{"the page as captured", len(comps), false},
		{"as many as the cap", MaxComponents, false},
		{"one more than the cap", MaxComponents + 1, true},
		{"70 000, just under the 5 MiB body cap", 70_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := page(tc.n)
			if len(body) > MaxBody {
				t.Fatalf("the page is %d bytes: the body cap, not the component cap, would refuse it", len(body))
			}
			srv, _ := serve(t, jsonAccept, map[string]reply{summaryPath: {body: body}})
			res, err := read(t, Adapters()[catalog.FormatStatuspage], anthropic(srv, false))
			if tc.fail {
				if Kind(err) != api.FailureSchema || !strings.Contains(fmt.Sprint(err), fmt.Sprintf("more than the %d", MaxComponents)) || res.Components != nil {
					t.Fatalf("%d components, err = %v (kind %q), want a schema failure naming the cap", len(res.Components), err, Kind(err))
				}
				return
			}
			if err != nil || len(res.Components) != tc.n {
				t.Fatalf("%d components, err = %v, want %d", len(res.Components), err, tc.n)
			}
		})
	}
}
