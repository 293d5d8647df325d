package check

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// A check can be about a model the catalog does not pin: one found in a
// gateway's list and watched by rule, or one on the retirement calendar.
// A retired model's check is the caller's to fix, never an outage: the
// request names a model that is gone (or, with a 404 or a model-not-found
// code, that is announced to go), and the answer names newer models of
// the same maker that are up.

// LifecycleView is what the engine reads of a snapshot's model lifecycle.
// A View that is not one knows only the catalog's pinned models, and no
// retirement.
type LifecycleView interface {
	// WatchedModels are models.json's models, in its order.
	WatchedModels() []api.ModelDoc
	// Retirement is the model's entry of the retirement calendar; false
	// when it has none.
	Retirement(id string) (api.ModelRetirement, bool)
	// Retirements are the retirement calendar.
	Retirements() []api.ModelRetirement
}

// maxNewerModels bounds the newer models a retired model's answer names.
const maxNewerModels = 3

// matchModel returns the model q names: a pinned model (by id, model part,
// name or alias), else a watched or retired model of the view (by id,
// model part or name), else the one watched or retired model whose
// people's name it is (peopleNames: "opus 5.5" for Claude Opus 5.5). A
// people's name that two models share names neither.
func (e *Engine) matchModel(view View, q string) (catalog.Model, bool) {
	key := nameKey(q)
	if md, ok := e.models[key]; ok {
		return md, true
	}
	lv, ok := view.(LifecycleView)
	if !ok || key == "" {
		return catalog.Model{}, false
	}
	var found []catalog.Model
	for _, d := range lv.WatchedModels() {
		md := catalog.Model{ID: d.ID, Name: d.Name, Author: d.Author, Service: d.Service}
		if namesModel(key, d.ID, d.Name) {
			return md, true
		}
		found = append(found, md)
	}
	for _, r := range lv.Retirements() {
		author, _, _ := strings.Cut(r.ID, "/")
		md := catalog.Model{ID: r.ID, Name: r.Name, Author: author, Service: r.Service}
		if namesModel(key, r.ID, r.Name) {
			return md, true
		}
		found = append(found, md)
	}
	var named *catalog.Model
	for i, md := range found {
		if !slices.ContainsFunc(peopleNames(md.Name), func(n string) bool { return nameKey(n) == key }) {
			continue
		}
		if named != nil && named.ID != md.ID {
			return catalog.Model{}, false // two models: the name is no one's
		}
		named = &found[i]
	}
	if named == nil {
		return catalog.Model{}, false
	}
	return *named, true
}

// namesModel reports whether key (a nameKey) names the model of that id
// and name.
func namesModel(key, id, name string) bool {
	_, rest, _ := strings.Cut(id, "/")
	return key == nameKey(id) || key == nameKey(rest) || key == nameKey(name)
}

// peopleNames are the names people use for a model found by rule, beside
// its id and name (the gateway's, its maker's prefix already cut): the
// name without its brand word ("Claude Opus 5.5" → "Opus 5.5"), without
// a last word "Preview" ("Gemini 3 Pro Preview" → "Gemini 3 Pro"), and
// without both. The first word is a brand word only when a word follows
// it that begins with a letter and a version follows that: "Grok 4" and
// "Gemini 3 Pro" keep theirs ("4" or "3 Pro" names nothing), and so do
// "Command A" and "Sonar Pro" (no version: "A" and "Pro" would name too
// much). Pinned models carry their own aliases instead.
func peopleNames(name string) []string {
	words := strings.Fields(name)
	bases := [][]string{words}
	if n := len(words); n > 1 && strings.EqualFold(strings.Trim(words[n-1], "()"), "preview") {
		bases = append(bases, words[:n-1])
	}
	var out []string
	for i, w := range bases {
		if i > 0 {
			out = append(out, strings.Join(w, " "))
		}
		if len(w) >= 3 && unicode.IsLetter([]rune(w[1])[0]) && slices.ContainsFunc(w[2:], hasDigit) {
			out = append(out, strings.Join(w[1:], " "))
		}
	}
	return out
}

// hasDigit reports whether s has a digit: a version ("5.5", "V4", "2512").
func hasDigit(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

// retirementAt is the model's entry of the retirement calendar as it
// stands at now: an announced date that has come since the snapshot was
// built reads retired. ok is false for a model not on the calendar.
func retirementAt(view View, id string, now time.Time) (r api.ModelRetirement, ok bool) {
	lv, isLV := view.(LifecycleView)
	if !isLV {
		return api.ModelRetirement{}, false
	}
	if r, ok = lv.Retirement(id); ok && r.RetiredBy(now) {
		r.State = api.RetirementRetired
	}
	return r, ok
}

// applyRetirement turns a check of a retired model, or of one announced to
// retire when the caller got a 404 or a model-not-found code, into advice
// to fix the client, naming newer models of the maker that are up. A
// retired model's verdict says so in the past tense, at its own level
// (api.LevelRetired): a model nobody can call is not up, whatever its
// providers last said. For an announced model without such an error the
// verdict stands, and its detail says the date.
func applyRetirement(view View, req Request, class errorClass, md catalog.Model, doc *api.CheckDoc, now time.Time) {
	r, ok := retirementAt(view, md.ID, now)
	if !ok {
		return
	}
	lv := view.(LifecycleView)
	if doc.Model != nil {
		doc.Model.Retirement = &r
	}
	v := &doc.Verdict
	notFound := req.Error == "404" || class == errModel || strings.EqualFold(req.Code, "model_not_found")
	newer := newerModelsUp(lv, md, now)
	switch {
	case r.State == api.RetirementRetired:
		v.Headline = fmt.Sprintf("%s was retired on %s", md.Name, r.Date)
		v.Level, v.Emoji = api.LevelRetired, api.EmojiRetired
	case notFound:
		v.Headline = fmt.Sprintf("%s is to be retired on %s", md.Name, r.Date)
	default:
		v.Detail = joinSentences(v.Detail, fmt.Sprintf("%s is to be retired on %s (%s).", md.Name, r.Date, r.Reason))
		return
	}
	v.Action, v.Blame, v.Confidence, v.RetryAfterSeconds = api.ActionFixClient, api.BlameClient, api.ConfidenceHigh, nil
	v.Reason = fmt.Sprintf("%s: %s (%s). Requests naming it fail whatever the service's status: change the model.", md.Name, r.Reason, r.Date)
	if len(newer) > 0 {
		v.Reason += " Newer models of the same maker that are up: " + strings.Join(newer, ", ") + "."
	}
}

// newerModelsUp names the watched models of md's maker, added to the list
// after md (or any, when its date is unknown), up by their sources and not
// retired, newest first.
func newerModelsUp(lv LifecycleView, md catalog.Model, now time.Time) []string {
	docs := lv.WatchedModels()
	var since *api.ModelDoc
	if i := slices.IndexFunc(docs, func(d api.ModelDoc) bool { return d.ID == md.ID }); i >= 0 {
		since = &docs[i]
	}
	var up []api.ModelDoc
	for _, d := range docs {
		if d.Author != md.Author || d.ID == md.ID || !d.Status.Usable() {
			continue
		}
		if r, ok := lv.Retirement(d.ID); ok && r.RetiredBy(now) {
			continue
		}
		if since != nil && since.Created != nil && (d.Created == nil || !d.Created.After(*since.Created)) {
			continue
		}
		up = append(up, d)
	}
	slices.SortStableFunc(up, func(a, b api.ModelDoc) int {
		switch {
		case a.Created == nil && b.Created == nil:
			return 0
		case a.Created == nil:
			return 1
		case b.Created == nil:
			return -1
		}
		return b.Created.Compare(*a.Created)
	})
	names := make([]string, 0, maxNewerModels)
	for _, d := range up[:min(len(up), maxNewerModels)] {
		names = append(names, d.Name+" ("+d.ID+")")
	}
	return names
}
