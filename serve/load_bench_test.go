package serve

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/aistatus/aistatus/bench/procmem"
	"github.com/aistatus/aistatus/snapshot"
)

// BenchmarkLoadFullRetention is how long `serve` takes to be ready on a
// snapshot at the retention caps — 26 services, 32 days, 100 000
// incidents, 50 000 changes, the dataset — and what it then holds: the time
// of Load (ns/op, the readiness), the resident memory holding the snapshot
// and the peak while loading it (Linux). The targets (bench/README.md):
// ready in 1 s, at most 300 MB held.
//
//	go test -run '^$' -bench LoadFullRetention -benchtime 3x ./serve
func BenchmarkLoadFullRetention(b *testing.B) {
	if !procmem.Available() {
		b.Skip("needs Linux's /proc/self/status and clear_refs")
	}
	cat, err := snapshot.DefaultCatalog()
	if err != nil {
		b.Fatal(err)
	}
	dir, _ := publishSynth(b, cat, genTime, snapshot.MaxChanges)
	var held, peak float64
	// Only Load is timed: b.N iterations with the timer stopped around the
	// rest (B.Loop does not allow that).
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		debug.FreeOSMemory()
		if err := procmem.ResetPeak(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		snap, err := Load(dir)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		if peak, err = procmem.MB("VmHWM"); err != nil {
			b.Fatal(err)
		}
		if held, err = procmem.MB("VmRSS"); err != nil {
			b.Fatal(err)
		}
		runtime.KeepAlive(snap)
	}
	b.ReportMetric(held, "heldRSSMB")
	b.ReportMetric(peak, "loadPeakMB")
}
