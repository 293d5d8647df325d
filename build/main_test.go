package build

import (
	"testing"

	"github.com/aistatus/aistatus/build/buildtest"
)

// TestMain puts the tests' temporary folders in memory (buildtest.Main).
func TestMain(m *testing.M) { buildtest.Main(m) }
