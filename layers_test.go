package aistatus_test

import (
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// serveRendersWithBuild are serve's test files that still render the
// snapshots they serve with build's renderer (build.Render, build.OpenAPI):
// what is left of issue 47's "serve's tests import build". No other test
// of serve may, and each listed file must still (else it leaves the
// list), so that the list only shrinks.
var serveRendersWithBuild = []string{
	"serve/contract_helper_test.go",
	"serve/events_test.go",
	"serve/history_test.go",
	"serve/load_test.go",
	"serve/mcpserver/mcpserver_test.go",
	"serve/origin_bench_test.go",
	"serve/reliability_test.go",
	"serve/serve_bench_test.go",
	"serve/server_test.go",
}

// TestBuildAndServeTestsApart keeps build's tests and serve's apart: a
// test of build/ imports nothing of serve/, and a test of serve/ nothing
// of build/ but the readers' types (build/feed), outside
// serveRendersWithBuild. Either may use the other's test helpers,
// packages named …test, which import neither side's code. A check that
// builds and then serves belongs in cmd/aistatus, at the top of the
// graph.
func TestBuildAndServeTestsApart(t *testing.T) {
	helper := func(imp string) bool { return strings.HasSuffix(imp, "test") }
	sides := []struct {
		dir       string
		forbidden func(ours string) bool
	}{
		{"build", func(ours string) bool { return ours == "serve" || strings.HasPrefix(ours, "serve/") && !helper(ours) }},
		{"serve", func(ours string) bool {
			return (ours == "build" || strings.HasPrefix(ours, "build/")) && ours != "build/feed" && !helper(ours)
		}},
	}
	for _, side := range sides {
		err := filepath.WalkDir(side.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			file := filepath.ToSlash(path)
			var crossing []string
			for _, spec := range f.Imports {
				imp, _ := strconv.Unquote(spec.Path.Value)
				if ours, found := strings.CutPrefix(imp, module); found && side.forbidden(ours) {
					crossing = append(crossing, ours)
				}
			}
			listed := slices.Contains(serveRendersWithBuild, file)
			switch {
			case len(crossing) > 0 && !listed:
				t.Errorf("%s imports %s: a check that builds and serves belongs in cmd/aistatus", file, strings.Join(crossing, ", "))
			case len(crossing) == 0 && listed:
				t.Errorf("%s no longer imports build: take it off serveRendersWithBuild", file)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range serveRendersWithBuild {
		if _, err := os.Stat(file); err != nil {
			t.Errorf("serveRendersWithBuild lists %s: %v", file, err)
		}
	}
}
