package build_test

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/bench/synth"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// An external test package: bench/synth, which makes the recorded cycles,
// itself imports build.

var benchSite = build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "bench"}

func benchCycle(b *testing.B) (snapshot.Catalog, synth.Cycle) {
	b.Helper()
	cat, err := snapshot.DefaultCatalog()
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
