package feed

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/catalog"
)

// TestFeedTableDocumented: the feed table of docs/api.md ("## Feeds") is
// the embedded catalog's, row for row. Each row is a format some service
// uses (its id in backticks in the first cell) and lists exactly the
// services of that format, by catalog name (a parenthesis after the name
// says what is read of the page); the sentence under the table ("Readers
// for …") names every other format that has a reader. A service added to
// the catalog, or moved to another format, fails here until its row says
// so.
func TestFeedTableDocumented(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	rows, unused := feedTable(t, string(data))

	want := map[catalog.FeedFormat][]string{}
	for _, svc := range cat.Services {
		want[svc.Feed.Format] = append(want[svc.Feed.Format], svc.Name)
	}
	for _, f := range Formats() {
		got, listed := rows[f.ID]
		used := len(want[f.ID]) > 0
		switch {
		case used && slices.Contains(unused, f.ID):
			t.Errorf("`%s` is named under docs/api.md's feed table as used by no service, but %s use it", f.ID, strings.Join(want[f.ID], ", "))
		case used && !listed:
			t.Errorf("docs/api.md's feed table has no `%s` row for %s", f.ID, strings.Join(want[f.ID], ", "))
		case used:
			for _, name := range difference(want[f.ID], got) {
				t.Errorf("%s (format `%s`) is missing from the `%s` row of docs/api.md's feed table", name, f.ID, f.ID)
			}
			for _, name := range difference(got, want[f.ID]) {
				t.Errorf("the `%s` row of docs/api.md's feed table names %q, which is no service of that format in the catalog", f.ID, name)
			}
		case listed:
			t.Errorf("docs/api.md's feed table has a `%s` row, but no service uses that format: name it under the table (\"Readers for …\")", f.ID)
		case f.Adapter != nil && !slices.Contains(unused, f.ID):
			t.Errorf("`%s` (%s) has a reader no service uses, and docs/api.md names it neither in the feed table nor under it", f.ID, f.Name)
		}
	}
	for id := range rows {
		if _, ok := Lookup(id); !ok {
			t.Errorf("docs/api.md's feed table has a row for `%s`, which is no format", id)
		}
	}
	for _, id := range unused {
		if _, ok := Lookup(id); !ok {
			t.Errorf("docs/api.md names `%s` under the feed table, which is no format", id)
		}
	}
}

// TestRealCapturesNameEveryService: every service with a feed is named,
// by its catalog name, in testdata/real/README.md: a capture of its page
// (with its provenance, read by a test with the service's scope) or,
// where none could be found, the record of where we looked. A service
// added without either fails here; the fake world needs nothing of it,
// as it writes every page from its format's row.
func TestRealCapturesNameEveryService(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("testdata", "real", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range cat.Services {
		if svc.Feed.Format != catalog.FormatNone && !strings.Contains(string(readme), svc.Name) {
			t.Errorf("%s (%s) is named nowhere in testdata/real/README.md: add a capture of its page with its provenance "+
				"and a test in real_test.go, or say under \"Looked for, not found\" where you looked", svc.Name, svc.Slug)
		}
	}
}

// formatID is a format's id as the docs quote it: `statuspage`.
var formatID = regexp.MustCompile("`([a-z]+)`")

// feedTable reads the table of the "## Feeds" section of docs/api.md: the
// services of each row's format, by name, and the formats that the
// sentence under the table names as used by no service.
func feedTable(t *testing.T, doc string) (rows map[catalog.FeedFormat][]string, unused []catalog.FeedFormat) {
	t.Helper()
	_, section, ok := strings.Cut(doc, "\n## Feeds\n")
	if !ok {
		t.Fatal(`docs/api.md has no "## Feeds" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows = map[catalog.FeedFormat][]string{}
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| format |") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		ids := formatID.FindAllStringSubmatch(cells[0], -1)
		if len(cells) != 3 || len(ids) != 1 {
			t.Errorf("feed table row %q: want 3 cells, the first naming one format id in backticks", line)
			continue
		}
		id := catalog.FeedFormat(ids[0][1])
		if _, dup := rows[id]; dup {
			t.Errorf("docs/api.md's feed table has two `%s` rows", id)
		}
		for _, item := range splitTopLevel(cells[1]) {
			name, _, _ := strings.Cut(item, " (")
			rows[id] = append(rows[id], name)
		}
	}
	if len(rows) == 0 {
		t.Fatal("docs/api.md's Feeds section has no table rows")
	}
	_, readers, ok := strings.Cut(section, "Readers for ")
	readers, _, found := strings.Cut(readers, "stay for catalogs")
	if !ok || !found {
		t.Fatal(`docs/api.md's Feeds section has no sentence "Readers for … stay for catalogs that use them"`)
	}
	for _, m := range formatID.FindAllStringSubmatch(readers, -1) {
		unused = append(unused, catalog.FeedFormat(m[1]))
	}
	return rows, unused
}

// splitTopLevel splits a list at the commas outside parentheses:
// "A (x, y), B" is "A (x, y)" and "B".
func splitTopLevel(s string) []string {
	var items []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(items, strings.TrimSpace(s[start:]))
}

// difference is what of a is not in b, each element counted: a name
// listed twice where the catalog has it once is one too many.
func difference(a, b []string) []string {
	left := slices.Clone(b)
	var out []string
	for _, x := range a {
		if i := slices.Index(left, x); i >= 0 {
			left = slices.Delete(left, i, i+1)
		} else {
			out = append(out, x)
		}
	}
	return out
}
