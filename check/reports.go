package check

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// The crowd of callers, passively: every /check with an error for a
// tracked service is a report. The server counts the distinct clients that
// report each service per window (one voice per IPv4 address or IPv6 /64,
// however often it asks) and compares the count with the service's
// baseline for the same hour of day. The result is evidence: it never
// changes a status, it only raises or lowers the confidence of advice that
// the page or our probes already support (see crowdAdjust).
//
// What it can prove: that that many distinct addresses saw errors from the
// service at about the same time. What it cannot: why (a bad client
// release, one network, a caller's own quota), nor that the callers are
// honest — anyone with many addresses can make a surge. Hence the cap per
// window and the rule that it never decides on its own.

const (
	// ReportWindow is the span the crowd is counted in.
	ReportWindow = 5 * time.Minute
	// MaxReportsPerWindow caps a window's count: past it, more addresses
	// say nothing more.
	MaxReportsPerWindow = 10000
	// BaselineDays is how many past days of the same hour the baseline
	// averages over (those we hold a record of).
	BaselineDays = 7
	// SurgeMin is the fewest distinct callers that make a surge, whatever
	// the baseline: a few callers are noise.
	SurgeMin = 10
	// SurgeFactor is how many times the baseline a surge is at least.
	SurgeFactor = 3
)

// Tally is a crowd's count for one service and window.
type Tally struct {
	// Window is the window's start; Span its length.
	Window time.Time
	Span   time.Duration
	// Count is the window's distinct voices, at most MaxReportsPerWindow.
	Count int
	// Baseline is the mean count per window of the same hour of day over
	// the last BaselineDays we hold a record of; nil when there is none.
	Baseline *float64
}

// Surge reports whether the count stands out: at least SurgeMin voices,
// and SurgeFactor times the baseline when there is one.
func (t Tally) Surge() bool {
	return t.Count >= SurgeMin && (t.Baseline == nil || float64(t.Count) >= SurgeFactor**t.Baseline)
}

// Doc is the tally as the API states it, observed at now.
func (t Tally) Doc(now time.Time) snapshot.Reports {
	state := snapshot.ReportsNormal
	if t.Surge() {
		state = snapshot.ReportsSurge
	}
	return snapshot.Reports{State: state, Count: t.Count, Baseline: t.Baseline, WindowStart: t.Window.UTC(),
		WindowSeconds: int(t.Span.Seconds()), Cap: MaxReportsPerWindow, ObservedAt: now.UTC()}
}

// Crowd counts reports. Count adds voice's report for slug to the window
// at now, once per window however often it reports, and returns the
// window's tally; an invalid voice (netip.Addr{}) only reads. A voice is
// the client's address as the rate limit keys it (an IPv6 /64).
type Crowd interface {
	Count(slug string, voice netip.Addr, now time.Time) Tally
}

// MemoryCrowd is a Crowd in one process's memory: a set of hashed voices
// per service for the current window only (capped, dropped when the window
// closes, the hash salted afresh each window), and each hour's sum of
// closed windows' counts for BaselineDays and a day.
type MemoryCrowd struct {
	span time.Duration

	mu       sync.Mutex
	services map[string]*memWindow
	// hours are the sums of closed windows' counts per service and hour.
	hours map[hourKey]int
}

type memWindow struct {
	start  time.Time
	seed   maphash.Seed
	voices map[uint64]struct{}
}

type hourKey struct {
	slug string
	hour int64 // Unix seconds of the hour's start
}

// NewMemoryCrowd returns a crowd counted in windows of span (ReportWindow
// unless a test says otherwise).
func NewMemoryCrowd(span time.Duration) *MemoryCrowd {
	return &MemoryCrowd{span: span, services: map[string]*memWindow{}, hours: map[hourKey]int{}}
}

// Count implements Crowd.
func (c *MemoryCrowd) Count(slug string, voice netip.Addr, now time.Time) Tally {
	start := now.Truncate(c.span)
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.services[slug]
	if w == nil || w.start.Before(start) {
		if w != nil {
			c.close(slug, w.start, len(w.voices), start)
		}
		w = &memWindow{start: start, seed: maphash.MakeSeed(), voices: map[uint64]struct{}{}}
		c.services[slug] = w
	}
	if voice.IsValid() && len(w.voices) < MaxReportsPerWindow {
		// The address itself is not kept: its hash, salted for this window.
		w.voices[maphash.Comparable(w.seed, voice)] = struct{}{}
	}
	t := Tally{Window: w.start, Span: c.span, Count: len(w.voices)}
	t.Baseline = baseline(w.start, c.span, func(hour int64) (int, bool) {
		n, ok := c.hours[hourKey{slug, hour}]
		return n, ok
	})
	return t
}

// close adds a closed window's count to its hour, records zero for the
// hours of the windows that passed without a call until next, and forgets
// the hours too old for any baseline.
func (c *MemoryCrowd) close(slug string, start time.Time, count int, next time.Time) {
	hour := start.Truncate(time.Hour)
	c.hours[hourKey{slug, hour.Unix()}] += count
	for h, n := hour.Add(time.Hour), 0; h.Before(next) && n < BaselineDays*24; h, n = h.Add(time.Hour), n+1 {
		c.hours[hourKey{slug, h.Unix()}] += 0
	}
	oldest := next.Add(-(BaselineDays + 1) * 24 * time.Hour).Unix()
	for k := range c.hours {
		if k.hour < oldest {
			delete(c.hours, k)
		}
	}
}

// baseline is the mean count per window of the same hour as window's over
// the last BaselineDays, of the days sum has a record of; nil when none.
func baseline(window time.Time, span time.Duration, sum func(hour int64) (int, bool)) *float64 {
	hour := window.Truncate(time.Hour)
	total, known := 0, 0
	for d := 1; d <= BaselineDays; d++ {
		if n, ok := sum(hour.Add(-time.Duration(d) * 24 * time.Hour).Unix()); ok {
			total, known = total+n, known+1
		}
	}
	if known == 0 {
		return nil
	}
	perHour := float64(time.Hour / span)
	b := float64(total) / (float64(known) * perHour)
	return &b
}
