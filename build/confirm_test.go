package build

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
)

// recordingSleep is an injected Sleep that returns at once and records
// how long it was asked to wait.
type recordingSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recordingSleep) Sleep(_ context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return nil
}

func (h *harness) confirmCycle(c Confirm) {
	h.t.Helper()
	opts := h.options()
	opts.Confirm = c
	if _, err := Build(context.Background(), opts); err != nil {
		h.t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
}

// TestConfirmedOutage: a host that stops answering is a major outage, our
// incident open and the disagreement shown, after one cycle whose two
// re-probes confirm the failure; a single lost probe is answered by the
// first re-probe and changes nothing.
func TestConfirmedOutage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sleep := &recordingSleep{}
	c := Confirm{Reprobes: 2, Spacing: 3 * time.Second, Sleep: sleep.Sleep}
	h.confirmCycle(c)
	if len(sleep.waits) != 0 {
		t.Fatalf("re-probes in a calm world: %v", sleep.waits)
	}

	h.world.Set("cohere", func(p *buildtest.Page) { p.DropProbes = 1 })
	before := h.world.Probes("cohere")
	h.confirmCycle(c)
	doc := h.service("cohere")
	if doc.Status != api.Operational || doc.Sources.Probe.State != api.ProbeOK || doc.Sources.Probe.Attempts != 2 {
		t.Fatalf("one lost probe: %s, probe %+v", doc.Status, doc.Sources.Probe)
	}
	if n := h.world.Probes("cohere") - before; n != 2 || len(sleep.waits) != 1 {
		t.Fatalf("one lost probe: %d probes, waits %v", n, sleep.waits)
	}

	sleep.waits = nil
	h.world.Set("cohere", func(p *buildtest.Page) { p.APIDown = true })
	h.confirmCycle(c)
	doc = h.service("cohere")
	d := doc.Sources.Disagreement
	if doc.Status != api.MajorOutage || doc.Sources.Probe.Attempts != 3 || d == nil || d.By != api.EvidenceProbe {
		t.Fatalf("hard outage after one cycle: %s, probe %+v, disagreement %+v", doc.Status, doc.Sources.Probe, d)
	}
	if len(doc.Incidents) == 0 || doc.Incidents[0].Source != api.SourceProbe || doc.Incidents[0].EndedAt != nil {
		t.Fatalf("our incident is not open: %+v", doc.Incidents)
	}
	if len(sleep.waits) != 2 || sleep.waits[0] != 3*time.Second {
		t.Fatalf("waits %v, want two of 3 s", sleep.waits)
	}
}

// TestConfirmBoundedByTimeout: re-probes stop when the service's time is
// up; the failures so far still count.
func TestConfirmBoundedByTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.Set("cohere", func(p *buildtest.Page) { p.APIDown = true })
	c := Confirm{Reprobes: 5, Spacing: time.Hour} // the real timer: the timeout cuts it
	opts := h.options()
	opts.Confirm, opts.Timeout = c, 300*time.Millisecond
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if doc := h.service("cohere"); doc.Sources.Probe.State != api.ProbeFailed || doc.Sources.Probe.Attempts != 0 {
		t.Fatalf("probe %+v: no re-probe fits in the timeout", doc.Sources.Probe)
	}
}
