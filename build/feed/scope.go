package feed

// Scope: which part of a status page is the developer API a service stands
// for. Most pages mix the API with consumer apps, websites, billing and docs;
// a service's status is decided over its in-scope components only, and its
// incidents are the ones in scope (catalog.Scope documents the catalog
// fields; docs/api.md states the rules).

import (
	"slices"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// hasWord reports whether text contains word as a whole word, ignoring case:
// where the word begins or ends with a letter or digit, the text must not
// continue it with another ("API" is in "Claude API (api.anthropic.com)" but
// not in "RAPID").
func hasWord(text, word string) bool {
	_, found := wordAt(strings.ToLower(text), strings.ToLower(word), 0)
	return found
}

// wordAt finds the first whole-word occurrence of word in text at or after
// from; both are lower-cased.
func wordAt(text, word string, from int) (int, bool) {
	if word == "" {
		return 0, false
	}
	for i := from; i <= len(text)-len(word); {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return 0, false
		}
		start, end := i+j, i+j+len(word)
		before := start == 0 || !isWordByte(word[0]) || !isWordByte(text[start-1])
		after := end == len(text) || !isWordByte(word[len(word)-1]) || !isWordByte(text[end])
		if before && after {
			return start, true
		}
		i = start + 1
	}
	return 0, false
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c >= 0x80
}

// hasAnyWord reports whether text contains one of words as a whole word.
func hasAnyWord(text string, words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return hasWord(text, w) })
}

// blankWords lower-cases text and replaces every whole-word occurrence of
// words by spaces, so that what is left can be searched for other words.
// Longer phrases go first: "Codex API" before "Codex".
func blankWords(text string, words []string) string {
	out := []byte(strings.ToLower(text))
	words = slices.Clone(words)
	slices.SortStableFunc(words, func(a, b string) int { return len(b) - len(a) })
	for _, w := range words {
		w = strings.ToLower(w)
		for at, ok := wordAt(string(out), w, 0); ok; at, ok = wordAt(string(out), w, at+1) {
			copy(out[at:at+len(w)], strings.Repeat(" ", len(w)))
		}
	}
	return string(out)
}

// ref is a component as a document names it.
type ref struct {
	ID, Name string
	// GroupID and Group are the id and name of the component's group, where
	// the page has groups.
	GroupID, Group string
}

// scoper applies a service's scope to one document.
type scoper struct {
	scope catalog.Scope
	// byID is true when one of the scope's ids is on the page; its names
	// then place only a component called exactly that, never by a word of
	// its name, and no name that a component selected by id already has
	// (two OpenAI components are both called "Login": the id decides).
	byID bool
	// idNames are the lower-cased names of the components on the page that
	// the scope's ids select.
	idNames map[string]bool
	// attributed is true for formats whose incidents list the components they
	// affect; incident.io's never do.
	attributed bool
	// taken are the ids that the page's other scopes list: a component
	// another scope selects by id is that scope's, never this one's by a
	// name ("Codex in ChatGPT Desktop", listed by id in the app's scope,
	// is not the agent's by the word "Codex").
	taken map[string]bool
}

// newScoper prepares the scope for a document that names these components
// and whose incidents list theirs (attributed) or never do; others are the
// scopes of the page's other surfaces (pageScopes).
func newScoper(scope catalog.Scope, onPage []ref, attributed bool, others ...catalog.Scope) scoper {
	s := scoper{scope: scope, attributed: attributed}
	for _, o := range others {
		for _, id := range o.Components {
			if s.taken == nil {
				s.taken = map[string]bool{}
			}
			s.taken[id] = true
		}
	}
	for _, c := range onPage {
		if s.listed(c) {
			s.byID = true
			if s.idNames == nil {
				s.idNames = map[string]bool{}
			}
			s.idNames[strings.ToLower(strings.TrimSpace(c.Name))] = true
		}
	}
	return s
}

// pageScopes are the scopes that the page's other surfaces read it
// through: in the API's read, every surface's; in a surface's read
// (ReadSurfaces), the API's and the other surfaces'.
func pageScopes(svc catalog.Service) []catalog.Scope {
	out := make([]catalog.Scope, 0, len(svc.Surfaces))
	for _, sf := range svc.Surfaces {
		out = append(out, sf.Scope)
	}
	return out
}

// listed reports whether the scope lists the component's id or its group's.
func (s scoper) listed(c ref) bool {
	return slices.Contains(s.scope.Components, c.ID) || (c.GroupID != "" && slices.Contains(s.scope.Components, c.GroupID))
}

// takenByID reports whether another scope of the page lists the
// component's id or its group's.
func (s scoper) takenByID(c ref) bool {
	return s.taken[c.ID] || (c.GroupID != "" && s.taken[c.GroupID])
}

// component reports whether a component is in scope.
func (s scoper) component(c ref) bool {
	switch {
	case hasAnyWord(c.Name, s.scope.ExcludeComponents):
		return false
	case s.listed(c):
		return true
	case s.takenByID(c):
		// Another scope's by id: never this one's by a name, nor by
		// taking the whole page.
		return false
	case !s.scope.SelectsComponents():
		return true
	case s.byID:
		// A name listed exactly as the component is called places it too:
		// some pages list a rotating subset of their components, so a
		// component whose id was never seen is placed by its whole name
		// ("Sora"), never by a word of it ("Codex" is not "Codex in
		// ChatGPT Desktop").
		name := strings.ToLower(strings.TrimSpace(c.Name))
		return !s.idNames[name] && slices.ContainsFunc(s.scope.ComponentNames, func(n string) bool { return strings.EqualFold(name, n) })
	}
	return hasAnyWord(c.Name, s.scope.ComponentNames) || (c.Group != "" && hasAnyWord(c.Group, s.scope.ComponentNames))
}

// incident reports whether an incident is in scope, from its title and the
// components it lists (for a Statuspage incident that lists none, those its
// updates name: spListed):
//
//  1. a title with an excluded phrase is out, unless it also has an
//     incident keyword outside the excluded phrases ("ChatGPT and API
//     elevated errors" is in; "Codex API errors", with "Codex API" excluded,
//     is out);
//  2. an incident that lists components is in when one of them is in scope,
//     or when its title has an incident keyword;
//  3. one that lists none is in when its title has an incident keyword;
//     without keywords, it is in when the format never lists components
//     (incident.io: the title rules are all there is) or the scope does not
//     select components, and out on a page that does attribute incidents
//     (Cloudflare's page: an unattributed incident is someone else's).
func (s scoper) incident(title string, listed []ref) bool {
	sc := s.scope
	keyword := hasAnyWord(title, sc.IncidentKeywords)
	if hasAnyWord(title, sc.ExcludeIncidents) {
		if !hasAnyWord(blankWords(title, sc.ExcludeIncidents), sc.IncidentKeywords) {
			return false
		}
	}
	if len(listed) > 0 {
		return keyword || slices.ContainsFunc(listed, s.component)
	}
	if len(sc.IncidentKeywords) > 0 {
		return keyword
	}
	return !s.attributed || !sc.SelectsComponents()
}

// scopeComponents marks each component in or out of scope, and returns the
// status of the in-scope ones (see rollup). A page without components, or
// whose scope matches none of them, is an error: it proves nothing about
// the API, and must never read as operational.
func scopeComponents(svc catalog.Service, s scoper, comps []api.Component, refs []ref) (api.Status, error) {
	if len(comps) == 0 {
		return api.Unknown, failure(api.FailureEmpty, "the page lists no components")
	}
	var in []api.Status
	for i := range comps {
		comps[i].InScope = s.component(refs[i])
		if comps[i].InScope {
			in = append(in, comps[i].Status)
		}
	}
	if len(in) == 0 {
		return api.Unknown, failure(api.FailureScope,
			"none of the page's %d components is in the scope of %s: the page changed, or the scope needs updating", len(comps), svc.Name)
	}
	st := rollup(in)
	if st == api.Unknown {
		return api.Unknown, failure(api.FailureSchema, "no component in scope has a status we know")
	}
	return st, nil
}

// The rollup thresholds (docs/api.md, "Decisions on the spec's gaps").
const (
	// manyComponents is the size from which a page is one of many parallel
	// monitors (one per model, per region), where a small share affected is
	// a degradation of the service, not an outage of it.
	manyComponents = 10
	// smallShare is that share: fewer than one in ten.
	smallShare = 10
)

// rollup is the status of a service from the statuses of its in-scope
// components:
//
//   - none affected (degraded or worse): maintenance when at least half are
//     under maintenance, else operational;
//   - of 10 or more components, fewer than one in ten affected: degraded
//     (one of 28 per-model monitors down is not an outage of the service);
//   - the worst status, except that a major outage of at most half the
//     components is a partial outage of the service.
//
// Components whose status is unknown do not count.
func rollup(statuses []api.Status) api.Status {
	var n, affected, major, maintenance int
	worst := api.Operational
	for _, st := range statuses {
		switch st {
		case api.Unknown, "":
			continue
		case api.Maintenance:
			maintenance++
		case api.Degraded, api.PartialOutage, api.MajorOutage:
			affected++
			worst = api.Worse(worst, st)
			if st == api.MajorOutage {
				major++
			}
		}
		n++
	}
	switch {
	case n == 0:
		return api.Unknown
	case affected == 0 && maintenance*2 >= n:
		return api.Maintenance
	case affected == 0:
		return api.Operational
	case n >= manyComponents && affected*smallShare < n:
		return api.Degraded
	case worst == api.MajorOutage && major*2 <= n:
		return api.PartialOutage
	}
	return worst
}
