package buildtest

import (
	"bytes"
	"flag"
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
		t.Errorf("%s differs from %s (run go test with -update and review the diff):\ngot:  %.2000s\nwant: %.2000s", name, path, got, want)
	}
}
