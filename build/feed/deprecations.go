package feed

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// The makers' own deprecation pages (docs/api.md, "The lifecycle"): the
// maker's word on the day it shuts a model down, read beside the gateways'
// lists. OpenAI and Anthropic serve theirs as Markdown (the page's URL plus
// ".md"), Google its as an HTML page; their tables are what is read, the
// prose around them is not.

// Deprecation is one model's retirement as its maker's page announces it.
type Deprecation struct {
	// Model is the maker's id of the model ("gpt-4o-2024-05-13",
	// "claude-opus-4-1-20250805").
	Model string
	// Date is the day the maker shuts it down, "YYYY-MM-DD".
	Date string
	// Alias is set for an id the page does not write but which names the
	// same model by the maker's rule (Anthropic's undated alias of a
	// dated snapshot): a written id is preferred to it. Of is then the
	// written id it stands for.
	Alias bool
	Of    string
}

// DeprecationPage is a read of a maker's deprecation page.
type DeprecationPage struct {
	Deprecations []Deprecation
	// Validators identify the version read, for the next read's
	// conditional request.
	Validators Validators
	// Unchanged is a 304: the page is the one read before, and
	// Deprecations is empty.
	Unchanged bool
}

// DeprecationFormat reads one maker's page: one small reader per format,
// like the feed adapters.
type DeprecationFormat interface {
	// ParseDeprecations reads the document. It proves itself by the
	// maker's tables: a document without them is a plain error (a schema
	// failure, or a challenge when it is an HTML page), one whose tables
	// name no model FailureEmpty.
	ParseDeprecations(doc []byte) ([]Deprecation, error)
	// Accept is the media types the page is asked for in.
	Accept() string
}

// DeprecationFormats is the registry of the page readers, by the
// catalog's format id (catalog.LifecycleFormats). Fresh on every call.
func DeprecationFormats() map[string]DeprecationFormat {
	return map[string]DeprecationFormat{
		catalog.LifecycleOpenAI:    openAIDeprecations{},
		catalog.LifecycleAnthropic: anthropicDeprecations{},
		catalog.LifecycleGoogle:    googleDeprecations{},
	}
}

// MaxDeprecations bounds the models a page may name. OpenAI's page named
// some 150 in 2026, Anthropic's some 30, Google's some 60; a page naming more is broken or
// hostile and fails as a document of the wrong shape, not cut.
const MaxDeprecations = 2000

// markdownAccept asks for a page as Markdown.
const markdownAccept = "text/markdown, text/plain;q=0.9"

// maxMakerModelID bounds a maker's model id.
const maxMakerModelID = 128

// makerModelID is what a maker's model id may be: lower-case letters,
// digits and ._- ("gpt-4.1-nano-2025-04-14", "claude-3-5-haiku-20241022").
// A cell of anything else ("Videos API", "/v1/edits", "OpenAI-Beta:
// realtime=v1") names no model.
var makerModelID = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,127}$`)

// ReadDeprecations reads a maker's page in format f. Given the validators
// of the previous read it asks conditionally, and a 304 is a read of the
// same page (Unchanged).
func ReadDeprecations(ctx context.Context, client *http.Client, url string, f DeprecationFormat, v Validators) (DeprecationPage, error) {
	deps, got, unchanged, err := readIfChanged(ctx, client, url, f.Accept(), v, f.ParseDeprecations)
	if err != nil {
		return DeprecationPage{}, err
	}
	return DeprecationPage{Deprecations: deps, Validators: got, Unchanged: unchanged}, nil
}

// AdmitDeprecations is the door every page read passes before anything of
// ours keeps it, as AdmitModels is the model lists': an id must be a
// maker's model id (makerModelID) and a date a day of a sane year
// (api.SaneTime: 2000–2099); an entry that is not is dropped and named,
// the others stand. A read of which nothing passes is a document of the
// wrong shape (FailureSchema).
func AdmitDeprecations(page DeprecationPage) (admitted DeprecationPage, dropped []string, err error) {
	if page.Unchanged {
		return page, nil, nil
	}
	kept := make([]Deprecation, 0, len(page.Deprecations))
	for _, d := range page.Deprecations {
		id := api.CleanText(d.Model, maxMakerModelID)
		if !makerModelID.MatchString(id) {
			dropped = append(dropped, fmt.Sprintf("model %q is not a model id", id))
			continue
		}
		at, perr := time.Parse(time.DateOnly, d.Date)
		if perr != nil || !api.SaneTime(at) {
			dropped = append(dropped, fmt.Sprintf("model %s: date %q out of range", id, api.CleanText(d.Date, 20)))
			continue
		}
		d.Model, d.Of = id, api.CleanText(d.Of, maxMakerModelID)
		kept = append(kept, d)
	}
	if len(kept) == 0 {
		return DeprecationPage{}, dropped, failure(api.FailureSchema, "no model of the page has a sane date: not a deprecation page")
	}
	page.Deprecations = kept
	return page, dropped, nil
}

// deprecationSet collects a page's entries: the first date written for an
// id wins (both pages list the newest announcement first, so a model
// announced again is read at its latest word), an id the page writes wins
// over the same id as an alias, and an alias takes the latest date of the
// models it stands for (it lives as long as any of them).
type deprecationSet struct {
	out []Deprecation
	at  map[string]int
}

func (s *deprecationSet) add(d Deprecation) error {
	if s.at == nil {
		s.at = map[string]int{}
	}
	i, seen := s.at[d.Model]
	switch {
	case !seen && len(s.out) == MaxDeprecations:
		return failure(api.FailureSchema, "the page names more than the %d models a deprecation page may", MaxDeprecations)
	case !seen:
		s.at[d.Model] = len(s.out)
		s.out = append(s.out, d)
	case s.out[i].Alias && !d.Alias:
		s.out[i] = d
	case s.out[i].Alias && d.Alias && d.Date > s.out[i].Date:
		s.out[i].Date, s.out[i].Of = d.Date, d.Of
	}
	return nil
}

// mdTable is a Markdown table of a page: its header's cells (lower-cased)
// and its rows' cells, each as written but trimmed. A row whose count of
// cells is not the header's is not kept: it is no row of this table.
type mdTable struct {
	header []string
	rows   [][]string
	// section is the nearest heading above the table.
	section string
}

// column is the index of the header cell named name, or -1.
func (t mdTable) column(name string) int {
	for i, h := range t.header {
		if h == name {
			return i
		}
	}
	return -1
}

// markdownTables reads the pipe tables of a Markdown document: a header
// row, a delimiter row of dashes (with alignment colons), then the rows up
// to the first line that is no row. Cells are split on unescaped pipes;
// "\|" is a pipe within a cell.
func markdownTables(doc []byte) []mdTable {
	lines := strings.Split(strings.ReplaceAll(string(doc), "\r\n", "\n"), "\n")
	var out []mdTable
	section := ""
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "#") {
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
			continue
		}
		if !strings.HasPrefix(line, "|") || i+1 >= len(lines) || !delimiterRow(strings.TrimSpace(lines[i+1])) {
			continue
		}
		t := mdTable{section: section}
		for _, h := range tableCells(line) {
			t.header = append(t.header, strings.ToLower(h))
		}
		for i += 2; i < len(lines); i++ {
			row := strings.TrimSpace(lines[i])
			if !strings.HasPrefix(row, "|") {
				i-- // the next table or heading starts here
				break
			}
			if cells := tableCells(row); len(cells) == len(t.header) {
				t.rows = append(t.rows, cells)
			}
		}
		out = append(out, t)
	}
	return out
}

// delimiterRow reports whether line is a table's delimiter row.
func delimiterRow(line string) bool {
	if !strings.HasPrefix(line, "|") {
		return false
	}
	cells := tableCells(line)
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return len(cells) > 0
}

// tableCells splits a table row into its cells, trimmed; an escaped pipe
// is kept in its cell as a pipe.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// pageDate reads a date as the pages write it: "2026-10-23" (also with
// the non-breaking hyphens OpenAI's page uses), "Dec 1, 2026", "August 5,
// 2026". Anything else ("at earliest 2024-06-13", "Not sooner than …",
// "N/A") is no announced date.
func pageDate(s string) (string, bool) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013':
			return '-'
		case '\u00a0':
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	for _, layout := range []string{time.DateOnly, "Jan 2, 2006", "January 2, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateOnly), true
		}
	}
	return "", false
}

// modelCell reads the models a table cell names: the ids in backticks,
// when the rest of the cell is only the separators between them (spaces,
// commas, the pipe between a snapshot and its aliases); else the whole
// cell when it is one bare id. A cell saying more than ids ("New
// fine-tuning training on `babbage-002`", "`gpt-4-0125-preview`
// (including …)", "Videos API") names no model as such, and nil is
// returned: it is not read as a model's retirement.
func modelCell(cell string) []string {
	if !utf8.ValidString(cell) {
		return nil
	}
	if !strings.Contains(cell, "`") {
		if makerModelID.MatchString(cell) {
			return []string{cell}
		}
		return nil
	}
	parts := strings.Split(cell, "`")
	if len(parts)%2 == 0 {
		return nil // an unclosed backtick
	}
	var ids []string
	for i, p := range parts {
		if i%2 == 0 {
			if strings.Trim(p, " ,|") != "" {
				return nil
			}
			continue
		}
		id := strings.TrimSpace(p)
		if !makerModelID.MatchString(id) {
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}
