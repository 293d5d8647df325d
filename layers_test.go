package aistatus_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// groundFloor is the packages everything else stands on, lowest first: each
// may import, of this module, only those before it (CONTRIBUTING.md,
// "Dependencies point one way").
var groundFloor = []string{"catalog", "api", "snapshot", "history"}

const module = "github.com/aistatus/aistatus/"

// TestGroundFloorPointsDown fails when a ground-floor package imports one
// above it, or any other package of this module. The compiler refuses the
// first only as a cycle, and the second not at all. Every file counts,
// whatever its build constraints, and so do the package's own tests.
func TestGroundFloorPointsDown(t *testing.T) {
	down := slices.Clone(groundFloor)
	slices.Reverse(down)
	ctxt := build.Default
	ctxt.UseAllFiles = true
	for i, name := range groundFloor {
		pkg, err := ctxt.ImportDir(name, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, imp := range slices.Concat(pkg.Imports, pkg.TestImports) {
			ours, found := strings.CutPrefix(imp, module)
			if !found {
				continue
			}
			if j := slices.Index(groundFloor, ours); j < 0 || j >= i {
				t.Errorf("%s imports %s: a ground-floor package imports only those below it (%s)",
					name, ours, strings.Join(down, " → "))
			}
		}
	}
}

// TestDocsListEveryPackage holds docs/development.md's code layout to the
// module's packages: every folder of Go code has its row, or is named in
// its top-level folder's row (a nested one, as `build/feed/`),
// and every row names a folder that exists. A package added or moved
// without its line fails here.
func TestDocsListEveryPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, _ := strings.Cut(string(data), "\n## Code layout\n")
	layout, _, _ = strings.Cut(layout, "\n## ")
	rows := map[string]string{} // folder → its row
	for line := range strings.Lines(layout) {
		if cell, ok := strings.CutPrefix(line, "| `"); ok {
			folder, _, _ := strings.Cut(cell, "/`")
			rows[folder] = line
		}
	}
	var dirs []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && filepath.Dir(path) != "." {
			dirs = append(dirs, filepath.ToSlash(filepath.Dir(path)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	for _, dir := range slices.Compact(dirs) {
		if _, own := rows[dir]; own {
			continue
		}
		top, _, _ := strings.Cut(dir, "/")
		if row, listed := rows[top]; !listed {
			t.Errorf("%s/ has no row in docs/development.md's code layout", top)
		} else if !strings.Contains(row, "`"+dir+"/`") {
			t.Errorf("%s/ is not named in the %s/ row of docs/development.md's code layout", dir, top)
		}
	}
	for folder := range rows {
		if _, err := os.Stat(folder); err != nil {
			t.Errorf("docs/development.md's code layout lists %s/, which is not there", folder)
		}
	}
}
