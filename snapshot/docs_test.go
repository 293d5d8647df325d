package snapshot

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// markdownTable is the first column of the table that follows heading in
// the Markdown file at path, each cell's backquoted text.
func markdownTable(t *testing.T, path, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", path, heading)
	}
	var out []string
	inTable := false
	for line := range strings.Lines(after) {
		switch {
		case strings.HasPrefix(line, "| `"):
			inTable = true
			cell, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
			out = append(out, cell)
		case inTable && !strings.HasPrefix(line, "|"):
			return out
		}
	}
	return out
}

// TestDocsListTheDynamicRoutes holds the operations guide's one list of
// what only the thin server answers to the route table, in its order: a
// route made dynamic, or one added, is listed there or this fails.
func TestDocsListTheDynamicRoutes(t *testing.T) {
	t.Parallel()
	var dynamic []string
	for _, r := range Routes() {
		if r.Dynamic {
			dynamic = append(dynamic, r.Path)
		}
	}
	listed := markdownTable(t, "../docs/operations.md", "### What only the thin server answers")
	if !slices.Equal(listed, dynamic) {
		t.Errorf("docs/operations.md lists\n%q\nthe route table's dynamic routes are\n%q", listed, dynamic)
	}
}
