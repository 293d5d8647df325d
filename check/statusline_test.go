package check

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// claudeDownView is the test view during a claude.ai and Claude Code major
// outage with the Anthropic API up and its console operational.
func claudeDownView(t *testing.T) *fakeView {
	t.Helper()
	view := testView(testCatalog(t))
	down := api.Incident{ID: "anthropic-x1", Service: "anthropic", Headline: "claude.ai and Claude Code unavailable",
		Severity: api.Critical, StartedAt: genTime.Add(-10 * time.Minute), Status: "investigating", Source: api.SourceOfficial}
	sum := view.summaries["anthropic"]
	sum.Surfaces = []api.SurfaceSummary{
		{ID: catalog.SurfaceAPI, Name: "Anthropic API", Status: api.Operational, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}},
		{ID: catalog.SurfaceApp, Name: "claude.ai", Status: api.MajorOutage, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{down}},
		{ID: catalog.SurfaceAgent, Name: "Claude Code", Status: api.MajorOutage, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{down}},
		{ID: catalog.SurfaceConsole, Name: "Claude Console", Status: api.Operational, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}},
	}
	view.summaries["anthropic"] = sum
	return view
}

// TestStatuslineSaysWhatCheckSays: each name of the statusline is matched
// as /check matches q and printed with the subject and status of /check's
// verdict, surfaces and models included: claude.ai is down while the API
// is up, and a stack is each of its names.
func TestStatuslineSaysWhatCheckSays(t *testing.T) {
	t.Parallel()
	engine, _, _ := newTestEngine(t)
	view := claudeDownView(t)
	for _, tt := range []struct{ q, want string }{
		{"claude.ai", "🔴 claude.ai major outage"},
		{"claude code", "🔴 Claude Code major outage"},
		{"platform.claude.com", "✅ Claude Console up"},
		{"anthropic", "✅ Anthropic API up"},
		{"api.anthropic.com", "✅ Anthropic API up"},
		{"openai", "⚠️ OpenAI API degraded"},
		// The snapshot has no word on ChatGPT.
		{"chatgpt", "❔ ChatGPT unknown"},
		{"cohere", "🔴 Cohere API major outage"},
		{"groq", "✅ Groq up"},
		{"mistral", "❔ Mistral AI unknown"},
		// A model is the model at its maker's service; this view has no
		// models, so it is unknown whatever Anthropic's status.
		{"claude-sonnet-4.5", "❔ Claude Sonnet 4.5 at Anthropic unknown"},
	} {
		line, err := engine.Statusline(view, []string{tt.q})
		if err != nil {
			t.Fatalf("%s: %v", tt.q, err)
		}
		doc, err := engine.Check(view, Request{Query: tt.q})
		if err != nil {
			t.Fatal(err)
		}
		if said := checkSays(t, doc); line != tt.want || line != said {
			t.Errorf("%s: statusline %q, want %q; /check says %q", tt.q, line, tt.want, said)
		}
	}

	// A stack: each name as above, in the order asked, where the stack
	// check counts 0 of 2 up.
	line, err := engine.Statusline(view, []string{"claude.ai", "anthropic", "openai"})
	if want := "🔴 claude.ai major outage · ✅ Anthropic API up · ⚠️ OpenAI API degraded"; err != nil || line != want {
		t.Errorf("stack: %q %v, want %q", line, err, want)
	}
	stack, err := engine.CheckStack(view, "claude.ai,anthropic,openai", []string{"claude.ai", "anthropic", "openai"})
	if err != nil || !strings.HasSuffix(stack.Verdict.Headline, "1 of 3 up") || strings.Count(line, "✅") != 1 {
		t.Errorf("stack check %q %v, statusline %q: they do not count the same up", stack.Verdict.Headline, err, line)
	}

	for _, q := range []string{"opnai", "example.com", strings.Repeat("a", MaxQuery+1)} {
		var bad *InputError
		if _, err := engine.Statusline(view, []string{q}); !errors.As(err, &bad) || bad.Param != "q" {
			t.Errorf("%.20s: %v, want an input error naming q", q, err)
		}
	}
}

// checkSays is the statusline item /check's single answer makes: the
// verdict's emoji, the subject its headline names and the status in a word.
func checkSays(t *testing.T, doc api.CheckDoc) string {
	t.Helper()
	h := doc.Verdict.Headline
	name, _, ok := strings.Cut(h, " is ")
	if *doc.Status == api.Unknown {
		name, ok = strings.CutPrefix(h, "We can't tell whether ")
		name, _, _ = strings.Cut(name, " is up right now")
	}
	if !ok {
		t.Fatalf("headline %q names no subject", h)
	}
	word := map[api.Status]string{api.Operational: "up", api.Degraded: "degraded", api.PartialOutage: "partial outage",
		api.MajorOutage: "major outage", api.Maintenance: "maintenance", api.Unknown: "unknown"}[*doc.Status]
	return doc.Verdict.Emoji + " " + name + " " + word
}

// TestStatuslineWithoutNames: every service's trouble, grouped by service
// and worst first, the API and each surface by name; the services of
// unknown status counted, not named; all up said in three words.
func TestStatuslineWithoutNames(t *testing.T) {
	t.Parallel()
	engine, _, _ := newTestEngine(t)
	cat := testCatalog(t)
	calm := &fakeView{generatedAt: genTime, staleAfter: 15 * time.Minute, summaries: map[string]api.ServiceSummary{}}
	for _, svc := range cat.Services {
		sum := api.ServiceSummary{Slug: svc.Slug, Name: svc.Name, Status: api.Operational, Basis: api.BasisOfficial}
		for _, sf := range svc.Surfaces {
			sum.Surfaces = append(sum.Surfaces, api.SurfaceSummary{ID: sf.ID, Name: sf.Name, Status: api.Operational, Basis: api.BasisOfficial})
		}
		calm.summaries[svc.Slug] = sum
	}
	stale := *calm
	stale.generatedAt = genTime.Add(-time.Hour)
	for _, tt := range []struct {
		name string
		view View
		want string
	}{
		{"calm", calm, "✅ all " + strconv.Itoa(len(cat.Services)) + " up"},
		{"stale", &stale, "⏳ stale data (1 h 1 min old) · ✅ all " + strconv.Itoa(len(cat.Services)) + " up"},
		// testView: OpenAI degraded, Cohere down by our probes, deepgram and
		// the services without a page unknown, and no surface read but
		// Anthropic's (claudeDownView): OpenAI, Cohere, xAI and Perplexity
		// have surfaces of unknown status.
		{"claude.ai down", claudeDownView(t),
			"🔴 Anthropic: claude.ai major outage, Claude Code major outage · 🔴 Cohere: API major outage · " +
				"⚠️ OpenAI: API degraded · ⚠️ DeepSeek: API degraded · ❔ " + strconv.Itoa(unknownIn(t, cat)) + " unknown"},
	} {
		line, err := engine.Statusline(tt.view, nil)
		if err != nil || line != tt.want {
			t.Errorf("%s: %q %v\nwant %q", tt.name, line, err, tt.want)
		}
	}
}

// unknownIn counts the services testView has of unknown status, or with a
// surface the view has no word on, and none in trouble.
func unknownIn(t *testing.T, cat catalog.Catalog) int {
	t.Helper()
	view := testView(cat)
	n := 0
	for _, svc := range cat.Services {
		sum := view.summaries[svc.Slug]
		if sum.Status == api.Unknown || (len(svc.Surfaces) > 0 && !api.Troubled(sum.Status) && svc.Slug != "anthropic") {
			n++
		}
	}
	return n
}

// TestOutputsSayTheAPIWords: the verdict and the statusline say each
// status with api's emoji and word (api.StatusTable), and no other.
func TestOutputsSayTheAPIWords(t *testing.T) {
	t.Parallel()
	for _, st := range api.Statuses {
		v := verdict("X", st, false, 0)
		if v.Emoji != st.Emoji() || !strings.Contains(v.Headline, st.Word()) && st != api.Unknown {
			t.Errorf("%s: verdict %s %q, want api's %s and %q", st, v.Emoji, v.Headline, st.Emoji(), st.Word())
		}
		if !strings.Contains(phrase(st), st.Word()) {
			t.Errorf("%s: phrased %q, without api's word %q", st, phrase(st), st.Word())
		}
		if got, want := statuslineItem("X", st), st.Emoji()+" X "+st.Word(); got != want {
			t.Errorf("%s: statusline item %q, want %q", st, got, want)
		}
	}
}
