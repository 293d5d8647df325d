package feed

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/aistatus/aistatus/api"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// googleDeprecations reads Google's Gemini API deprecations page
// (ai.google.dev/gemini-api/docs/deprecations) as the HTML it serves: one
// table per model family (Model, Release date, Shutdown date, Recommended
// replacement), the header in the table's first row, a "Preview models"
// row spanning the table between the stable and the preview models, and
// the models already shut down in gray rows, still dated. A row whose
// shutdown cell is not a day ("No shutdown date announced") announces
// nothing. Google's dates are the earliest it may shut a model down (the
// page says so); they are read as its announced dates, as its page gives
// them. A table of another header (the managed agents' "Agent") is no
// model's retirement.
type googleDeprecations struct{}

func (googleDeprecations) Accept() string { return "text/html" }

func (googleDeprecations) ParseDeprecations(doc []byte) ([]Deprecation, error) {
	root, err := html.Parse(bytes.NewReader(doc)) // rejects nesting deeper than 512
	if err != nil {
		return nil, fmt.Errorf("parsing HTML: %w", err)
	}
	var set deprecationSet
	tables := 0
	for _, t := range htmlTables(root) {
		model, date := t.column("model"), t.column("shutdown date")
		if model < 0 || date < 0 {
			continue
		}
		tables++
		for _, row := range t.rows {
			day, ok := pageDate(row[date])
			if !ok {
				continue
			}
			for _, id := range modelCell(row[model]) {
				if err := set.add(Deprecation{Model: id, Date: day}); err != nil {
					return nil, err
				}
			}
		}
	}
	switch {
	case tables == 0:
		// An HTML page is what is expected here: one without the tables
		// is a page of another shape.
		return nil, &Error{Kind: api.FailureSchema, Err: errors.New(`no table with "Model" and "Shutdown date" columns: not Google's Gemini deprecations page`)}
	case len(set.out) == 0:
		return nil, failure(api.FailureEmpty, "the shutdown tables name no model: the page is cut, or lists nothing")
	}
	return set.out, nil
}

// htmlTables reads the tables of an HTML document as mdTables: the first
// row's cells (lower-cased) are the header, the other rows of the same
// count of cells the rows ("Preview models", one cell spanning the
// table, is no row). A cell is its text, whitespace-normalised; a table
// nested in another is a table of its own, not part of its cell.
func htmlTables(root *html.Node) []mdTable {
	var out []mdTable
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Table {
			var t mdTable
			for _, tr := range tableRows(n) {
				cells := rowCells(tr)
				switch {
				case t.header == nil:
					for _, c := range cells {
						t.header = append(t.header, strings.ToLower(c))
					}
				case len(cells) == len(t.header):
					t.rows = append(t.rows, cells)
				}
			}
			out = append(out, t)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

// tableRows are a table's own rows: in its thead, tbody and tfoot or
// directly in it, not those of a table nested in a cell.
func tableRows(table *html.Node) []*html.Node {
	var rows []*html.Node
	for c := table.FirstChild; c != nil; c = c.NextSibling {
		switch c.DataAtom {
		case atom.Tr:
			rows = append(rows, c)
		case atom.Thead, atom.Tbody, atom.Tfoot:
			for r := c.FirstChild; r != nil; r = r.NextSibling {
				if r.DataAtom == atom.Tr {
					rows = append(rows, r)
				}
			}
		}
	}
	return rows
}

// rowCells are the texts of a row's td and th cells.
func rowCells(tr *html.Node) []string {
	var cells []string
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom != atom.Td && c.DataAtom != atom.Th {
			continue
		}
		var b strings.Builder
		cellText(c, &b)
		cells = append(cells, strings.Join(strings.Fields(b.String()), " "))
	}
	return cells
}

// cellText writes n's text into b, leaving out nested tables, scripts and
// styles; a line break is a space.
func cellText(n *html.Node, b *strings.Builder) {
	switch {
	case n.Type == html.TextNode:
		b.WriteString(n.Data)
		return
	case n.Type == html.ElementNode && (n.DataAtom == atom.Table || n.DataAtom == atom.Script || n.DataAtom == atom.Style):
		return
	case n.Type == html.ElementNode && n.DataAtom == atom.Br:
		b.WriteByte(' ')
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		cellText(c, b)
	}
}
