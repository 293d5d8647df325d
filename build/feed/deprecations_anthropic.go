package feed

import (
	"errors"
	"strings"

	"github.com/aistatus/aistatus/api"
)

// anthropicDeprecations reads Anthropic's model deprecations page as
// Markdown (platform.claude.com/docs/en/about-claude/model-deprecations.md):
// the "Model status" table (API model name, Current state, Deprecated,
// Tentative retirement date), whose retirement date is the announced one
// for a deprecated or retired model ("Not sooner than …" for an active one
// announces nothing), then the announcements' tables (Retirement date,
// Deprecated model, Recommended replacement) for the models the status
// table no longer lists. The status table, being the page's current word,
// wins over an announcement. A dated snapshot
// ("claude-opus-4-1-20250805") also retires its undated alias
// ("claude-opus-4-1"), which is how Anthropic's API and the gateways
// name the model.
type anthropicDeprecations struct{}

func (anthropicDeprecations) Accept() string { return markdownAccept }

func (anthropicDeprecations) ParseDeprecations(doc []byte) ([]Deprecation, error) {
	var set deprecationSet
	tables := 0
	add := func(cell, date string) error {
		for _, id := range modelCell(cell) {
			if err := set.add(Deprecation{Model: id, Date: date}); err != nil {
				return err
			}
			if alias, ok := undatedAlias(id); ok {
				if err := set.add(Deprecation{Model: alias, Date: date, Alias: true, Of: id}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	all := markdownTables(doc)
	// The status table first: it wins.
	for _, t := range all {
		name, state, retire := t.column("api model name"), t.column("current state"), t.column("tentative retirement date")
		if name < 0 || state < 0 || retire < 0 {
			continue
		}
		tables++
		for _, row := range t.rows {
			switch strings.ToLower(row[state]) {
			case "deprecated", "retired":
			default:
				continue // active or legacy: no retirement announced
			}
			if date, ok := pageDate(row[retire]); ok {
				if err := add(row[name], date); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, t := range all {
		date, model := t.column("retirement date"), t.column("deprecated model")
		if date < 0 || model < 0 {
			continue
		}
		tables++
		for _, row := range t.rows {
			if d, ok := pageDate(row[date]); ok {
				if err := add(row[model], d); err != nil {
					return nil, err
				}
			}
		}
	}
	switch {
	case tables == 0:
		return nil, errors.New("no model status or retirement table: not Anthropic's model deprecations page")
	case len(set.out) == 0:
		return nil, failure(api.FailureEmpty, "the tables name no retired or deprecated model: the page is cut, or lists nothing")
	}
	return set.out, nil
}

// undatedAlias is a dated Anthropic snapshot's id without its date
// ("claude-opus-4-1-20250805" → "claude-opus-4-1").
func undatedAlias(id string) (string, bool) {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 || len(id)-i-1 != 8 {
		return "", false
	}
	for _, r := range id[i+1:] {
		if r < '0' || r > '9' {
			return "", false
		}
	}
	return id[:i], true
}
