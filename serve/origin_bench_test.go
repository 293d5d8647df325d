package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/bench/procmem"
	"github.com/aistatus/aistatus/bench/synth"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// BenchmarkOriginSwapMemory measures what a replica's memory must allow at
// full retention (bench/synth: 26 services, 32 days of history, 100 000
// incidents): the resident memory (VmRSS, from /proc/self/status) while it
// holds a snapshot, and the peak (VmHWM) while it loads one and while it
// swaps in the next, fetched over loopback from a static origin. Linux only;
// the numbers are reported, not asserted. Generating the two snapshots
// takes about half a minute.
//
//	go test -run '^$' -bench OriginSwapMemory -benchtime 1x ./serve
func BenchmarkOriginSwapMemory(b *testing.B) {
	if !procmem.Available() {
		b.Skip("needs Linux's /proc/self/status and clear_refs")
	}
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	var dirs [2]string
	var setBytes int64
	for i := range dirs {
		var files map[string][]byte
		dirs[i], files = publishSynth(b, cat, genTime.Add(time.Duration(i)*5*time.Minute), 0)
		setBytes = 0
		for name, data := range files {
			if servedFromOrigin(name) && name != snapshot.FileManifest {
				setBytes += int64(len(data))
			}
		}
	}
	// The origin streams the files from disk and answers no conditional
	// request, so that it costs the process no heap and the replica sees
	// each switch of folder.
	var serving atomic.Int32
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("If-None-Match")
		r.Header.Del("If-Modified-Since")
		http.FileServer(http.Dir(dirs[serving.Load()])).ServeHTTP(w, r)
	}))
	defer origin.Close()
	clock := newTestClock(genTime.Add(10 * time.Minute))

	var base, loadPeak, held, swapPeak, afterSwap, live, swapAlloc float64
	for b.Loop() {
		debug.FreeOSMemory()
		base = procStatusMB(b, "VmRSS")
		o := newTestOrigin(b, origin.URL, clock, time.Minute)
		st := NewStore("")
		serving.Store(0)
		resetPeakRSS(b)
		if swapped, err := o.Sync(context.Background(), st); !swapped || err != nil {
			b.Fatal(swapped, err)
		}
		loadPeak, held = procStatusMB(b, "VmHWM"), procStatusMB(b, "VmRSS")
		serving.Store(1)
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		allocated := m.TotalAlloc
		resetPeakRSS(b)
		if swapped, err := o.Sync(context.Background(), st); !swapped || err != nil {
			b.Fatal(swapped, err)
		}
		swapPeak, afterSwap = procStatusMB(b, "VmHWM"), procStatusMB(b, "VmRSS")
		runtime.GC()
		runtime.ReadMemStats(&m)
		live, swapAlloc = float64(m.HeapAlloc)/(1<<20), float64(m.TotalAlloc-allocated)/(1<<20)
		runtime.KeepAlive(st)
	}
	b.ReportMetric(float64(setBytes)/(1<<20), "setMB")
	b.ReportMetric(base, "baseRSSMB")
	b.ReportMetric(loadPeak, "loadPeakMB")
	b.ReportMetric(held, "heldRSSMB")
	b.ReportMetric(swapPeak, "swapPeakMB")
	b.ReportMetric(afterSwap, "afterSwapRSSMB")
	b.ReportMetric(live, "liveHeapMB")
	b.ReportMetric(swapAlloc, "swapAllocMB")
}

// publishSynth publishes bench/synth's snapshot at the retention cap of
// incidents (26 services, 32 days), with changes entries in the change log,
// into a new folder, and returns it and the files.
func publishSynth(b *testing.B, cat catalog.Catalog, at time.Time, changes int) (string, map[string][]byte) {
	b.Helper()
	c := synth.New(cat, at, 32, history.MaxIncidents)
	c.AddChanges(cat, changes)
	files, err := c.Snapshot(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "bench"}, cat)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "site")
	if err := snapshot.Publish(dir, files); err != nil {
		b.Fatal(err)
	}
	return dir, files
}

// procStatusMB reads a field of /proc/self/status given in kB, in MiB.
func procStatusMB(tb testing.TB, field string) float64 {
	tb.Helper()
	mb, err := procmem.MB(field)
	if err != nil {
		tb.Fatal(err)
	}
	return mb
}

// resetPeakRSS makes VmHWM start again from the current resident memory.
func resetPeakRSS(tb testing.TB) {
	tb.Helper()
	if err := procmem.ResetPeak(); err != nil {
		tb.Fatal(err)
	}
}
