package aistatus_test

import (
	"go/build"
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
