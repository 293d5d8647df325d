package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// lifecycleView is the test view with models found in a gateway's list and
// a retirement calendar.
type lifecycleView struct {
	modelView
	watched     []api.ModelDoc
	retirements []api.ModelRetirement
}

func (v lifecycleView) WatchedModels() []api.ModelDoc { return v.watched }
func (v lifecycleView) Retirements() []api.ModelRetirement {
	return v.retirements
}
func (v lifecycleView) Retirement(id string) (api.ModelRetirement, bool) {
	i := slices.IndexFunc(v.retirements, func(r api.ModelRetirement) bool { return r.ID == id })
	if i < 0 {
		return api.ModelRetirement{}, false
	}
	return v.retirements[i], true
}

// namedView is a lifecycleView that keeps its models' names indexed, as a
// loaded snapshot does (ModelNamer).
type namedView struct {
	lifecycleView
	names *ModelNames
	asked *int // how often the engine asked for the index
}

func (v namedView) ModelNames() *ModelNames { *v.asked++; return v.names }

// withLifecycle: Claude Opus 4.7 found in the list and up, Claude Opus 4.8
// found and up, Claude Opus 4.5 found and down; Claude 3 Opus (not
// watched) retired; Claude Opus 4.1 announced for 2026-12-15.
func withLifecycle(v *fakeView) lifecycleView {
	at := func(d int) *time.Time { t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d); return &t }
	doc := func(id, name string, created *time.Time, up *float64) api.ModelDoc {
		return api.ModelDoc{ID: id, Name: name, Author: "anthropic", Service: "anthropic", Created: created,
			Status:    api.Unknown,
			Providers: []api.ModelProvider{gatewayEntry("anthropic", "Anthropic", up)}}
	}
	watched := []api.ModelDoc{
		doc("anthropic/claude-opus-4.1", "Claude Opus 4.1", at(-200), pct(100)),
		doc("anthropic/claude-opus-4.5", "Claude Opus 4.5", at(10), pct(10)),
		doc("anthropic/claude-opus-4.7", "Claude Opus 4.7", at(100), pct(100)),
		doc("anthropic/claude-opus-4.8", "Claude Opus 4.8", at(150), pct(99)),
	}
	models := map[string]api.ModelDoc{}
	for i := range watched {
		watched[i].Status = watched[i].Providers[0].Status
		models[watched[i].ID] = watched[i]
	}
	return lifecycleView{modelView: modelView{fakeView: v, models: models}, watched: watched, retirements: []api.ModelRetirement{
		{ID: "anthropic/claude-3-opus", Name: "Claude 3 Opus", Service: "anthropic", Date: "2026-01-05", State: api.RetirementRetired,
			Source: "openrouter-models", Reason: "OpenRouter's model list no longer carries the model (noticed on this date)"},
		{ID: "anthropic/claude-opus-4.1", Name: "Claude Opus 4.1", Service: "anthropic", Date: "2026-12-15", State: api.RetirementAnnounced,
			Source: "openrouter-models", Reason: "OpenRouter's model list announces that it may remove the model after this date"},
		{ID: "anthropic/claude-opus-4.5", Name: "Claude Opus 4.5", Service: "anthropic", Date: "2026-01-01", State: api.RetirementAnnounced,
			Source: "openrouter-models", Reason: "OpenRouter's model list announces that it may remove the model after this date"},
	}}
}

func TestCheckModelLifecycle(t *testing.T) {
	t.Parallel()
	e, v, _ := newTestEngine(t)
	view := withLifecycle(v)
	for _, tc := range []struct {
		req    Request
		action string
		says   string // in the headline, reason or detail
	}{
		// Found in the list: answered at the maker's service.
		{Request{Query: "claude-opus-4.7"}, api.ActionProceed, "Claude Opus 4.7 at Anthropic"},
		{Request{Query: "Claude Opus 4.8", Error: "529"}, "", "Claude Opus 4.8 at Anthropic"},
		// Retired, not watched, named by its name: fix the client, the newer
		// models up named newest first, the one down left out.
		{Request{Query: "Claude 3 Opus"}, api.ActionFixClient, "Newer models of the same maker that are up: Claude Opus 4.8 (anthropic/claude-opus-4.8), Claude Opus 4.7 (anthropic/claude-opus-4.7), Claude Opus 4.1 (anthropic/claude-opus-4.1)."},
		{Request{Query: "anthropic", Model: "claude-3-opus", Error: "500"}, api.ActionFixClient, "Claude 3 Opus was retired on 2026-01-05"},
		// Announced for a date that came after the snapshot was built:
		// retired at the time of asking, in the past tense.
		{Request{Query: "claude-opus-4.5"}, api.ActionFixClient, "Claude Opus 4.5 was retired on 2026-01-01"},
		// Announced: only a 404 or a model-not-found code makes it the
		// caller's; the newer ones are those added after it.
		{Request{Query: "claude-opus-4.1", Error: "404"}, api.ActionFixClient, "up: Claude Opus 4.8 (anthropic/claude-opus-4.8), Claude Opus 4.7 (anthropic/claude-opus-4.7)."},
		{Request{Query: "claude-opus-4.1", Code: "model_not_found"}, api.ActionFixClient, "to be retired on 2026-12-15"},
		{Request{Query: "claude-opus-4.1"}, api.ActionProceed, "Claude Opus 4.1 is to be retired on 2026-12-15"},
	} {
		t.Run(tc.req.Query+"+"+tc.req.Model+"+"+tc.req.Error+tc.req.Code, func(t *testing.T) {
			doc, err := e.Check(view, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			v := doc.Verdict
			if !doc.Tracked || doc.Model == nil || (tc.action != "" && v.Action != tc.action) ||
				!strings.Contains(v.Headline+" "+v.Reason+" "+v.Detail, tc.says) {
				t.Errorf("tracked %v, model %+v, %s: %q / %q / %q; want %s saying %q", doc.Tracked, doc.Model, v.Action, v.Headline, v.Reason, v.Detail, tc.action, tc.says)
			}
			if v.Action == api.ActionFixClient && (doc.Model.Retirement == nil || v.Blame != api.BlameClient || v.RetryAfterSeconds != nil) {
				t.Errorf("fix_client without the calendar entry or the caller's blame: %+v", doc)
			}
			// A model nobody can call is not up: retired at its own level,
			// and the entry it answers with says so too.
			retired := strings.Contains(v.Headline, "was retired")
			if retired != (v.Level == api.LevelRetired && v.Emoji == api.EmojiRetired) ||
				(retired && doc.Model.Retirement.State != api.RetirementRetired) {
				t.Errorf("%q: level %q, emoji %q, calendar %+v", v.Headline, v.Level, v.Emoji, doc.Model.Retirement)
			}
		})
	}
	// A view that knows no lifecycle (an older snapshot) knows only the
	// pinned models.
	if doc, err := e.Check(withSonnet(v, pct(99), pct(99)), Request{Query: "Claude 3 Opus"}); err != nil || doc.Tracked {
		t.Errorf("without a lifecycle view: tracked %v, %v", doc.Tracked, err)
	}
}

// TestStatuslineRetiredModel: the statusline says retired, in the past
// tense, as /check's verdict does, for a model retired or whose announced
// date has come since the snapshot was built; an announcement to come
// leaves the model's status standing.
func TestStatuslineRetiredModel(t *testing.T) {
	t.Parallel()
	e, v, _ := newTestEngine(t)
	view := withLifecycle(v)
	for q, want := range map[string]string{
		"claude-3-opus":   "⛔ Claude 3 Opus at Anthropic retired 2026-01-05",
		"claude-opus-4.5": "⛔ Claude Opus 4.5 at Anthropic retired 2026-01-01",
		"claude-opus-4.1": "✅ Claude Opus 4.1 at Anthropic up",
	} {
		if line, err := e.Statusline(view, []string{q}); err != nil || line != want {
			t.Errorf("%s: %q %v, want %q", q, line, err, want)
		}
	}
}

// TestPeopleNames: a model found by rule also answers to its name without
// its brand word, where what follows is a word and a version, and without
// a last "Preview"; never to a bare version or a bare word.
func TestPeopleNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][]string{
		"Claude Opus 5.5":        {"Opus 5.5"},
		"Claude Opus 4.7 (Fast)": {"Opus 4.7 (Fast)"},
		"Claude Sonnet 5":        {"Sonnet 5"},
		"Grok Code Fast 1":       {"Code Fast 1"},
		"Mistral Medium 3.5":     {"Medium 3.5"},
		"Gemini 3.1 Pro Preview": {"Gemini 3.1 Pro"},
		"Claude Opus 6 Preview":  {"Opus 6 Preview", "Claude Opus 6", "Opus 6"},
		"Gemini 3 Pro":           nil, // "3 Pro" names nothing
		"Grok 4.3":               nil,
		"GPT-5.5":                nil,
		"GPT-5.5 Pro":            nil,
		"Command A":              nil, // no version: "A" would name too much
		"Sonar Pro Search":       nil,
		"DeepSeek V4 Pro":        nil,
		"Mistral Large":          nil,
		"":                       nil,
	} {
		if got := peopleNames(name); !slices.Equal(got, want) {
			t.Errorf("peopleNames(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestFlagshipsByTheirNames: every current flagship, found by rule as
// OpenRouter lists it, is answered for by the names people type, at its
// maker's service; a people's name two models share names neither.
func TestFlagshipsByTheirNames(t *testing.T) {
	t.Parallel()
	e, v, _ := newTestEngine(t)
	view := withLifecycle(v)
	doc := func(id, name, service string) api.ModelDoc {
		author, _, _ := strings.Cut(id, "/")
		return api.ModelDoc{ID: id, Name: name, Author: author, Service: service, Status: api.Operational,
			Providers: []api.ModelProvider{gatewayEntry(service, "", pct(100))}}
	}
	view.watched = append(slices.Clone(view.watched),
		doc("openai/gpt-5.5", "GPT-5.5", "openai"),
		doc("google/gemini-3.1-pro-preview", "Gemini 3.1 Pro Preview", "google-gemini"),
		doc("x-ai/grok-4.3", "Grok 4.3", "xai"),
		doc("x-ai/grok-code-fast-2", "Grok Code Fast 2", "xai"),
		doc("deepseek/deepseek-v4-pro", "DeepSeek V4 Pro", "deepseek"),
		doc("mistralai/mistral-medium-3.5", "Mistral Medium 3.5", "mistral"),
		doc("anthropic/claude-sonnet-4.8", "Claude Sonnet 4.8", "anthropic"),
		doc("anthropic/claude-haiku-4.8", "Claude Haiku 4.8", "anthropic"),
		// Two models shortened to "Flash 9": "flash 9" is no one's.
		doc("example/alpha-flash-9", "Alpha Flash 9", "openai"),
		doc("example/beta-flash-9", "Beta Flash 9", "openai"),
	)
	// The same answers from a view that keeps its models' names indexed
	// (a loaded snapshot) as from one the engine indexes per check.
	asked := 0
	named := namedView{view, IndexModelNames(view.watched, view.retirements), &asked}
	for q, want := range map[string]string{
		"opus 4.7":                  "anthropic/claude-opus-4.7",
		"Opus 4.8":                  "anthropic/claude-opus-4.8",
		"claude opus 4.8":           "anthropic/claude-opus-4.8",
		"claude-opus-4-8":           "anthropic/claude-opus-4.8",
		"sonnet 4.8":                "anthropic/claude-sonnet-4.8",
		"haiku-4.8":                 "anthropic/claude-haiku-4.8",
		"gpt-5.5":                   "openai/gpt-5.5",
		"GPT 5.5":                   "openai/gpt-5.5",
		"gemini 3.1 pro":            "google/gemini-3.1-pro-preview",
		"gemini-3.1-pro-preview":    "google/gemini-3.1-pro-preview",
		"grok 4.3":                  "x-ai/grok-4.3",
		"code fast 2":               "x-ai/grok-code-fast-2",
		"deepseek v4 pro":           "deepseek/deepseek-v4-pro",
		"mistral medium 3.5":        "mistralai/mistral-medium-3.5",
		"medium 3.5":                "mistralai/mistral-medium-3.5",
		"opus 4.5":                  "anthropic/claude-opus-4.5", // pinned, by its alias
		"anthropic/claude-opus-4.7": "anthropic/claude-opus-4.7",
		"flash 9":                   "",
	} {
		for _, v := range []View{view, named} {
			d, err := e.Check(v, Request{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case want == "" && d.Tracked:
				t.Errorf("%q (%T): answered %q, want untracked: two models share the name", q, v, d.Verdict.Headline)
			case want != "" && (!d.Tracked || d.Model == nil || d.Model.ID != want):
				t.Errorf("%q (%T): tracked %v, model %+v (%q); want %s", q, v, d.Tracked, d.Model, d.Verdict.Headline, want)
			}
		}
	}
	if asked == 0 {
		t.Error("the engine never read the view's index of model names")
	}
	// At its maker's service.
	if d, _ := e.Check(view, Request{Query: "sonnet 4.8"}); d.Service == nil || d.Service.Slug != "anthropic" {
		t.Errorf("sonnet 4.8 checked at %+v, want anthropic", d.Service)
	}
}
