package build

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/snapshot"
)

// realMakerPage is a real capture of a maker's deprecation page
// (build/feed/testdata/real/README.md).
func realMakerPage(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("feed", "testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

const (
	realOpenAIPage    = "deprecations-openai-20260602.md"
	realAnthropicPage = "deprecations-anthropic-20260805.md"
	realGooglePage    = "deprecations-google-20260813.html"
)

// withExpiration is the real captured list with one entry's
// expiration_date set (nil: none), nothing else changed.
func withExpiration(t *testing.T, id string, date any) string {
	t.Helper()
	return withExpirationIn(t, realModelList(t), id, date)
}

// withExpirationIn is list with one entry's expiration_date set, nothing
// else changed.
func withExpirationIn(t *testing.T, list, id string, date any) string {
	t.Helper()
	var doc struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(list), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range doc.Data {
		if e["id"] == id {
			e["expiration_date"], found = date, true
		}
	}
	if !found {
		t.Fatalf("no %s in the list", id)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// calendarOf is the retirement calendar of the last build, by id.
func (h *harness) calendarOf() map[string]api.ModelRetirement {
	h.t.Helper()
	var doc api.RetirementsDoc
	h.read(snapshot.FileModelRetirements, &doc)
	out := map[string]api.ModelRetirement{}
	for _, r := range doc.Retirements {
		out[r.ID] = r
	}
	return out
}

// modelSource is a model source's health in sources.json.
func (h *harness) modelSource(id string) api.ModelSourceHealth {
	h.t.Helper()
	var doc api.SourcesDoc
	h.read(snapshot.FileSources, &doc)
	for _, s := range doc.Models {
		if s.ID == id {
			return s
		}
	}
	h.t.Fatalf("no model source %q in %s", id, snapshot.FileSources)
	return api.ModelSourceHealth{}
}

// said is what an entry's sources say, in order: "source date state".
func said(r api.ModelRetirement) []string {
	var out []string
	for _, s := range r.Sources {
		out = append(out, s.Source+" "+s.Date+" "+s.State)
	}
	return out
}

// TestBuildMakerPages reads the real OpenAI and Anthropic deprecation
// pages beside the real OpenRouter list: each date on the calendar says
// its sources, the maker's page wins a disagreement and the entry and
// /sources say so; the pages are read once a day, conditionally; a broken
// or cut page fails only its own source, and its last good read stands.
func TestBuildMakerPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// OpenRouter's list with one expiration date that OpenAI's page
	// contradicts (the capture has none for an OpenAI model).
	h.world.SetModelList(withExpiration(t, "openai/o4-mini", "2026-12-01"))
	h.world.SetMakerPage("openai-deprecations", realMakerPage(t, realOpenAIPage))
	h.world.SetMakerPage("anthropic-deprecations", realMakerPage(t, realAnthropicPage))
	h.world.SetMakerPage("google-deprecations", realMakerPage(t, realGooglePage))
	h.cycle()

	cal := h.calendarOf()
	for _, tc := range []struct {
		id, date, state, source string
		sources                 []string
		disagree                bool
	}{
		// Anthropic's dated snapshots, matched through their undated
		// aliases to OpenRouter's spelling (claude-sonnet-4-20250514 →
		// claude-sonnet-4 → anthropic/claude-sonnet-4).
		{id: "anthropic/claude-sonnet-4", date: "2026-06-15", state: api.RetirementRetired, source: "anthropic-deprecations",
			sources: []string{"anthropic-deprecations 2026-06-15 retired"}},
		{id: "anthropic/claude-opus-4.1", date: "2026-08-05", state: api.RetirementRetired, source: "anthropic-deprecations",
			sources: []string{"anthropic-deprecations 2026-08-05 retired"}},
		// OpenAI's page (o4-mini, an alias in the cell of
		// o4-mini-2025-04-16) against OpenRouter's list: the maker's day
		// is taken, both are said.
		{id: "openai/o4-mini", date: "2026-10-23", state: api.RetirementRetired, source: "openai-deprecations",
			sources: []string{"openai-deprecations 2026-10-23 retired", "openrouter-models 2026-12-01 announced"}, disagree: true},
		// Google's page and OpenRouter's list give the same day: the
		// maker's page is the source, both are said, nothing disagrees.
		{id: "google/gemini-2.0-flash-001", date: "2026-06-01", state: api.RetirementRetired, source: "google-deprecations",
			sources: []string{"google-deprecations 2026-06-01 retired", "openrouter-models 2026-06-01 retired"}},
		// Google's page alone dates it (the list has no expiration_date).
		{id: "google/gemini-3.1-flash-lite", date: "2027-05-07", state: api.RetirementAnnounced, source: "google-deprecations",
			sources: []string{"google-deprecations 2027-05-07 announced"}},
	} {
		r, ok := cal[tc.id]
		switch {
		case !ok:
			t.Errorf("%s: not on the calendar", tc.id)
			continue
		case r.Date != tc.date || r.State != tc.state || r.Source != tc.source:
			t.Errorf("%s: %s %s from %s, want %s %s from %s", tc.id, r.Date, r.State, r.Source, tc.date, tc.state, tc.source)
		case !slices.Equal(said(r), tc.sources):
			t.Errorf("%s: sources %q, want %q", tc.id, said(r), tc.sources)
		case (r.Disagreement != "") != tc.disagree:
			t.Errorf("%s: disagreement %q, want one: %v", tc.id, r.Disagreement, tc.disagree)
		}
		for _, s := range r.Sources {
			if s.Name == "" || s.Reason == "" || s.URL == "" {
				t.Errorf("%s: a source that does not say who, why or where: %+v", tc.id, s)
			}
		}
	}
	o4 := cal["openai/o4-mini"]
	for _, want := range []string{"OpenAI's deprecations page gives 2026-10-23", "OpenRouter's model list gives 2026-12-01", "the maker's own word"} {
		if !strings.Contains(o4.Disagreement, want) {
			t.Errorf("the disagreement %q does not say %q", o4.Disagreement, want)
		}
	}
	// Models the maker's page retires that aistatus does not know are not
	// put on the calendar (dall-e-3, gpt-3.5-turbo-instruct, Claude 1).
	for id := range cal {
		if strings.Contains(id, "dall-e") || strings.Contains(id, "claude-instant") || strings.Contains(id, "davinci") {
			t.Errorf("%s is on the calendar: no list or watch knows it", id)
		}
	}

	// /sources: each page's health, the disagreement named on OpenAI's.
	openai, anthropic := h.modelSource("openai-deprecations"), h.modelSource("anthropic-deprecations")
	if openai.State != api.FeedOK || openai.Kind != api.ModelSourceLifecycle || anthropic.State != api.FeedOK {
		t.Errorf("pages' health: %+v / %+v", openai, anthropic)
	}
	if len(openai.Disagreements) != 1 || !strings.HasPrefix(openai.Disagreements[0], "openai/o4-mini: The sources disagree") {
		t.Errorf("OpenAI page's disagreements %q, want o4-mini's", openai.Disagreements)
	}
	if len(anthropic.Disagreements) != 0 {
		t.Errorf("Anthropic page's disagreements %q, want none", anthropic.Disagreements)
	}
	// The calendar file says the sources and the disagreement too.
	ics, err := os.ReadFile(filepath.Join(h.out, snapshot.FileModelRetirementsCalendar))
	if err != nil {
		t.Fatal(err)
	}
	unfolded := strings.ReplaceAll(string(ics), "\r\n ", "")
	for _, want := range []string{
		`Sources: OpenAI's deprecations page: 2026-10-23\; OpenRouter's model list: 2026-12-01.`,
		`The sources disagree: OpenAI's deprecations page gives 2026-10-23 (retired)\, OpenRouter's model list gives 2026-12-01 (announced)`,
		`Sources: Anthropic's model deprecations page: 2026-06-15.`,
	} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("the calendar file does not say %q", want)
		}
	}
	// The change log dates each retirement by the maker's word.
	for _, want := range []string{"model.retired openai/o4-mini 2026-10-23 openai", "model.retired anthropic/claude-sonnet-4 2026-06-15 anthropic",
		"model.retired anthropic/claude-opus-4.1 2026-08-05 anthropic"} {
		if !slices.Contains(h.lifecycleChanges(), want) {
			t.Errorf("change log lacks %q: %q", want, h.lifecycleChanges())
		}
	}

	// Once a day: not asked again an hour later; asked again (a 304)
	// after a day, and what it said stands.
	h.clock.Advance(time.Hour)
	h.cycle()
	if n := h.world.MakerPageRequests("openai-deprecations"); n != 1 {
		t.Errorf("OpenAI's page asked %d times within a day, want once", n)
	}
	h.clock.Advance(history.MakerPageEvery)
	h.cycle()
	if n := h.world.MakerPageRequests("openai-deprecations"); n != 2 {
		t.Errorf("OpenAI's page asked %d times after a day, want twice", n)
	}
	if r := h.calendarOf()["openai/o4-mini"]; r.Source != "openai-deprecations" || h.modelSource("openai-deprecations").State != api.FeedOK {
		t.Errorf("after an unchanged read: %+v", r)
	}

	// The list drops its date: the maker's page alone dates the model,
	// and nothing disagrees.
	h.world.SetModelList(realModelList(t))
	h.clock.Advance(time.Hour)
	h.cycle()
	if r := h.calendarOf()["openai/o4-mini"]; !slices.Equal(said(r), []string{"openai-deprecations 2026-10-23 retired"}) || r.Disagreement != "" {
		t.Errorf("the list's date withdrawn: %q, %q", said(r), r.Disagreement)
	}
	if d := h.modelSource("openai-deprecations").Disagreements; len(d) != 0 {
		t.Errorf("disagreements %q after the list withdrew its date", d)
	}

	// A bot wall, then a page cut to its first sections: each fails only
	// its source (a challenge, then a suspect read), the build goes on,
	// and the last good read stands.
	before := h.calendarOf()
	openaiPage := realMakerPage(t, realOpenAIPage)
	for _, tc := range []struct {
		name, body string
		failure    api.FailureKind
	}{
		{"a bot wall", "<!DOCTYPE html><title>Just a moment...</title>", api.FailureChallenge},
		{"a cut page", openaiPage[:strings.Index(openaiPage, "### 2026-03-24")], api.FailureSuspect},
	} {
		h.world.SetMakerPage("openai-deprecations", tc.body)
		h.clock.Advance(history.MakerPageEvery)
		h.cycle()
		if s := h.modelSource("openai-deprecations"); s.State != api.FeedError || s.Failure != tc.failure {
			t.Errorf("%s: source %s (%s), want an error (%s)", tc.name, s.State, s.Failure, tc.failure)
		}
		if got := h.calendarOf(); !slices.Equal(said(got["openai/o4-mini"]), said(before["openai/o4-mini"])) {
			t.Errorf("%s: o4-mini says %q, want the last good read's %q", tc.name, said(got["openai/o4-mini"]), said(before["openai/o4-mini"]))
		}
		if s := h.modelSource("anthropic-deprecations"); s.State != api.FeedOK {
			t.Errorf("%s: Anthropic's page is %s, want ok", tc.name, s.State)
		}
	}
}

// TestMakerPagesOnlyWhatTheyName: a page's word is withdrawn from a model
// it no longer names, and the model leaves the calendar when no source
// dates it any more.
func TestMakerPagesOnlyWhatTheyName(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.SetModelList(realModelList(t))
	h.world.SetMakerPage("anthropic-deprecations", realMakerPage(t, realAnthropicPage))
	h.cycle()
	if _, ok := h.calendarOf()["anthropic/claude-sonnet-4"]; !ok {
		t.Fatal("Claude Sonnet 4 is not on the calendar")
	}
	// The same page without Claude Sonnet 4's rows: a plausible read (it
	// lacks 2 of 28 models), which no longer dates the model.
	page := realMakerPage(t, realAnthropicPage)
	var kept []string
	for _, line := range strings.SplitAfter(page, "\n") {
		if !strings.Contains(line, "claude-sonnet-4-20250514") {
			kept = append(kept, line)
		}
	}
	h.world.SetMakerPage("anthropic-deprecations", strings.Join(kept, ""))
	h.clock.Advance(history.MakerPageEvery)
	h.cycle()
	cal := h.calendarOf()
	if r, ok := cal["anthropic/claude-sonnet-4"]; ok {
		t.Errorf("Claude Sonnet 4 stays on the calendar with %q: no source dates it", said(r))
	}
	if _, ok := cal["anthropic/claude-opus-4.1"]; !ok {
		t.Error("Claude Opus 4.1 left the calendar: the page still dates it")
	}
}

// TestOpenAIPageDatesGPT4o is issue 45's own case: OpenAI retires GPT-4o,
// GPT-4o mini, GPT-4.1 and GPT-4.1 mini from its API on 2027-01-14, and
// OpenRouter's list gives none of them an expiration_date, so a calendar
// fed by the list alone never says it. No public copy of OpenAI's page
// with that section could be tied to a commit: the page read here is the
// real capture with one section added at the top of "Upcoming
// deprecations", written in the capture's own shape (the testdata README
// says so). The calendar, the change log and each model's document say
// 2027-01-14 from OpenAI's page.
func TestOpenAIPageDatesGPT4o(t *testing.T) {
	t.Parallel()
	page := realMakerPage(t, realOpenAIPage)
	const top = "with the most recent announcements at the top.\n"
	at := strings.Index(page, top)
	if at < 0 {
		t.Fatal("the capture's shape changed: no upcoming deprecations")
	}
	at += len(top)
	section := "\n### 2026-11-14: GPT-4o and GPT-4.1 model families\n\n" +
		"On November 14th, 2026, we notified developers using the GPT-4o and GPT-4.1 model families of their deprecation and removal from the API on January 14, 2027.\n\n" +
		"| Shutdown date | Model / system | Recommended replacement |\n" +
		"| ------------- | -------------- | ----------------------- |\n" +
		"| Jan 14, 2027  | `gpt-4o`       | `gpt-5.5`               |\n" +
		"| Jan 14, 2027  | `gpt-4o-mini`  | `gpt-5.4-mini`          |\n" +
		"| Jan 14, 2027  | `gpt-4.1`      | `gpt-5.5`               |\n" +
		"| Jan 14, 2027  | `gpt-4.1-mini` | `gpt-5.4-mini`          |\n"
	h := newHarness(t)
	h.world.SetModelList(realModelList(t))
	h.world.SetMakerPage("openai-deprecations", page[:at]+section+page[at:])
	h.cycle()

	cal := h.calendarOf()
	for _, id := range []string{"openai/gpt-4o", "openai/gpt-4o-mini", "openai/gpt-4.1", "openai/gpt-4.1-mini"} {
		r, ok := cal[id]
		if !ok {
			t.Errorf("%s: not on the calendar", id)
			continue
		}
		if r.Date != "2027-01-14" || r.State != api.RetirementAnnounced || r.Source != "openai-deprecations" ||
			!slices.Equal(said(r), []string{"openai-deprecations 2027-01-14 announced"}) {
			t.Errorf("%s: %s %s from %s (%q), want 2027-01-14 announced from OpenAI's page alone", id, r.Date, r.State, r.Source, said(r))
		}
		if want := string(api.ChangeModelRetiring) + " " + id + " 2027-01-14 openai"; !slices.Contains(h.lifecycleChanges(), want) {
			t.Errorf("the change log lacks %q", want)
		}
	}
}

// TestMakerPageMisreadIsSuspect: Google's real page read again with every
// 2026 shutdown date moved to 2028 (a table misread, or rewritten
// wholesale) dates most of what the last good read named otherwise: the
// read is suspect, the calendar keeps the last good read's dates, and the
// page's source says why. Read the same for a day, it is the maker's word.
func TestMakerPageMisreadIsSuspect(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.SetModelList(realModelList(t))
	page := realMakerPage(t, realGooglePage)
	h.world.SetMakerPage("google-deprecations", page)
	h.cycle()
	const flash = "google/gemini-2.0-flash-001"
	if r := h.calendarOf()[flash]; r.Date != "2026-06-01" {
		t.Fatalf("%s dated %q by the real page, want 2026-06-01", flash, r.Date)
	}
	h.world.SetMakerPage("google-deprecations", strings.ReplaceAll(page, ", 2026", ", 2028"))
	h.clock.Advance(history.MakerPageEvery)
	h.cycle()
	if s := h.modelSource("google-deprecations"); s.State != api.FeedError || s.Failure != api.FailureSuspect || !strings.Contains(s.Error, "otherwise than the last good read") {
		t.Errorf("a page dating most models otherwise: source %+v, want suspect, saying why", s)
	}
	if r := h.calendarOf()[flash]; r.Date != "2026-06-01" {
		t.Errorf("%s dated %q after a suspect read, want the last good read's 2026-06-01", flash, r.Date)
	}
	h.clock.Advance(models.SuspectStands)
	h.cycle()
	if r := h.calendarOf()[flash]; r.Date != "2028-06-01" {
		t.Errorf("%s dated %q once the same page stood a day, want the page's 2028-06-01", flash, r.Date)
	}
}
