package serve

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/aistatus/aistatus/bench/procmem"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// BenchmarkLoadFullRetention is how long `serve` takes to be ready on a
// snapshot at the retention caps — 26 services, 32 days, 100 000
// incidents, 50 000 changes, the dataset — and what it then holds. Ready
// means answering /api/v1/status and /api/v1/services/{slug}: the timed
// part is the store's Reload (Load and the swap, which returns the loading
// garbage to the system) and the first answer of each, gzip-encoded as most
// clients ask, so that work deferred to the first request is counted.
// Reported: ns/op (the readiness), cpu-s/op (user and system CPU of it,
// which a shared machine's other jobs inflate less than wall time), the
// resident memory holding the snapshot once ready (heldRSSMB; baseRSSMB is
// the process's own before loading) and the peak while loading (Linux);
// then the deferred work: the first read of the change log (logRead-s),
// and the resident memory once it is read and every file's gzip variant is
// made (fullRSSMB), the most the snapshot holds.
// The targets (bench/README.md): ready in 1 s, at most 300 MB held.
//
//	go test -run '^$' -bench LoadFullRetention -benchtime 3x ./serve
func BenchmarkLoadFullRetention(b *testing.B) {
	if !procmem.Available() {
		b.Skip("needs Linux's /proc/self/status and clear_refs")
	}
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	dir, _ := publishSynth(b, cat, genTime, history.MaxChanges)
	ready := []string{snapshot.PathStatus, snapshot.APIBase + "/services/openai"}
	var base, held, peak, full float64
	var cpu, logRead float64
	// Only the readiness is timed: b.N iterations with the timer stopped
	// around the rest (B.Loop does not allow that).
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		debug.FreeOSMemory()
		if base, err = procmem.MB("VmRSS"); err != nil {
			b.Fatal(err)
		}
		if err := procmem.ResetPeak(); err != nil {
			b.Fatal(err)
		}
		srv := New(Options{Dir: dir, Catalog: cat, Log: zerolog.Nop(), Now: newTestClock(genTime).Now})
		cpu0 := processCPU()
		b.StartTimer()
		if _, err := srv.Store().Reload(); err != nil {
			b.Fatal(err)
		}
		for _, path := range ready {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			rec := httptest.NewRecorder()
			srv.APIHandler().ServeHTTP(rec, req)
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "gzip" {
				b.Fatalf("%s: %d, Content-Encoding %q", path, rec.Code, rec.Header().Get("Content-Encoding"))
			}
		}
		b.StopTimer()
		cpu += (processCPU() - cpu0).Seconds()
		runtime.GC()
		debug.FreeOSMemory()
		if peak, err = procmem.MB("VmHWM"); err != nil {
			b.Fatal(err)
		}
		if held, err = procmem.MB("VmRSS"); err != nil {
			b.Fatal(err)
		}
		// What the deferred work costs and what the snapshot holds once a
		// request has asked for all of it: the change log read, and every
		// file's gzip variant made.
		snap := srv.Store().Current()
		start := time.Now()
		snap.changeLog()
		logRead += time.Since(start).Seconds()
		for _, rep := range snap.files {
			rep.gzipped()
		}
		runtime.GC()
		debug.FreeOSMemory()
		if full, err = procmem.MB("VmRSS"); err != nil {
			b.Fatal(err)
		}
		runtime.KeepAlive(srv)
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(base, "baseRSSMB")
	b.ReportMetric(held, "heldRSSMB")
	b.ReportMetric(peak, "loadPeakMB")
	b.ReportMetric(logRead/float64(b.N), "logRead-s")
	b.ReportMetric(full, "fullRSSMB")
}
