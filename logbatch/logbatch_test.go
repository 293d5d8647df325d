package logbatch

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// countingWriter records each Write it gets.
type countingWriter struct {
	mu     sync.Mutex
	writes []string
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, string(p))
	return len(p), nil
}

func (c *countingWriter) snapshot() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.writes...)
}

// TestWriter: info lines wait for the interval (or a full batch) and
// reach the output in one write, in order; a warning is written at once with
// the lines before it; Flush writes the rest.
func TestWriter(t *testing.T) {
	t.Parallel()
	var out countingWriter
	b := New(&out, time.Hour)
	log := zerolog.New(b)
	log.Info().Int("n", 1).Msg("one")
	log.Info().Int("n", 2).Msg("two")
	if w := out.snapshot(); len(w) != 0 {
		t.Fatalf("info lines written before the interval: %q", w)
	}
	log.Warn().Msg("three")
	w := out.snapshot()
	if len(w) != 1 || strings.Count(w[0], "\n") != 3 || !strings.HasSuffix(w[0], `"message":"three"}`+"\n") ||
		strings.Index(w[0], "one") > strings.Index(w[0], "two") {
		t.Fatalf("a warning should write the batch and itself at once, in order: %q", w)
	}
	log.Info().Msg("four")
	b.Flush()
	if w := out.snapshot(); len(w) != 2 || !strings.Contains(w[1], "four") {
		t.Fatalf("flush: %q", w)
	}

	// A full batch is written without waiting.
	line := strings.Repeat("x", 1000)
	for i := range Size/1000 + 1 {
		log.Info().Str("pad", line).Int("i", i).Msg("")
	}
	if w := out.snapshot(); len(w) != 3 || len(w[2]) < Size {
		t.Fatalf("a full batch was not written: %d writes", len(w))
	}
	b.Flush()
}

func TestWriterInterval(t *testing.T) {
	t.Parallel()
	var out countingWriter
	log := zerolog.New(New(&out, 20*time.Millisecond))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				log.Info().Str("line", fmt.Sprintf("%d-%d", i, j)).Msg("")
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		all := strings.Join(out.snapshot(), "")
		if strings.Count(all, "\n") == 800 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the interval, %d of 800 lines were written", strings.Count(all, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(out.snapshot()); n > 10 {
		t.Errorf("800 lines in %d writes: not batched", n)
	}
}

// TestWriterReusesBuffers: once running, a line costs a copy and no
// allocation — a batch's buffer is reused after it is written.
func TestWriterReusesBuffers(t *testing.T) {
	b := New(io.Discard, time.Hour)
	line := []byte(strings.Repeat("x", 199) + "\n")
	lines := 20 * Size / len(line)
	for range lines / 10 { // warm up: fill and write a few batches
		b.Write(line)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range lines {
		b.Write(line)
	}
	runtime.ReadMemStats(&after)
	// testing.AllocsPerRun rounds down to whole allocations per run.
	if allocs := after.Mallocs - before.Mallocs; allocs > 5 {
		t.Errorf("%d allocations for %d lines (%d batches)", allocs, lines, lines*len(line)/Size)
	}
	b.Flush()
}
