package notify

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/build/buildtest"
)

// TestMain puts the tests' temporary folders in memory (buildtest.Main).
func TestMain(m *testing.M) { buildtest.Main(m) }

// t0 is when the tests' changes happen.
var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
