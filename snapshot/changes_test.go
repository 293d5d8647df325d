package snapshot

import (
	"testing"
	"time"
)

// TestPruneChanges checks both bounds of the log, in one pass: entries older
// than KeepChanges go, then the oldest beyond the cap; the log's start moves
// to the newest dropped entry and ids are never reused.
func TestPruneChanges(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := NewHistory()
	start := now.Add(-100 * 24 * time.Hour)
	for i := range 20 {
		// Ten entries older than 90 days, ten within.
		h.AddChange(Change{Type: ChangeStatus, Service: "svc", Time: start.Add(time.Duration(i) * 24 * time.Hour * 10 / 2), NewStatus: Operational})
	}
	firstID := h.Changes[0].ID
	if firstID != start.UnixMicro() {
		t.Errorf("first id %d, want the microseconds of the first change", firstID)
	}
	h.pruneChanges(now, 100)
	for _, c := range h.Changes {
		if now.Sub(c.Time) > KeepChanges {
			t.Errorf("change at %s older than %s kept", c.Time, KeepChanges)
		}
	}
	kept := len(h.Changes)
	if kept == 0 || kept == 20 {
		t.Fatalf("%d kept", kept)
	}
	h.pruneChanges(now, 3)
	if len(h.Changes) != 3 {
		t.Fatalf("%d kept, want the cap of 3", len(h.Changes))
	}
	if !h.ChangesSince.Before(h.Changes[0].Time) || h.ChangesSince.Before(start) {
		t.Errorf("log start %s, oldest kept %s", h.ChangesSince, h.Changes[0].Time)
	}
	next := h.NextChangeID
	h.pruneChanges(now.Add(365*24*time.Hour), 3)
	if len(h.Changes) != 0 {
		t.Fatalf("%d kept a year later", len(h.Changes))
	}
	if c := h.AddChange(Change{Type: ChangeStatus, Service: "svc", Time: now, NewStatus: Degraded}); c.ID != next {
		t.Errorf("id after an emptied log = %d, want %d", c.ID, next)
	}
	// A clock that stepped back does not break the time order.
	if c := h.AddChange(Change{Type: ChangeStatus, Service: "svc", Time: now.Add(-time.Hour), NewStatus: Operational}); c.Time.Before(now) {
		t.Errorf("change dated %s before the previous one", c.Time)
	}
	if err := h.checkValues(); err != nil {
		t.Error(err)
	}
	h.Changes[0], h.Changes[1] = h.Changes[1], h.Changes[0]
	if err := h.checkValues(); err == nil {
		t.Error("a log out of order is accepted")
	}
}

func TestStatusAtBeforeAndAfter(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 14, 0, 0, 0, time.UTC)
	log := []Change{
		{ID: 1, Type: ChangeStatus, Service: "openai", Time: t0, OldStatus: Operational, NewStatus: MajorOutage},
		{ID: 2, Type: ChangeStatus, Service: "openai", Time: t0.Add(10 * time.Minute), OldStatus: MajorOutage, NewStatus: Operational},
	}
	for _, c := range []struct {
		at    time.Time
		want  Status
		since time.Time
	}{
		{t0.Add(-time.Minute), Operational, time.Time{}},
		{t0.Add(3 * time.Minute), MajorOutage, t0},
		{t0.Add(time.Hour), Operational, t0.Add(10 * time.Minute)},
	} {
		got, since, ok := StatusAt(log, "openai", c.at, Operational)
		if !ok || got != c.want || !since.Equal(c.since) {
			t.Errorf("at %s: %s since %s, want %s since %s", c.at, got, since, c.want, c.since)
		}
	}
	if got, _, ok := StatusAt(log, "anthropic", t0, Degraded); !ok || got != Degraded {
		t.Errorf("a service without changes reads %s, want its current status", got)
	}
}
