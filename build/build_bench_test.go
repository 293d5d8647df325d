package build_test

import (
	"context"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/aistatus/aistatus/bench/procmem"
	"github.com/aistatus/aistatus/bench/synth"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// An external test package: bench/synth, which makes the recorded cycles,
// itself imports build.

var benchSite = build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "bench"}

func benchCycle(b *testing.B) (catalog.Catalog, synth.Cycle) {
	b.Helper()
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	return cat, synth.New(cat, time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), 30, 1000)
}

// BenchmarkCycle is one build cycle from recorded results — Assemble, then
// Render — with 26 services, 30 days of history and 1 000 incidents: all
// of a build but the network and the disk. Each iteration is the next
// minute's cycle over the same history, as in a long-running build.
func BenchmarkCycle(b *testing.B) {
	cat, c := benchCycle(b)
	now := c.Now
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Minute)
		states := build.Assemble(c.History, cat, c.Observations, now, zerolog.Nop())
		if _, err := build.Render(benchSite, cat, c.History, states, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRender renders every file of one assembled cycle.
func BenchmarkRender(b *testing.B) {
	cat, c := benchCycle(b)
	states := build.Assemble(c.History, cat, c.Observations, c.Now, zerolog.Nop())
	var size int
	b.ReportAllocs()
	for b.Loop() {
		files, err := build.Render(benchSite, cat, c.History, states, c.Now)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, data := range files {
			size += len(data)
		}
	}
	b.ReportMetric(float64(size)/1e6, "MB/snapshot")
}

// BenchmarkFullRetentionBuild is one build at the retention caps — 26
// services, 32 days of buckets, 100 000 incidents, 50 000 changes — with
// everything a build does but the network: read the previous snapshot's
// history, Assemble, Render and publish to disk (fsync included). It
// reports the peak resident memory of the process during the build
// (peakRSSMB, Linux only) beside time and allocations. The targets (bench/
// README.md): at most 2 s and 250 MB.
//
//	go test -run '^$' -bench FullRetentionBuild -benchtime 3x ./build
func BenchmarkFullRetentionBuild(b *testing.B) {
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	c := synth.New(cat, time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), 32, history.MaxIncidents)
	c.AddChanges(cat, history.MaxChanges)
	dir := filepath.Join(b.TempDir(), "site")
	historyMB := publishCycle(b, c, cat, dir)
	// Only the observations are used from here on: the history is read
	// back from the folder, as a build does.
	c.History = nil
	runtime.GC()
	debug.FreeOSMemory()

	now := c.Now
	var peak float64
	cpu0 := cpuTime()
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Minute)
		if procmem.Available() {
			if err := procmem.ResetPeak(); err != nil {
				b.Fatal(err)
			}
		}
		buildOnce(b, dir, cat, c.Observations, now)
		if procmem.Available() {
			hwm, err := procmem.MB("VmHWM")
			if err != nil {
				b.Fatal(err)
			}
			peak = max(peak, hwm)
		}
	}
	// The CPU time is the steadier figure on a shared machine, where the
	// wall time (ns/op) grows with the other jobs' load.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(peak, "peakRSSMB")
	b.ReportMetric(historyMB, "historyMB")
}

// publishCycle publishes the snapshot of c into dir and returns the size of
// its history.json in MiB.
func publishCycle(b *testing.B, c synth.Cycle, cat catalog.Catalog, dir string) float64 {
	b.Helper()
	files, err := c.Snapshot(benchSite, cat)
	if err != nil {
		b.Fatal(err)
	}
	if err := snapshot.Publish(dir, files); err != nil {
		b.Fatal(err)
	}
	return float64(len(files[snapshot.FileHistory])) / (1 << 20)
}

// buildOnce is Build without the network: the observations are given.
func buildOnce(b *testing.B, dir string, cat catalog.Catalog, obs map[string]build.Observation, now time.Time) {
	b.Helper()
	lock, err := snapshot.LockFolder(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	defer lock.Unlock()
	hist, _, err := history.ReadHistory(dir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := history.ReadArchive(dir, hist); err != nil {
		b.Fatal(err)
	}
	states := build.Assemble(hist, cat, obs, now, zerolog.Nop())
	staging, err := lock.Stage()
	if err != nil {
		b.Fatal(err)
	}
	defer staging.Abort()
	if err := build.RenderTo(staging, benchSite, cat, hist, states, now); err != nil {
		b.Fatal(err)
	}
	if err := staging.Commit(); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFullRetentionBuildWhole is BenchmarkFullRetentionBuild through
// build.Build itself, as `aistatus build` runs it: the history checked
// against the clock and cleaned, every status page and API host read over
// loopback (build/buildtest), the model list and gateways, the lifecycle,
// the notifier's facts, on a disk as a user's snapshot is (buildtest.DiskDir).
// What the whole command costs beyond the cycle's core shows here, not
// only from outside (cmd/aistatus's BenchmarkBuildBinary): all of it but
// the process's start and its heap growing from nothing.
func BenchmarkFullRetentionBuildWhole(b *testing.B) {
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	world := buildtest.NewWorld(b, cat)
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	dir := filepath.Join(buildtest.DiskDir(b), "site")
	func() { // the synthetic cycle is garbage once published
		c := synth.New(world.Catalog, start, 32, history.MaxIncidents)
		c.AddChanges(world.Catalog, history.MaxChanges)
		publishCycle(b, c, world.Catalog, dir)
	}()
	runtime.GC()
	debug.FreeOSMemory()

	now := start
	opts := build.Options{Out: dir, Site: benchSite, Catalog: world.Catalog, Timeout: 5 * time.Second,
		Client:   outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(world.Catalog)}),
		Now:      func() time.Time { return now },
		Log:      zerolog.Nop(),
		Adapters: feed.Adapters()}
	world.Clock = opts.Now
	cpu0 := cpuTime()
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Minute)
		if _, err := build.Build(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
