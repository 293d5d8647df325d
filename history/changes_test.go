package history

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestPruneChanges checks both bounds of the log, in one pass: entries older
// than KeepChanges go, then the oldest beyond the cap; the log's start moves
// to the newest dropped entry and ids are never reused.
func TestPruneChanges(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := New()
	start := now.Add(-100 * 24 * time.Hour)
	for i := range 20 {
		// Ten entries older than 90 days, ten within.
		h.AddChange(api.Change{Type: api.ChangeStatus, Service: "svc", Time: start.Add(time.Duration(i) * 24 * time.Hour * 10 / 2), NewStatus: api.Operational})
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
	if c := h.AddChange(api.Change{Type: api.ChangeStatus, Service: "svc", Time: now, NewStatus: api.Degraded}); c.ID != next {
		t.Errorf("id after an emptied log = %d, want %d", c.ID, next)
	}
	// A clock that stepped back does not break the time order.
	if c := h.AddChange(api.Change{Type: api.ChangeStatus, Service: "svc", Time: now.Add(-time.Hour), NewStatus: api.Operational}); c.Time.Before(now) {
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
	t.Parallel()
	t0 := time.Date(2026, 11, 1, 14, 0, 0, 0, time.UTC)
	log := []api.Change{
		{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: t0, OldStatus: api.Operational, NewStatus: api.MajorOutage},
		{ID: 2, Type: api.ChangeStatus, Service: "openai", Time: t0.Add(10 * time.Minute), OldStatus: api.MajorOutage, NewStatus: api.Operational},
	}
	for _, c := range []struct {
		at    time.Time
		want  api.Status
		since time.Time
	}{
		{t0.Add(-time.Minute), api.Operational, time.Time{}},
		{t0.Add(3 * time.Minute), api.MajorOutage, t0},
		{t0.Add(time.Hour), api.Operational, t0.Add(10 * time.Minute)},
	} {
		got, since, ok := StatusAt(log, "openai", c.at, api.Operational)
		if !ok || got != c.want || !since.Equal(c.since) {
			t.Errorf("at %s: %s since %s, want %s since %s", c.at, got, since, c.want, c.since)
		}
	}
	if got, _, ok := StatusAt(log, "anthropic", t0, api.Degraded); !ok || got != api.Degraded {
		t.Errorf("a service without changes reads %s, want its current status", got)
	}
}

// statusAtByPass is StatusAt as a pass over the whole log, as it was before
// the binary search: the reference it is checked and measured against.
func statusAtByPass(log []api.Change, slug string, at time.Time, current api.Status) (api.Status, time.Time, bool) {
	var before, after *api.Change
	for i := range log {
		c := &log[i]
		if c.Service != slug || c.Type != api.ChangeStatus {
			continue
		}
		if c.Time.After(at) {
			after = c
			break
		}
		before = c
	}
	switch {
	case before != nil:
		return before.NewStatus, before.Time, true
	case after != nil:
		return after.OldStatus, time.Time{}, after.OldStatus != ""
	default:
		return current, time.Time{}, current != ""
	}
}

// BenchmarkStatusAt answers ?at= for one service from a full log (50 000
// changes of 26 services, the cap): by a pass over it, as before; by
// search in it; and by search in the service's own changes, as the server
// now keeps them.
func BenchmarkStatusAt(b *testing.B) {
	t0 := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	var log []api.Change
	byService := map[string][]api.Change{}
	for i := range MaxChanges {
		c := api.Change{ID: int64(i + 1), Type: api.ChangeStatus, Service: fmt.Sprintf("svc%02d", i%26),
			Time: t0.Add(time.Duration(i) * 2 * time.Minute), OldStatus: api.Operational, NewStatus: api.Degraded}
		log = append(log, c)
		byService[c.Service] = append(byService[c.Service], c)
	}
	at := t0.Add(time.Duration(MaxChanges) * time.Minute) // the middle of the log
	for _, c := range []struct {
		name string
		find func() (api.Status, time.Time, bool)
	}{
		{"pass", func() (api.Status, time.Time, bool) { return statusAtByPass(log, "svc07", at, api.Operational) }},
		{"search", func() (api.Status, time.Time, bool) { return StatusAt(log, "svc07", at, api.Operational) }},
		{"search-service", func() (api.Status, time.Time, bool) {
			return StatusAt(byService["svc07"], "svc07", at, api.Operational)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, ok := c.find(); !ok {
					b.Fatal("no status")
				}
			}
		})
	}
}

// TestStatusAtMatchesAPass: the binary search answers what a pass over the
// whole log answers, on logs that mix services and change types, with
// changes sharing a time, and for times before, between, on and after them.
func TestStatusAtMatchesAPass(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	statuses := []api.Status{"", api.Operational, api.Degraded, api.MajorOutage}
	for round := range 200 {
		var log []api.Change
		at := t0
		for id := range rng.IntN(40) {
			at = at.Add(time.Duration(rng.IntN(3)) * time.Minute) // 0: the same time as the last
			typ := api.ChangeStatus
			if rng.IntN(4) == 0 {
				typ = api.ChangeIncidentOpened
			}
			log = append(log, api.Change{ID: int64(id + 1), Type: typ, Service: []string{"a", "b", "c"}[rng.IntN(3)], Time: at,
				OldStatus: statuses[rng.IntN(len(statuses))], NewStatus: statuses[1+rng.IntN(len(statuses)-1)]})
		}
		for range 20 {
			q := t0.Add(time.Duration(rng.IntN(90)-5) * time.Minute)
			for _, slug := range []string{"a", "b", "c", "d"} {
				current := statuses[rng.IntN(len(statuses))]
				s, since, ok := StatusAt(log, slug, q, current)
				ws, wsince, wok := statusAtByPass(log, slug, q, current)
				if s != ws || !since.Equal(wsince) || ok != wok {
					t.Fatalf("round %d, %s at %s: %s %s %v, want %s %s %v (log %+v)", round, slug, q, s, since, ok, ws, wsince, wok, log)
				}
			}
		}
	}
}

// TestAddStatusChangeRecovers runs one subject's status through a series of
// changes and checks which of them also log a recovery: back to
// operational from degraded or an outage, across a stretch of unknown,
// never from maintenance or at a first check, and of that subject only.
func TestAddStatusChangeRecovers(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	sonnet := &api.ChangeModel{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5"}
	type step struct {
		old, new api.Status
		// recovered is the old status of the recovery logged after the
		// change; "" for none.
		recovered api.Status
	}
	for _, tc := range []struct {
		name string
		// base is the subject; other another subject, whose move from an
		// outage to unknown is logged before each step: read as this
		// subject's, it would make every step from unknown a recovery.
		base, other api.Change
		steps       []step
	}{
		{"service", api.Change{Type: api.ChangeStatus, Service: "svc"}, api.Change{Type: api.ChangeStatus, Service: "other"}, []step{
			{"", api.Operational, ""}, // a first check recovers nothing
			{api.Operational, api.MajorOutage, ""},
			{api.MajorOutage, api.Operational, api.MajorOutage},
			{api.Operational, api.Degraded, ""},
			{api.Degraded, api.Operational, api.Degraded},
			{api.Operational, api.Maintenance, ""},
			{api.Maintenance, api.Operational, ""},
			{api.Operational, api.PartialOutage, ""},
			{api.PartialOutage, api.Unknown, ""},
			{api.Unknown, api.Operational, api.PartialOutage}, // the outage, before the unknown
			{api.Operational, api.Unknown, ""},
			{api.Unknown, api.Operational, ""},
			{api.Operational, api.MajorOutage, ""},
			{api.MajorOutage, api.Degraded, ""}, // better, not yet recovered
			{api.Degraded, api.Operational, api.Degraded},
		}},
		{"surface", api.Change{Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: "app"},
			api.Change{Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: "agent"}, []step{
				{"", api.MajorOutage, ""},
				{api.MajorOutage, api.Operational, api.MajorOutage},
				{api.Operational, api.Unknown, ""},
				{api.Unknown, api.Operational, ""},
			}},
		{"model", api.Change{Type: api.ChangeModelStatus, Service: "anthropic", Model: sonnet},
			api.Change{Type: api.ChangeModelStatus, Service: "anthropic", Model: &api.ChangeModel{ID: "anthropic/claude-opus-4.1"}}, []step{
				{api.Operational, api.Unknown, ""},
				{api.Unknown, api.Operational, ""},
				{api.Operational, api.PartialOutage, ""},
				{api.PartialOutage, api.Unknown, ""},
				{api.Unknown, api.Operational, api.PartialOutage},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := New()
			other := tc.other
			other.OldStatus, other.NewStatus = api.MajorOutage, api.Unknown
			for i, s := range tc.steps {
				other.Time = now.Add(time.Duration(i) * time.Minute)
				h.AddStatusChange(other)
				before := len(h.Changes)
				c := tc.base
				c.Time, c.OldStatus, c.NewStatus = now.Add(time.Duration(i)*time.Minute), s.old, s.new
				h.AddStatusChange(c)
				logged := h.Changes[before:]
				if logged[0].Type != c.Type || logged[0].OldStatus != s.old || logged[0].NewStatus != s.new {
					t.Fatalf("step %d: logged %+v first, want the status change", i, logged[0])
				}
				if s.recovered == "" {
					if len(logged) != 1 {
						t.Errorf("step %d (%s → %s): logged %+v, want no recovery", i, s.old, s.new, logged[1:])
					}
					continue
				}
				want, _ := c.Type.Recovery()
				if len(logged) != 2 {
					t.Fatalf("step %d (%s → %s): logged %d entries, want the change and its recovery", i, s.old, s.new, len(logged))
				}
				r := logged[1]
				if r.Type != want || r.OldStatus != s.recovered || r.NewStatus != api.Operational || r.Subject() != c.Subject() ||
					!r.Time.Equal(c.Time) || r.ID != logged[0].ID+1 {
					t.Errorf("step %d: recovery %+v, want %s of %s from %s", i, r, want, c.Subject(), s.recovered)
				}
			}
		})
	}
}

// TestOutageEnded: the outage a recovery ends begins at its subject's
// first change into degraded or worse of the stretch, an unknown before
// it not counted, and is as bad as the worst of it; the log must reach
// its start.
func TestOutageEnded(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return start.Add(time.Duration(min) * time.Minute) }
	step := func(min int, old, new api.Status) api.Change {
		return api.Change{Type: api.ChangeStatus, Service: "openai", Time: at(min), OldStatus: old, NewStatus: new}
	}
	elsewhere := api.Change{Type: api.ChangeStatus, Service: "anthropic", Time: at(1), OldStatus: api.Operational, NewStatus: api.MajorOutage}
	surface := api.Change{Type: api.ChangeSurfaceStatus, Service: "openai", Surface: catalog.SurfaceApp, Time: at(2), OldStatus: api.Operational, NewStatus: api.MajorOutage}
	rec := func(min int, from api.Status) api.Change {
		return api.Change{Type: api.ChangeServiceRecovered, Service: "openai", Time: at(min), OldStatus: from, NewStatus: api.Operational}
	}
	tests := []struct {
		name  string
		log   []api.Change
		rec   api.Change
		since time.Time
		worst api.Status
		ok    bool
	}{
		{"one outage", []api.Change{step(0, "", api.Operational), step(10, api.Operational, api.MajorOutage), elsewhere, surface,
			step(52, api.MajorOutage, api.Operational)}, rec(52, api.MajorOutage), at(10), api.MajorOutage, true},
		{"through unknown, worse then better", []api.Change{step(0, api.Maintenance, api.Unknown), step(5, api.Unknown, api.Degraded),
			step(9, api.Degraded, api.MajorOutage), step(20, api.MajorOutage, api.Unknown), step(30, api.Unknown, api.PartialOutage),
			step(40, api.PartialOutage, api.Operational)}, rec(40, api.PartialOutage), at(5), api.MajorOutage, true},
		{"from a first check", []api.Change{step(3, "", api.Degraded), step(9, api.Degraded, api.Operational)},
			rec(9, api.Degraded), at(3), api.Degraded, true},
		{"its start pruned", []api.Change{step(20, api.MajorOutage, api.Unknown), step(30, api.Unknown, api.Operational)},
			rec(30, api.MajorOutage), time.Time{}, "", false},
		{"no recovery", []api.Change{step(10, api.Operational, api.MajorOutage)}, step(20, api.MajorOutage, api.Operational), time.Time{}, "", false},
	}
	for _, tt := range tests {
		since, worst, ok := OutageEnded(tt.log, tt.rec)
		if !since.Equal(tt.since) || worst != tt.worst || ok != tt.ok {
			t.Errorf("%s: %s, %q, %v; want %s, %q, %v", tt.name, since, worst, ok, tt.since, tt.worst, tt.ok)
		}
	}
}
