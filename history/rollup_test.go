package history

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// recordDays records a check every 5 minutes from start for n days, in
// status(t).
func recordDays(sh *ServiceHistory, start time.Time, n int, status func(time.Time) api.Status) time.Time {
	t := start
	for ; t.Before(start.Add(time.Duration(n) * Day)); t = t.Add(5 * time.Minute) {
		sh.Record(t, status(t), new(100.0))
	}
	return t
}

func TestRollUp(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	h := New()
	sh := h.Track("svc")
	// Day 2 has a major outage from 10:00 to 11:00 and a maintenance hour.
	end := recordDays(sh, start, 3, func(t time.Time) api.Status {
		switch {
		case t.Day() == 2 && t.Hour() == 10:
			return api.MajorOutage
		case t.Day() == 2 && t.Hour() == 20:
			return api.Maintenance
		}
		return api.Operational
	})
	started := start.Add(Day + 10*time.Hour)
	h.Incidents = []api.Incident{{ID: "svc-1", Service: "svc", Severity: api.Critical, StartedAt: started, EndedAt: new(started.Add(time.Hour))}}
	h.RollUp(end.Add(30 * time.Minute))

	rows := h.Days.Rows(KindService, "svc", "", "")
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3 (the day in progress has none)", len(rows))
	}
	day2 := rows[1]
	if day2.Date != "2026-03-02" || day2.Time.Major != 3600 || day2.Time.Maintenance != 3600 || day2.Time.Operational != 22*3600 {
		t.Errorf("day 2 = %+v", day2)
	}
	if up := day2.Uptime(); up == nil || *up != 95.652 { // 1 h down in 23 observed
		t.Errorf("day 2 uptime %v, want 95.652", deref(up))
	}
	if day2.Coverage() != 1 || day2.Incidents != 1 || day2.Critical != 1 || day2.Time.Probes != 288 {
		t.Errorf("day 2 coverage %v, incidents %d/%d, probes %d", day2.Coverage(), day2.Incidents, day2.Critical, day2.Time.Probes)
	}
	if rows[0].Incidents != 0 || rows[0].Uptime() == nil || *rows[0].Uptime() != 100 {
		t.Errorf("day 1 = %+v", rows[0])
	}

	// Forty days on, the buckets of March are pruned: the rows stay as
	// they were, and the later days are added.
	later := recordDays(sh, end, 40, func(time.Time) api.Status { return api.Degraded })
	h.RollUp(later)
	h.Prune(later)
	h.RollUp(later)
	if got := h.Days.Rows(KindService, "svc", "2026-03-02", "2026-03-02"); len(got) != 1 || !reflect.DeepEqual(got[0], day2) {
		t.Errorf("day 2 after the buckets were pruned: %+v, want %+v", got, day2)
	}
	if n := len(h.Days.Rows(KindService, "svc", "", "")); n != 43 {
		t.Errorf("%d rows after 43 whole days, want 43", n)
	}
}

// TestLongWindow: the 90-day window adds the rows before the split to the
// buckets after it, and equals the uptime of the same time held in buckets.
func TestLongWindow(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	status := func(t time.Time) api.Status {
		if t.Hour() == 3 && t.Day()%7 == 0 {
			return api.MajorOutage
		}
		return api.Operational
	}
	// Two histories of the same 100 days: one rolled up every day, as the
	// builds do, then pruned; one whose buckets are kept whole.
	rolled, whole := New(), New()
	t0 := start
	for range 100 {
		t0 = recordDays(rolled.Track("svc"), t0, 1, status)
		rolled.RollUp(t0)
		rolled.Prune(t0)
	}
	recordDays(whole.Track("svc"), start, 100, status)
	now := t0.Add(6 * time.Hour) // the last check holds 15 minutes; the rest is no data

	got, cov := rolled.LongWindow("svc", Window90d, now)
	want := whole.Lookup("svc").UptimePercent(now.Add(-Window90d), now)
	if got == nil || want == nil || math.Abs(*got-*want) > 0.002 {
		t.Errorf("90d uptime %v, want %v (from whole buckets)", deref(got), deref(want))
	}
	if wantCov := whole.Lookup("svc").window(now.Add(-Window90d), now).observed() / Window90d.Seconds(); math.Abs(cov-wantCov) > 0.002 {
		t.Errorf("90d coverage %v, want %v", cov, wantCov)
	}
	// A year holds the 100 days only.
	_, cov = rolled.LongWindow("svc", Window1y, now)
	if want := (100*Day + 15*time.Minute).Seconds() / Window1y.Seconds(); math.Abs(cov-want) > 0.002 {
		t.Errorf("1y coverage %v, want %v", cov, want)
	}
	if up, cov := New().LongWindow("none", Window1y, now); up != nil || cov != 0 {
		t.Errorf("no data: %v %v", up, cov)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
