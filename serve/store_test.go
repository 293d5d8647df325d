package serve

import (
	"testing"
	"weak"
)

// TestLargeSwapReturnsTheReplacedSnapshot: swapping in a large snapshot
// frees the one it replaced at once, rather than whenever the collector's
// pace gets to it, which left a replica at its swap's peak (see Store.set).
func TestLargeSwapReturnsTheReplacedSnapshot(t *testing.T) {
	large := func() *Snapshot {
		return &Snapshot{files: map[string]*representation{"incidents.json": {body: make([]byte, freeAfterSwapBytes)}}}
	}
	st := NewStore("")
	replaced := func() weak.Pointer[Snapshot] {
		s := large()
		st.set(s)
		return weak.Make(s)
	}()
	st.set(large())
	if replaced.Value() != nil {
		t.Error("the snapshot replaced by a large one is still in memory after the swap")
	}
}
