package buildtest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// update is the -update flag of every test binary that compares golden
// files: go test ./build ./build/site ./notify -update rewrites them.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// Golden compares got with the golden file testdata/golden/<name> (name is
// slash-separated), or rewrites the file when the test runs with -update.
// Review the diff of a rewrite: it is the change users will see.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run go test with -update and review the diff): %s", name, path, FirstDifference(got, want))
	}
}

// FirstDifference says where got first differs from want: the line and
// column, and that line of each, which is where a reader starts, instead
// of two whole files to compare by eye.
func FirstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	line := 1 + bytes.Count(want[:i], []byte("\n"))
	start := bytes.LastIndexByte(want[:i], '\n') + 1
	lineOf := func(b []byte) string {
		if start > len(b) {
			return ""
		}
		rest := b[start:]
		if end := bytes.IndexByte(rest, '\n'); end >= 0 {
			rest = rest[:end]
		}
		return fmt.Sprintf("%.300q", rest)
	}
	switch {
	case i == len(got):
		return fmt.Sprintf("got ends at line %d, byte %d, where want goes on: %s", line, i, lineOf(want))
	case i == len(want):
		return fmt.Sprintf("want ends at line %d, byte %d, where got goes on: %s", line, i, lineOf(got))
	}
	return fmt.Sprintf("first at line %d, column %d (byte %d):\ngot:  %s\nwant: %s", line, i-start+1, i, lineOf(got), lineOf(want))
}
