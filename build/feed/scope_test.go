package feed

import (
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

func TestHasWord(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text, word string
		want       bool
	}{
		{"Claude API (api.anthropic.com)", "API", true},
		{"RAPID deployment", "API", false},
		{"APIs group", "API", false},
		{"gpt-4o-mini high error rate", "GPT", true},
		{"ChatGPT conversations", "GPT", false},
		{"[Global (api.x.ai)] Models unavailable", "api.x.ai", true},
		{"[US (us.api.x.ai)] Errors", "api.x.ai", true},
		{"[API Console] Login errors", "api.x.ai", false},
		{"Spaces Proxy", "Spaces", true},
		{"", "API", false},
		{"API", "", false},
	} {
		if got := hasWord(tt.text, tt.word); got != tt.want {
			t.Errorf("hasWord(%q, %q) = %v, want %v", tt.text, tt.word, got, tt.want)
		}
	}
}

func TestScopeIncident(t *testing.T) {
	t.Parallel()
	openai := catalog.Scope{
		Components:       []string{"apis-group"},
		IncidentKeywords: []string{"API", "GPT"},
		ExcludeIncidents: []string{"ChatGPT", "Codex", "Codex API"},
	}
	replicate := catalog.Scope{Components: []string{"fvgfcmy66tdr"}, ComponentNames: []string{"Replicate"}}
	cohere := catalog.Scope{ExcludeComponents: []string{"Playground"}, ExcludeIncidents: []string{"Dashboard"}}
	onPage := []ref{{ID: "chat", Name: "Chat Completions", GroupID: "apis-group"}, {ID: "fvgfcmy66tdr", Name: "Replicate"}}
	for _, tt := range []struct {
		name       string
		scope      catalog.Scope
		attributed bool
		title      string
		listed     []ref
		want       bool
	}{
		{"keyword in the title", openai, false, "Elevated errors on the API", nil, true},
		{"model name as keyword", openai, false, "gpt-4o-mini high error rate", nil, true},
		{"excluded product", openai, false, "ChatGPT conversations failing", nil, false},
		{"excluded product and the API", openai, false, "ChatGPT and API elevated errors", nil, true},
		{"a keyword inside an excluded phrase does not count", openai, false, "Elevated errors on Codex API", nil, false},
		{"no keyword, nothing listed", openai, false, "Workspace agent issues", nil, false},
		{"a listed in-scope component (by group)", openai, true, "Elevated latency", []ref{{ID: "chat", GroupID: "apis-group"}}, true},
		{"listed components all out of scope", replicate, true, "Workers degraded", []ref{{ID: "workers", Name: "Workers"}}, false},
		{"the title names the service, the components do not", replicate, true, "Issues for Replicate customers on Workers", []ref{{ID: "workers", Name: "Workers"}}, false},
		{"unattributed incident on a page that attributes", replicate, true, "Replicate slow", nil, false},
		{"incident.io: no components, title rules only", cohere, false, "Elevated embed latency", nil, true},
		{"incident.io: excluded title", cohere, false, "Dashboard Login Service Disruption", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := newScoper(tt.scope, onPage, tt.attributed).incident(tt.title, tt.listed); got != tt.want {
				t.Errorf("incident(%q) = %v, want %v", tt.title, got, tt.want)
			}
		})
	}
}

// Ids win over names once one of them is on the page: OpenAI has two
// components called "Login".
func TestScopeComponentsByIDThenName(t *testing.T) {
	t.Parallel()
	scope := catalog.Scope{Components: []string{"api-login"}, ComponentNames: []string{"Login"}, ExcludeComponents: []string{"Docs"}}
	page := []ref{{ID: "api-login", Name: "Login"}, {ID: "chatgpt-login", Name: "Login"}, {ID: "docs", Name: "Docs"}}
	s := newScoper(scope, page, true)
	if !s.component(page[0]) || s.component(page[1]) || s.component(page[2]) {
		t.Error("by id: only the API's Login is in scope")
	}
	// A component whose id was never seen (a page that lists a rotating
	// subset) is placed by its whole name, unless one selected by id has
	// that name.
	scope.ComponentNames = append(scope.ComponentNames, "Sora")
	unseen := append(page, ref{ID: "sora", Name: "Sora"}, ref{ID: "sora-api", Name: "Sora API"})
	s = newScoper(scope, unseen, true)
	if !s.component(unseen[3]) || s.component(unseen[4]) || s.component(unseen[1]) {
		t.Error("by id: Sora is in by its whole name, Sora API and ChatGPT's Login are not")
	}
	rotated := []ref{{ID: "new-login", Name: "Login"}, {ID: "docs", Name: "Docs"}}
	s = newScoper(scope, rotated, true)
	if !s.component(rotated[0]) || s.component(rotated[1]) {
		t.Error("ids rotated away: the names decide, and Docs stays excluded")
	}
}

// A component another scope of the page selects by id is never taken by a
// name, by a word of it, or by a scope of the whole page: OpenAI's agent,
// none of whose ids is on this read, does not take "Codex in ChatGPT
// Desktop", which the app lists by id.
func TestScopeComponentTakenByAnotherScope(t *testing.T) {
	t.Parallel()
	app := catalog.Scope{Components: []string{"desktop"}, ComponentNames: []string{"ChatGPT"}}
	agent := catalog.Scope{Components: []string{"codex-api"}, ComponentNames: []string{"Codex"}}
	page := []ref{{ID: "desktop", Name: "Codex in ChatGPT Desktop"}, {ID: "cli", Name: "Codex CLI"}, {ID: "group", Name: "Codex"}}
	for _, tt := range []struct {
		name   string
		scope  catalog.Scope
		others []catalog.Scope
		want   []bool
	}{
		{"the agent by word, alone on the page", agent, nil, []bool{true, true, true}},
		{"the agent by word beside the app", agent, []catalog.Scope{app}, []bool{false, true, true}},
		{"the app by id beside the agent", app, []catalog.Scope{agent}, []bool{true, false, false}},
		{"the whole page beside the app", catalog.Scope{ExcludeComponents: []string{"CLI"}}, []catalog.Scope{app}, []bool{false, false, true}},
		{"a group the other scope lists", agent, []catalog.Scope{{Components: []string{"g"}}}, []bool{true, true, true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newScoper(tt.scope, page, true, tt.others...)
			for i, c := range page {
				if got := s.component(c); got != tt.want[i] {
					t.Errorf("%q: in scope %v, want %v", c.Name, got, tt.want[i])
				}
			}
		})
	}
	member := ref{ID: "m", Name: "Codex member", GroupID: "g"}
	if newScoper(agent, append(page, member), true, catalog.Scope{Components: []string{"g"}}).component(member) {
		t.Error("a member of a group another scope lists by id is that scope's")
	}
}

func TestRollup(t *testing.T) {
	t.Parallel()
	const (
		op    = api.Operational
		deg   = api.Degraded
		part  = api.PartialOutage
		major = api.MajorOutage
		maint = api.Maintenance
		unk   = api.Unknown
	)
	many := func(n int, bad ...api.Status) []api.Status {
		out := append([]api.Status{}, bad...)
		for len(out) < n {
			out = append(out, op)
		}
		return out
	}
	for _, tt := range []struct {
		name     string
		statuses []api.Status
		want     api.Status
	}{
		{"all operational", many(5), op},
		{"the one component down", []api.Status{major}, major},
		{"one of two down", []api.Status{major, op}, part},
		{"two of three down", []api.Status{major, major, op}, major},
		{"one of 28 monitors down: degraded", many(28, major), deg},
		{"three of 28 affected: the worst, capped at partial", many(28, major, deg, deg), part},
		{"one of four degraded", many(4, deg), deg},
		{"half under maintenance", []api.Status{maint, op}, maint},
		{"one of four under maintenance", many(4, maint), op},
		{"unknown components do not count", []api.Status{unk, unk, major}, major},
		{"nothing known", []api.Status{unk}, unk},
	} {
		if got := rollup(tt.statuses); got != tt.want {
			t.Errorf("%s: rollup = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestScopeCursorReviewAgents: Cursor's Review Agents (Bugbot) is part of
// the agent Cursor's scope is. No capture of Cursor's page has been found
// (testdata/real/README.md), so the page is its catalog ids beside a
// component whose id the catalog does not know, as its own name says it.
func TestScopeCursorReviewAgents(t *testing.T) {
	t.Parallel()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := c.Lookup("cursor")
	page := []ref{{ID: "rflc60xp5jp2", Name: "IDE"}, {ID: "review", Name: "Review Agents"}, {ID: "web", Name: "Website"}}
	s := newScoper(svc.Feed.Scope, page, true)
	if !s.component(page[0]) || !s.component(page[1]) || s.component(page[2]) {
		t.Error("IDE and Review Agents are Cursor's, the website is not")
	}
	if !s.incident("Bugbot not commenting on pull requests", nil) {
		t.Error("a Bugbot incident is Cursor's")
	}
}
