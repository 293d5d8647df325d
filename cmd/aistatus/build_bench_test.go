package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aistatus/aistatus/bench/synth"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// BenchmarkBuildBinary is a full-retention build (26 services, 32 days of
// buckets, 100 000 incidents, 50 000 changes) by the aistatus binary, run as
// a user runs it — `aistatus build --out DIR --catalog FILE` — against the
// loopback world (build/buildtest), measured from outside: the child's user
// and system CPU time (cpu-s/op, sys-s/op; least-cpu-s the least of one
// build, the steadiest figure on a shared machine) from the kernel's
// accounting of the process, and its peak resident memory (peakRSSMB) from
// GNU time, when /usr/bin/time is there. Everything the command does
// counts: the process's start, the flags and catalog, the logs, the build,
// the sync and the swap.
//
// The snapshot folder is on a disk (buildtest.DiskDir), not in memory as
// the tests' are: a user's snapshot is on a disk.
//
// AISTATUS_BIN names another build of aistatus to run instead of this
// tree's (an older commit's, to compare).
//
//	go test -run '^$' -bench BuildBinary -benchtime 5x ./cmd/aistatus
func BenchmarkBuildBinary(b *testing.B) {
	bin := os.Getenv("AISTATUS_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "aistatus")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	world := buildtest.NewWorld(b, cat)
	catalogFile := filepath.Join(b.TempDir(), "catalog.json")
	if err := os.WriteFile(catalogFile, world.Catalog.JSON(), 0o644); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(buildtest.DiskDir(b), "public")
	func() { // the synthetic cycle is garbage once published
		// The history ends a cycle ago, on the wall clock the binary reads.
		c := synth.New(world.Catalog, time.Now().Add(-time.Minute), 32, history.MaxIncidents)
		c.AddChanges(world.Catalog, history.MaxChanges)
		files, err := c.Snapshot(build.Site{BaseURL: "http://aistatus.test", StaleAfter: 15 * time.Minute, Generator: "bench"}, world.Catalog)
		if err != nil {
			b.Fatal(err)
		}
		if err := snapshot.Publish(dir, files); err != nil {
			b.Fatal(err)
		}
	}()

	// The child's peak resident memory comes from GNU time, which forks:
	// os/exec starts a child with vfork, so the kernel's maximum for it
	// counts this process's memory (the synthetic cycle's, some 500 MB)
	// from before the exec.
	gnuTime, _ := exec.LookPath("/usr/bin/time")
	timeOut := filepath.Join(b.TempDir(), "time")
	var user, sys time.Duration
	least := time.Duration(1<<63 - 1)
	var peakKB int64
	for b.Loop() {
		args := []string{bin, "build", "--out", dir, "--catalog", catalogFile, "--base-url", "http://aistatus.test", "--timeout", "5s"}
		if gnuTime != "" {
			args = append([]string{gnuTime, "-f", "%M", "-o", timeOut}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			b.Fatalf("aistatus build: %v\n%s", err, out.Bytes())
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage) // the children's, time's own included
		user += time.Duration(ru.Utime.Nano())
		sys += time.Duration(ru.Stime.Nano())
		least = min(least, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
		if gnuTime != "" {
			data, err := os.ReadFile(timeOut)
			if err != nil {
				b.Fatal(err)
			}
			kb, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			if err != nil {
				b.Fatalf("GNU time's peak %q: %v", data, err)
			}
			peakKB = max(peakKB, kb)
		}
	}
	b.ReportMetric((user+sys).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(sys.Seconds()/float64(b.N), "sys-s/op")
	b.ReportMetric(least.Seconds(), "least-cpu-s")
	if gnuTime != "" {
		b.ReportMetric(float64(peakKB)/1024, "peakRSSMB")
	}
}
