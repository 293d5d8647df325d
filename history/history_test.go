package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// base is the fixed start of every history scenario: a bucket boundary.
var base = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// at is base plus d.
func at(d time.Duration) time.Time { return base.Add(d) }

const day = 24 * time.Hour

// checks records a check with status s (and no successful probe) every step
// in [from, to). Each check's status is credited until the next one.
func checks(sh *ServiceHistory, from, to time.Time, step time.Duration, s api.Status) {
	for t := from; t.Before(to); t = t.Add(step) {
		sh.Record(t, s, nil)
	}
}

// scenario is a run of checks: each segment is checked every 5 minutes
// from the end of the previous segment, and a final check at the end closes
// the last segment (so that, evaluated at that end, the open interval is empty).
type segment struct {
	d time.Duration
	s api.Status
}

func scenario(segs ...segment) (*ServiceHistory, time.Time) {
	sh := &ServiceHistory{}
	t := base
	for _, sg := range segs {
		checks(sh, t, t.Add(sg.d), 5*time.Minute, sg.s)
		t = t.Add(sg.d)
	}
	sh.Record(t, api.Operational, nil)
	return sh, t
}

func fmtPct(p *float64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

// checkPct compares exactly: every expected value k/1000 is the double
// nearest to k/1000, which is what the code's Floor(x*1000)/1000 yields.
func checkPct(t *testing.T, what string, got *float64, want *float64) {
	t.Helper()
	if (got == nil) != (want == nil) || (got != nil && *got != *want) {
		t.Errorf("%s = %s, want %s", what, fmtPct(got), fmtPct(want))
	}
}

func pct(v float64) *float64 { return &v }

// total returns the seconds of every status in the service's buckets.
func total(sh *ServiceHistory) (sum Bucket) {
	for _, b := range sh.Buckets {
		sum.Operational += b.Operational
		sum.Degraded += b.Degraded
		sum.Partial += b.Partial
		sum.Major += b.Major
		sum.Maintenance += b.Maintenance
		sum.Unknown += b.Unknown
		sum.LatencyMs += b.LatencyMs
		sum.Probes += b.Probes
	}
	return sum
}

func allSeconds(b Bucket) float64 {
	return b.Operational + b.Degraded + b.Partial + b.Major + b.Maintenance + b.Unknown
}

func TestUptimePercent(t *testing.T) {
	t.Parallel()
	const h = time.Hour
	tests := []struct {
		name string
		segs []segment
		want *float64
	}{
		{"all operational", []segment{{10 * h, api.Operational}}, pct(100)},
		{"degraded counts as up", []segment{{5 * h, api.Operational}, {5 * h, api.Degraded}}, pct(100)},
		{"all major", []segment{{3 * h, api.MajorOutage}}, pct(0)},
		// 1 h major of 4 h observed: 100 × 3/4.
		{"major outage is fully down", []segment{{3 * h, api.Operational}, {h, api.MajorOutage}}, pct(75)},
		// 1 h partial of 10 h observed: down = 0.3 × 3600 = 1080 s;
		// 100 × (36000 − 1080) / 36000 = 97.
		{"partial outage counts 30%", []segment{{9 * h, api.Operational}, {h, api.PartialOutage}}, pct(97)},
		// All partial: 100 × (1 − 0.3) = 70.
		{"all partial", []segment{{2 * h, api.PartialOutage}}, pct(70)},
		// The 5 h of maintenance are left out: still 1 h partial of 10 h observed.
		{"maintenance excluded", []segment{{9 * h, api.Operational}, {5 * h, api.Maintenance}, {h, api.PartialOutage}}, pct(97)},
		// The hour of unknown is left out: 1 h major of 3 h observed is
		// 66.666…, rounded down (not to nearest 66.667).
		{"unknown excluded, rounded down", []segment{{2 * h, api.Operational}, {h, api.Unknown}, {h, api.MajorOutage}}, pct(66.666)},
		// 2 h 20 m operational, 10 min major: 100 × 140/150 = 93.333….
		{"short outage", []segment{{140 * time.Minute, api.Operational}, {10 * time.Minute, api.MajorOutage}}, pct(93.333)},
		{"all unknown", []segment{{4 * h, api.Unknown}}, nil},
		{"all maintenance", []segment{{4 * h, api.Maintenance}}, nil},
		{"maintenance and unknown only", []segment{{2 * h, api.Maintenance}, {2 * h, api.Unknown}}, nil},
		{"no checks", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, end := scenario(tt.segs...)
			checkPct(t, "UptimePercent", sh.UptimePercent(base, end), tt.want)
			// Uptime(end) covers the same data in all three windows (they all
			// reach back past base).
			u := sh.Uptime(end)
			checkPct(t, "Uptime.H24", u.H24, tt.want)
			checkPct(t, "Uptime.D7", u.D7, tt.want)
			checkPct(t, "Uptime.D30", u.D30, tt.want)
		})
	}

	t.Run("empty history", func(t *testing.T) {
		var sh ServiceHistory
		checkPct(t, "UptimePercent", sh.UptimePercent(base, at(day)), nil)
		if u := sh.Uptime(at(day)); u.H24 != nil || u.D7 != nil || u.D30 != nil {
			t.Errorf("Uptime = %s/%s/%s, want nil/nil/nil", fmtPct(u.H24), fmtPct(u.D7), fmtPct(u.D30))
		}
	})
}

func TestRecordMaxHold(t *testing.T) {
	t.Parallel()
	// A major outage is seen at 00:00; the next check comes only at 01:00 and
	// sees the service up. The outage is credited for MaxHold (15 min) only:
	// the other 45 min are no data.
	sh := &ServiceHistory{}
	sh.Record(base, api.MajorOutage, nil)
	sh.Record(at(time.Hour), api.Operational, nil)

	want := []Bucket{{T: base.Unix(), Major: 900}}
	if !reflect.DeepEqual(sh.Buckets, want) {
		t.Errorf("Buckets = %+v, want %+v", sh.Buckets, want)
	}
	if !sh.LastChecked.Equal(at(time.Hour)) || sh.LastStatus != api.Operational {
		t.Errorf("last check = %v %s, want %v operational", sh.LastChecked, sh.LastStatus, at(time.Hour))
	}
	// Evaluated at 02:00: 900 s major + the open interval, operational from
	// 01:00 but capped at 01:15 (900 s). 100 × 900/1800 = 50. Crediting the
	// whole gaps would give 100 × 3600/7200 = 50 too, so also check 01:10,
	// where the open interval is 600 s: 100 × 600/1500 = 40.
	checkPct(t, "UptimePercent(00:00, 02:00)", sh.UptimePercent(base, at(2*time.Hour)), pct(50))
	checkPct(t, "UptimePercent(00:00, 01:10)", sh.UptimePercent(base, at(70*time.Minute)), pct(40))
}

func TestUptimeOpenInterval(t *testing.T) {
	t.Parallel()
	// Operational checks every 5 min in [00:00, 01:00), then a major check at
	// 01:00 and nothing after: 3600 s operational are credited; the major
	// status holds from 01:00 until "to", at most 15 min.
	sh := &ServiceHistory{}
	checks(sh, base, at(time.Hour), 5*time.Minute, api.Operational)
	sh.Record(at(time.Hour), api.MajorOutage, nil)

	tests := []struct {
		name string
		to   time.Time
		want *float64
	}{
		// Nothing since the last check yet: 100 × 3600/3600.
		{"at the last check", at(time.Hour), pct(100)},
		// 600 s major: 100 × 3600/4200 = 85.714285….
		{"10 min later", at(70 * time.Minute), pct(85.714)},
		// 900 s major: 100 × 3600/4500 = 80.
		{"15 min later", at(75 * time.Minute), pct(80)},
		// Still capped at 900 s.
		{"2 h later", at(3 * time.Hour), pct(80)},
		{"30 days later", at(30 * day), pct(80)},
		// "to" before the last check: only buckets that start before "to".
		{"to inside the credited time", at(30 * time.Minute), pct(100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkPct(t, "UptimePercent", sh.UptimePercent(base, tt.to), tt.want)
		})
	}

	t.Run("window starting after the last check", func(t *testing.T) {
		// [01:05, 01:10): only the open interval, clipped to the window: 300 s major.
		checkPct(t, "UptimePercent", sh.UptimePercent(at(65*time.Minute), at(70*time.Minute)), pct(0))
		// [01:20, 02:00): the hold ended at 01:15; nothing observed.
		checkPct(t, "UptimePercent", sh.UptimePercent(at(80*time.Minute), at(2*time.Hour)), nil)
	})

	t.Run("open unknown is not observed", func(t *testing.T) {
		sh := &ServiceHistory{}
		sh.Record(base, api.Unknown, nil)
		checkPct(t, "UptimePercent", sh.UptimePercent(base, at(10*time.Minute)), nil)
	})

	t.Run("single check", func(t *testing.T) {
		sh := &ServiceHistory{}
		sh.Record(base, api.PartialOutage, nil)
		// 600 s partial: 100 × (600 − 180)/600 = 70.
		checkPct(t, "UptimePercent", sh.UptimePercent(base.Add(-time.Hour), at(10*time.Minute)), pct(70))
		if len(sh.Buckets) != 0 {
			t.Errorf("a single check without latency created buckets: %+v", sh.Buckets)
		}
	})
}

func TestUptimeWindows(t *testing.T) {
	t.Parallel()
	// 30 days of checks every 5 min, all operational except a one-hour major
	// outage that started exactly 3 days before now.
	now := at(30 * day)
	outage := now.Add(-3 * day)
	sh := &ServiceHistory{}
	for t := base; t.Before(now); t = t.Add(5 * time.Minute) {
		s := api.Operational
		if !t.Before(outage) && t.Before(outage.Add(time.Hour)) {
			s = api.MajorOutage
		}
		sh.Record(t, s, nil)
	}
	sh.Record(now, api.Operational, nil)

	sum := total(sh)
	if sum.Operational != 719*3600 || sum.Major != 3600 || allSeconds(sum) != 30*86400 {
		t.Fatalf("credited %+v, want 719 h operational + 1 h major", sum)
	}

	u := sh.Uptime(now)
	// 24h: the outage is older: 100.
	checkPct(t, "24h", u.H24, pct(100))
	// 7d: 1 h down of 168 h: 100 × 167/168 = 99.404761… → 99.404.
	checkPct(t, "7d", u.D7, pct(99.404))
	// 30d: 1 h down of 720 h: 100 × 719/720 = 99.861111… → 99.861.
	checkPct(t, "30d", u.D30, pct(99.861))

	// Four days later (checks went on, all operational), the 7d window still
	// has it, so with 7 × 24 = 168 h observed it is unchanged.
	later := now.Add(4 * day)
	checks(sh, now, later, 5*time.Minute, api.Operational)
	sh.Record(later, api.Operational, nil)
	u = sh.Uptime(later)
	checkPct(t, "24h after 4 days", u.H24, pct(100))
	checkPct(t, "7d after 4 days", u.D7, pct(99.404))
	checkPct(t, "30d after 4 days", u.D30, pct(99.861))

	// Once the outage is more than 7 days old, only the 30d window shows it.
	latest := now.Add(5 * day)
	checks(sh, later, latest, 5*time.Minute, api.Operational)
	sh.Record(latest, api.Operational, nil)
	u = sh.Uptime(latest)
	checkPct(t, "7d after 8 days", u.D7, pct(100))
	checkPct(t, "30d after 8 days", u.D30, pct(99.861))
}

func TestUptimeProratesStraddlingBucket(t *testing.T) {
	t.Parallel()
	// Major outage 00:00–01:00, then operational until 24:30; now is 24:30.
	// The 24h window starts at 00:30, half-way through the first bucket,
	// which therefore counts half: 1800 s observed, all down.
	sh, now := scenario(segment{time.Hour, api.MajorOutage}, segment{23*time.Hour + 30*time.Minute, api.Operational})
	if !now.Equal(at(24*time.Hour + 30*time.Minute)) {
		t.Fatalf("now = %v", now)
	}
	u := sh.Uptime(now)
	// Observed 1800 + 23 × 3600 + 1800 = 86400 s (exactly 24 h), 1800 down:
	// 100 × 84600/86400 = 97.916666… → 97.916. Counting the bucket in
	// full would give 100 × 84600/88200 = 95.918.
	checkPct(t, "24h", u.H24, pct(97.916))
	// The 7d window holds the whole bucket: 100 × 84600/88200 = 95.918367….
	checkPct(t, "7d", u.D7, pct(95.918))

	// A window starting 15 min into the bucket counts three quarters:
	// 2700 s down, observed 2700 + 84600.
	// 100 × 84600/87300 = 96.907216… → 96.907.
	checkPct(t, "from 00:15", sh.UptimePercent(at(15*time.Minute), now), pct(96.907))
}

func TestUptimeRoundsDown(t *testing.T) {
	t.Parallel()
	// Operational checks every 5 min for 7 days; 12 h before the end, one
	// check sees a major outage and a check one second later sees the
	// service up again: exactly 1 s of downtime.
	now := at(7 * day)
	blip := now.Add(-12 * time.Hour)
	sh := &ServiceHistory{}
	for t := base; t.Before(now); t = t.Add(5 * time.Minute) {
		if t.Equal(blip) {
			sh.Record(t, api.MajorOutage, nil)
			sh.Record(t.Add(time.Second), api.Operational, nil)
			continue
		}
		sh.Record(t, api.Operational, nil)
	}
	sh.Record(now, api.Operational, nil)
	if sum := total(sh); sum.Major != 1 {
		t.Fatalf("major seconds = %v, want 1", sum.Major)
	}
	u := sh.Uptime(now)
	// 24h: 100 × 86399/86400 = 99.998842… → 99.998.
	checkPct(t, "24h", u.H24, pct(99.998))
	// 7d: 100 × 604799/604800 = 99.999834… → 99.999 (rounding to nearest
	// would show 100).
	checkPct(t, "7d", u.D7, pct(99.999))
	// 30d: the same 7 days of data.
	checkPct(t, "30d", u.D30, pct(99.999))
}

func TestUptimeRoundsDownExactValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		hours, down int     // whole hourly buckets, of which the first down are major
		want        float64 // exact: 100 × (hours − down)/hours
	}{
		{"500 h, 177 h down", 500, 177, 64.6},   // 100 × 323/500
		{"625 h, 219 h down", 625, 219, 64.96},  // 100 × 406/625
		{"625 h, 422 h down", 625, 422, 32.48},  // 100 × 203/625
		{"1000 h, 354 h down", 1000, 354, 64.6}, // 100 × 646/1000 (UptimePercent has no 30-day limit)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := &ServiceHistory{}
			for i := range tt.hours {
				b := Bucket{T: at(time.Duration(i) * time.Hour).Unix()}
				if i < tt.down {
					b.Major = 3600
				} else {
					b.Operational = 3600
				}
				sh.Buckets = append(sh.Buckets, b)
			}
			checkPct(t, "UptimePercent", sh.UptimePercent(base, at(time.Duration(tt.hours)*time.Hour)), pct(tt.want))
		})
	}
}

func TestCreditSplitsAcrossBuckets(t *testing.T) {
	t.Parallel()
	h := base.Unix()
	tests := []struct {
		name   string
		checks []time.Duration // all operational, no latency
		want   []Bucket
	}{
		{
			// [00:50, 01:05): 600 s in the first hour, 300 s in the second.
			name:   "interval across a boundary",
			checks: []time.Duration{50 * time.Minute, 65 * time.Minute},
			want:   []Bucket{{T: h, Operational: 600}, {T: h + 3600, Operational: 300}},
		},
		{
			// [00:55, 01:55) capped at 01:10: 300 s + 600 s.
			name:   "capped interval across a boundary",
			checks: []time.Duration{55 * time.Minute, 115 * time.Minute},
			want:   []Bucket{{T: h, Operational: 300}, {T: h + 3600, Operational: 600}},
		},
		{
			// [00:45, 01:00) ends exactly on the boundary: no empty second bucket.
			name:   "interval ending on a boundary",
			checks: []time.Duration{45 * time.Minute, 60 * time.Minute},
			want:   []Bucket{{T: h, Operational: 900}},
		},
		{
			// [01:00, 01:10) starts on a boundary.
			name:   "interval starting on a boundary",
			checks: []time.Duration{60 * time.Minute, 70 * time.Minute},
			want:   []Bucket{{T: h + 3600, Operational: 600}},
		},
		{
			// 00:58 → 01:02 → 02:59 → 03:01: 120 + 120 + 900 (capped) + 60 + 60.
			name:   "several boundaries",
			checks: []time.Duration{58 * time.Minute, 62 * time.Minute, 179 * time.Minute, 181 * time.Minute},
			want: []Bucket{
				{T: h, Operational: 120},
				{T: h + 3600, Operational: 120 + 900},
				{T: h + 2*3600, Operational: 60},
				{T: h + 3*3600, Operational: 60},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := &ServiceHistory{}
			for _, d := range tt.checks {
				sh.Record(at(d), api.Operational, nil)
			}
			if !reflect.DeepEqual(sh.Buckets, tt.want) {
				t.Errorf("Buckets = %+v\nwant      %+v", sh.Buckets, tt.want)
			}
		})
	}

	t.Run("random gaps add up", func(t *testing.T) {
		// 3000 checks at pseudo-random gaps of 1 s to 20 min, in a fixed
		// sequence. Each gap is credited min(gap, 15 min) to the previous
		// check's status; the buckets must add up to exactly that, per status.
		rng := rand.New(rand.NewPCG(1, 2))
		statuses := []api.Status{api.Operational, api.Degraded, api.PartialOutage, api.MajorOutage, api.Maintenance, api.Unknown}
		sh := &ServiceHistory{}
		want := map[api.Status]float64{}
		tm := base.Add(17 * time.Second)
		prev := api.Status("")
		for i := range 3000 {
			s := statuses[rng.IntN(len(statuses))]
			if i > 0 {
				gap := time.Duration(1+rng.IntN(1200)) * time.Second
				tm = tm.Add(gap)
				want[prev] += min(gap, MaxHold).Seconds()
			}
			sh.Record(tm, s, nil)
			prev = s
		}
		sum := total(sh)
		got := map[api.Status]float64{
			api.Operational: sum.Operational, api.Degraded: sum.Degraded, api.PartialOutage: sum.Partial,
			api.MajorOutage: sum.Major, api.Maintenance: sum.Maintenance, api.Unknown: sum.Unknown,
		}
		for _, s := range statuses {
			if got[s] != want[s] {
				t.Errorf("%s: %v s credited, want %v", s, got[s], want[s])
			}
		}
		for i, b := range sh.Buckets {
			if b.T%3600 != 0 {
				t.Errorf("bucket %d: T=%d is not on an hour boundary", i, b.T)
			}
			if i > 0 && b.T <= sh.Buckets[i-1].T {
				t.Errorf("bucket %d: T=%d not after %d", i, b.T, sh.Buckets[i-1].T)
			}
			if s := allSeconds(b); s > 3600 {
				t.Errorf("bucket %d holds %v s, more than an hour", i, s)
			}
		}
	})

	t.Run("contiguous checks fill the elapsed time", func(t *testing.T) {
		// Every gap ≤ MaxHold: the buckets add up to last − first exactly.
		rng := rand.New(rand.NewPCG(3, 4))
		sh := &ServiceHistory{}
		first := base.Add(-37 * time.Minute)
		tm := first
		for range 1000 {
			sh.Record(tm, api.Operational, nil)
			tm = tm.Add(time.Duration(1+rng.IntN(900)) * time.Second)
		}
		last := sh.LastChecked
		if got, want := allSeconds(total(sh)), last.Sub(first).Seconds(); got != want {
			t.Errorf("buckets hold %v s, want %v (last − first)", got, want)
		}
		for i, b := range sh.Buckets[1 : len(sh.Buckets)-1] {
			if b.Operational != 3600 {
				t.Errorf("inner bucket %d holds %v s, want a full 3600", i+1, b.Operational)
			}
		}
	})
}

func TestRecordOutOfOrderAndDuplicates(t *testing.T) {
	t.Parallel()
	t.Run("same hour", func(t *testing.T) {
		sh := &ServiceHistory{}
		sh.Record(base, api.Operational, new(100.0))
		sh.Record(at(5*time.Minute), api.Operational, new(110.0))
		sh.Record(at(5*time.Minute), api.MajorOutage, new(120.0)) // duplicate time: credits nothing, status ignored
		sh.Record(at(2*time.Minute), api.MajorOutage, new(130.0)) // out of order: credits nothing, status ignored
		sh.Record(at(10*time.Minute), api.Operational, nil)

		// [00:00, 00:10) operational; every successful probe's latency kept.
		want := []Bucket{{T: base.Unix(), Operational: 600, LatencyMs: 460, Probes: 4, LatBins: map[int]int{27: 1, 28: 2, 29: 1}}}
		if !reflect.DeepEqual(sh.Buckets, want) {
			t.Errorf("Buckets = %+v, want %+v", sh.Buckets, want)
		}
		if !sh.LastChecked.Equal(at(10*time.Minute)) || sh.LastStatus != api.Operational {
			t.Errorf("last check = %v %s, want 00:10 operational", sh.LastChecked, sh.LastStatus)
		}
		checkPct(t, "UptimePercent", sh.UptimePercent(base, at(10*time.Minute)), pct(100))
	})

	t.Run("earlier hours are inserted in order", func(t *testing.T) {
		sh := &ServiceHistory{}
		sh.Record(at(2*time.Hour), api.Operational, new(10.0))
		sh.Record(at(3*time.Hour), api.Operational, new(20.0)) // credits [02:00, 02:15)
		sh.Record(at(30*time.Minute), api.MajorOutage, new(30.0))
		sh.Record(at(time.Hour), api.MajorOutage, new(40.0))
		sh.Record(at(2*time.Hour+5*time.Minute), api.MajorOutage, new(50.0))
		sh.Record(at(3*time.Hour), api.MajorOutage, new(60.0)) // duplicate of the last check

		h := base.Unix()
		want := []Bucket{
			{T: h, LatencyMs: 30, Probes: 1, LatBins: map[int]int{20: 1}},
			{T: h + 3600, LatencyMs: 40, Probes: 1, LatBins: map[int]int{22: 1}},
			{T: h + 2*3600, Operational: 900, LatencyMs: 60, Probes: 2, LatBins: map[int]int{14: 1, 23: 1}},
			{T: h + 3*3600, LatencyMs: 80, Probes: 2, LatBins: map[int]int{18: 1, 24: 1}},
		}
		if !reflect.DeepEqual(sh.Buckets, want) {
			t.Errorf("Buckets = %+v\nwant      %+v", sh.Buckets, want)
		}
		if !sh.LastChecked.Equal(at(3*time.Hour)) || sh.LastStatus != api.Operational {
			t.Errorf("last check = %v %s, want 03:00 operational", sh.LastChecked, sh.LastStatus)
		}
		// 900 s credited + 900 s open interval, all operational.
		checkPct(t, "UptimePercent", sh.UptimePercent(base, at(4*time.Hour)), pct(100))
	})
}

func TestRecordLatency(t *testing.T) {
	t.Parallel()
	sh := &ServiceHistory{}
	sh.Record(base, api.Operational, new(0.0))                  // a 0 ms probe is a probe
	sh.Record(at(5*time.Minute), api.Operational, new(250.5))   // counted
	sh.Record(at(10*time.Minute), api.MajorOutage, nil)         // failed probe: not counted
	sh.Record(at(65*time.Minute), api.Operational, new(99.25))  // next hour
	sh.Record(at(70*time.Minute), api.Operational, new(-0.001)) // negative: not counted
	h := base.Unix()
	want := []Bucket{
		// [00:00, 00:10) operational, [00:10, 00:25) major (capped).
		{T: h, Operational: 600, Major: 900, LatencyMs: 250.5, Probes: 2, LatBins: map[int]int{0: 1, 32: 1}},
		// [01:05, 01:10) operational.
		{T: h + 3600, Operational: 300, LatencyMs: 99.25, Probes: 1, LatBins: map[int]int{27: 1}},
	}
	if !reflect.DeepEqual(sh.Buckets, want) {
		t.Errorf("Buckets = %+v\nwant      %+v", sh.Buckets, want)
	}
}

func TestHistoryService(t *testing.T) {
	t.Parallel()
	h := New()
	if h.Version != HistoryVersion || h.Services == nil || len(h.Services) != 0 || h.Incidents != nil {
		t.Errorf("New() = %+v", h)
	}
	a := h.Track("openai")
	a.Record(base, api.Operational, nil)
	if h.Track("openai") != a {
		t.Error("Service returned a different pointer the second time")
	}
	if len(h.Services) != 1 {
		t.Errorf("len(Services) = %d, want 1", len(h.Services))
	}
	var zero History
	if zero.Track("x") == nil || zero.Services["x"] == nil {
		t.Error("Service on a zero History did not create the entry")
	}
}

func incident(id string, started time.Time, ended *time.Time) api.Incident {
	return api.Incident{ID: id, Service: "openai", Headline: id, Severity: api.Minor, StartedAt: started, EndedAt: ended,
		Status: "resolved", Source: api.SourceOfficial, UpdatedAt: started}
}

func ptr[T any](v T) *T { return &v }

func ids(list []api.Incident) []string {
	out := make([]string, len(list))
	for i, inc := range list {
		out[i] = inc.ID
	}
	return out
}

func TestPruneBuckets(t *testing.T) {
	t.Parallel()
	now := at(40*day + 30*time.Minute)
	h := New()
	long := h.Track("long")
	for i := range 40 * 24 {
		long.Buckets = append(long.Buckets, Bucket{T: at(time.Duration(i) * time.Hour).Unix(), Operational: 3600})
	}
	old := h.Track("old")
	old.Buckets = []Bucket{{T: base.Unix(), Major: 3600}}
	h.Track("empty")

	h.Prune(now)

	// now − 32 days = day 8, 00:30, truncated to the hour: day 8, 00:00.
	// Kept: buckets from day 8 00:00 to day 39 23:00, 32 × 24 = 768 of them.
	if got := len(long.Buckets); got != 768 {
		t.Errorf("kept %d buckets, want 768", got)
	}
	if got, want := long.Buckets[0].T, at(8*day).Unix(); got != want {
		t.Errorf("oldest kept bucket T = %d, want %d (day 8)", got, want)
	}
	if got, want := long.Buckets[len(long.Buckets)-1].T, at(40*day-time.Hour).Unix(); got != want {
		t.Errorf("newest bucket T = %d, want %d", got, want)
	}
	if len(old.Buckets) != 0 {
		t.Errorf("old service kept %d buckets, want 0", len(old.Buckets))
	}
	if len(h.Track("empty").Buckets) != 0 {
		t.Error("empty service gained buckets")
	}
	// 30-day uptime still works after pruning: all operational.
	long.LastChecked, long.LastStatus = at(40*day), api.Operational
	checkPct(t, "30d after prune", long.Uptime(at(40*day)).D30, pct(100))
}

func TestPruneIncidents(t *testing.T) {
	t.Parallel()
	now := at(200 * day)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	h := New()
	h.Incidents = []api.Incident{
		incident("recent", ago(time.Hour), ptr(ago(30*time.Minute))),
		incident("open-new", ago(2*time.Hour), nil),
		incident("ended-89d", ago(95*day), ptr(ago(89*day))),
		incident("ended-exactly-90d", ago(96*day), ptr(ago(90*day))),
		incident("ended-90d-and-1s", ago(97*day), ptr(ago(90*day+time.Second))),
		incident("ended-150d", ago(150*day), ptr(ago(150*day))),
		incident("open-400d", ago(400*day), nil),
	}
	api.SortIncidents(h.Incidents)
	h.Prune(now)
	want := []string{"recent", "open-new", "ended-89d", "ended-exactly-90d", "open-400d"}
	if got := ids(h.Incidents); !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}

	t.Run("nil and empty", func(t *testing.T) {
		h := New()
		h.Prune(now)
		if len(h.Incidents) != 0 {
			t.Errorf("Incidents = %v", h.Incidents)
		}
	})
}

func TestPruneMaxIncidents(t *testing.T) {
	t.Parallel()
	// MaxIncidents + 3 incidents one minute apart, newest first, all ended a
	// minute after they started (so none is past KeepIncidents: 100 003 min
	// ≈ 69.4 days), except the oldest and the third oldest, which are open.
	// The cap drops the three oldest ended ones: indices n−2, n−4, n−5.
	n := MaxIncidents + 3
	now := at(100 * day)
	list := make([]api.Incident, n)
	for i := range n {
		start := now.Add(-time.Duration(i+1) * time.Minute)
		var end *time.Time
		if i != n-1 && i != n-3 {
			end = ptr(start.Add(time.Minute))
		}
		list[i] = incident(fmt.Sprintf("inc-%06d", i), start, end)
	}
	h := New()
	h.Incidents = list
	h.Prune(now)

	if len(h.Incidents) != MaxIncidents {
		t.Fatalf("kept %d incidents, want %d", len(h.Incidents), MaxIncidents)
	}
	kept := map[string]bool{}
	for _, inc := range h.Incidents {
		kept[inc.ID] = true
	}
	for _, i := range []int{n - 2, n - 4, n - 5} {
		if kept[fmt.Sprintf("inc-%06d", i)] {
			t.Errorf("inc-%06d (ended, among the oldest) was kept", i)
		}
	}
	for _, i := range []int{0, 1, n - 6, n - 3, n - 1} {
		if !kept[fmt.Sprintf("inc-%06d", i)] {
			t.Errorf("inc-%06d was dropped", i)
		}
	}
	if !slices.IsSortedFunc(h.Incidents, func(a, b api.Incident) int { return b.StartedAt.Compare(a.StartedAt) }) {
		t.Error("Prune broke the newest-first order")
	}
}

func TestSortIncidents(t *testing.T) {
	t.Parallel()
	t1, t2, t3 := at(time.Hour), at(2*time.Hour), at(3*time.Hour)
	tests := []struct {
		name string
		in   []api.Incident
		want []string
	}{
		{"empty", nil, []string{}},
		{"newest first", []api.Incident{incident("a", t1, nil), incident("b", t3, nil), incident("c", t2, nil)}, []string{"b", "c", "a"}},
		{"ties by id", []api.Incident{incident("z", t2, nil), incident("m", t2, nil), incident("a", t1, nil), incident("b", t2, nil)}, []string{"b", "m", "z", "a"}},
		{
			// Same instant in different zones is a tie.
			"zones",
			[]api.Incident{incident("y", t2.In(time.FixedZone("E", 3600)), nil), incident("x", t2, nil), incident("w", t3.In(time.FixedZone("W", -7200)), nil)},
			[]string{"w", "x", "y"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := slices.Clone(tt.in)
			api.SortIncidents(list)
			if got := ids(list); !slices.Equal(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
			// Same result from the reversed input: the order is total.
			rev := slices.Clone(tt.in)
			slices.Reverse(rev)
			api.SortIncidents(rev)
			if got := ids(rev); !slices.Equal(got, tt.want) {
				t.Errorf("from reversed input: order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIncidentOpen(t *testing.T) {
	t.Parallel()
	if !incident("a", base, nil).Open() {
		t.Error("incident without endedAt is not open")
	}
	if incident("a", base, ptr(at(time.Hour))).Open() {
		t.Error("incident with endedAt is open")
	}
}

// TestRestate: the checks from a first failed probe to the one that
// confirms the outage credited the status the page gave; restated, that
// time is the outage, across a bucket boundary, while maintenance and the
// time before the first failure keep what they were credited.
func TestRestate(t *testing.T) {
	t.Parallel()
	m := func(n int) time.Time { return base.Add(50*time.Minute + time.Duration(n)*5*time.Minute) }
	tests := []struct {
		name  string
		steps []api.Status // statuses at checks m(0), m(1), …
		from  int          // Restate from check m(from)
		want  []Bucket
	}{{
		// Operational 00:50–01:00, failures at 00:55 and 01:00 credited
		// operational until the third at 01:05 confirms it: 10 minutes of
		// major outage from 00:55, 5 of them in each hour.
		name:  "across a bucket boundary",
		steps: []api.Status{api.Operational, api.Operational, api.Operational, api.MajorOutage},
		from:  1,
		want:  []Bucket{{T: base.Unix(), Operational: 300, Major: 300}, {T: base.Add(time.Hour).Unix(), Major: 300}},
	}, {
		name:  "maintenance is not restated",
		steps: []api.Status{api.Operational, api.Maintenance, api.Degraded, api.MajorOutage},
		from:  1,
		want:  []Bucket{{T: base.Unix(), Operational: 300, Maintenance: 300}, {T: base.Add(time.Hour).Unix(), Major: 300}},
	}, {
		name:  "unknown becomes the outage it was",
		steps: []api.Status{api.Unknown, api.Unknown, api.MajorOutage},
		from:  0,
		want:  []Bucket{{T: base.Unix(), Major: 600}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := &ServiceHistory{}
			for i, st := range tt.steps {
				sh.Record(m(i), st, nil)
			}
			sh.Restate(m(tt.from), api.MajorOutage)
			if !reflect.DeepEqual(sh.Buckets, tt.want) {
				t.Errorf("Buckets = %+v, want %+v", sh.Buckets, tt.want)
			}
			// Restating twice changes nothing more.
			sh.Restate(m(tt.from), api.MajorOutage)
			if !reflect.DeepEqual(sh.Buckets, tt.want) {
				t.Errorf("restated twice: Buckets = %+v, want %+v", sh.Buckets, tt.want)
			}
		})
	}
}

// TestRecentSpansBounded: only the latest spans are kept for Restate, and
// what is older than them is not restated.
func TestRecentSpansBounded(t *testing.T) {
	t.Parallel()
	sh := &ServiceHistory{}
	const checks = recentSpans + 6
	for i := range checks {
		sh.Record(base.Add(time.Duration(i)*time.Minute), api.Operational, nil)
	}
	if len(sh.Recent) != recentSpans || !sh.Recent[len(sh.Recent)-1].To.Equal(base.Add((checks-1)*time.Minute)) {
		t.Fatalf("Recent = %+v, want the last %d spans", sh.Recent, recentSpans)
	}
	sh.Restate(base, api.MajorOutage)
	want := []Bucket{{T: base.Unix(), Operational: float64(checks-1-recentSpans) * 60, Major: recentSpans * 60}}
	if !reflect.DeepEqual(sh.Buckets, want) {
		t.Errorf("Buckets = %+v, want %+v", sh.Buckets, want)
	}
}

// TestSurfaceHistories: a surface's status time is kept under its service,
// with the service's uptime rules, pruned like the service's, and a
// surface's history that is corrupt or from the future makes the history
// corrupt, naming it.
func TestSurfaceHistories(t *testing.T) {
	t.Parallel()
	now := at(40*day + 30*time.Minute)
	h := New()
	sh := h.Track("anthropic")
	app := sh.Surface(catalog.SurfaceApp)
	if sh.Surface(catalog.SurfaceApp) != app || !sh.LookupSurface(catalog.SurfaceAgent).LastChecked.IsZero() || sh.Surfaces[catalog.SurfaceAgent] != nil {
		t.Fatal("Surface creates once, LookupSurface never")
	}
	for i := range 40 * 24 {
		app.Buckets = append(app.Buckets, Bucket{T: at(time.Duration(i) * time.Hour).Unix(), Operational: 3600})
	}
	h.Prune(now)
	if got := len(app.Buckets); got != 768 {
		t.Errorf("a surface kept %d buckets, want 768, as a service does", got)
	}
	app.LastChecked, app.LastStatus = at(40*day), api.MajorOutage
	checkPct(t, "the surface's 24 h", app.Uptime(at(40*day)).H24, pct(100))

	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var back History
	if err := json.Unmarshal(data, &back); err != nil || len(back.Services["anthropic"].Surfaces[catalog.SurfaceApp].Buckets) != 768 {
		t.Fatalf("round trip: %v", err)
	}
	if err := back.checkValues(); err != nil {
		t.Errorf("checkValues: %v", err)
	}

	app.Buckets[0].Major = -1
	if err := h.checkValues(); !errors.Is(err, ErrCorruptHistory) || !strings.Contains(err.Error(), `"anthropic/app"`) {
		t.Errorf("a corrupt surface bucket: %v", err)
	}
	app.Buckets[0].Major = 0

	// A surface's incidents are cleaned as the service's are: one that
	// starts years ahead is dropped, a kept one stays.
	ok := api.Incident{ID: "anthropic-a", Service: "anthropic", Headline: "claude.ai down", Severity: api.Major,
		StartedAt: now.Add(-time.Hour), Status: "investigating", Source: api.SourceOfficial, UpdatedAt: now}
	future := ok
	future.ID, future.StartedAt = "anthropic-b", now.AddDate(5, 0, 0)
	app.Incidents = []api.Incident{future, ok}
	if dropped := h.CleanIncidents(now); len(dropped) != 1 || len(app.Incidents) != 1 || app.Incidents[0].ID != "anthropic-a" {
		t.Errorf("CleanIncidents on a surface: dropped %q, kept %+v", dropped, app.Incidents)
	}

	app.LastChecked = now.Add(time.Hour)
	if err := h.CheckClock(now); !errors.Is(err, ErrCorruptHistory) || !strings.Contains(err.Error(), `"anthropic/app": lastChecked`) {
		t.Errorf("a surface checked in the future: %v", err)
	}
}
