package check

import (
	"context"
	"fmt"
	"hash/maphash"
	"net/netip"
	"sync"
	"time"
)

// The crowd of callers. Every /check that says what error the caller just
// saw (error=) is a report: one more caller failing at that moment. Reports
// are counted per service per ReportWindow, one voice per network (an IPv4
// /24 or an IPv6 /48, Network), and compared with the service's baseline
// for the same hour of day. They prove that callers on several networks saw
// errors, not why, nor that the provider is at fault (a broken SDK release,
// a shared proxy or a popular region can do that), and anyone holding
// addresses on many networks can inflate them — so they never set a status,
// a level or an order of fallbacks; they only move the verdict's confidence
// (decide) and are cited as evidence, as reports: to whoever reports,
// always; to every other check of the service, and as a note in the
// statusline, only in a surge (Engine.crowdSays).
const (
	// ReportWindow is how long a count runs: counts are per service per
	// window, aligned on the clock (:00, :05, …).
	ReportWindow = 5 * time.Minute
	// MaxReportsPerWindow caps a window's count: past it, more voices say
	// nothing more, and memory stays bounded.
	MaxReportsPerWindow = 1000
	// SurgeMinReports is the fewest voices in a window that can be a surge.
	SurgeMinReports = 10
	// SurgeFactor is how many times the baseline a window must reach to be
	// a surge.
	SurgeFactor = 3
	// BaselineDays is how many previous days the baseline averages.
	BaselineDays = 7
)

// The values of ReportCount.State.
const (
	ReportsNormal = "normal"
	ReportsSurge  = "surge"
	// ReportsUnknown is a window without a baseline: whether its count is
	// usual cannot be told, so it is never called a surge.
	ReportsUnknown = "unknown"
)

// ReportCount is a service's count of reports in one window.
type ReportCount struct {
	// Window is the start of the window counted; it ends ReportWindow later.
	Window time.Time
	// Count is the distinct networks (Network) from which callers
	// reported an error in the window, at most MaxReportsPerWindow: exact,
	// in memory as through Redis.
	Count int
	// Baseline is the mean count per window in the same hour of day over
	// the previous days (at most BaselineDays) the counter has run; nil
	// until it has counted that hour on a previous day (BaselineWindows).
	Baseline *float64
}

// State is ReportsUnknown without a baseline; ReportsSurge when the window
// holds at least SurgeMinReports voices and at least SurgeFactor times the
// baseline; else ReportsNormal. A surge needs a baseline: a handful of
// addresses is easy to hold, and only the usual count at that hour says
// whether ten voices are unusual — without one, any dozen addresses could
// move every verdict on a service for the day after each start.
func (c ReportCount) State() string {
	switch {
	case c.Baseline == nil:
		return ReportsUnknown
	case c.Count >= SurgeMinReports && float64(c.Count) >= SurgeFactor**c.Baseline:
		return ReportsSurge
	}
	return ReportsNormal
}

// Says is the count in words, for the verdict's evidence: reports, which
// set no status, and said so in a surge.
func (c ReportCount) Says() string {
	callers := fmt.Sprintf("Callers on %d networks (an IPv4 /24 or an IPv6 /48 each) reported", c.Count)
	if c.Count == 1 {
		callers = "Callers on 1 network reported"
	}
	says := fmt.Sprintf("%s errors through /check in the 5 minutes from %s", callers, c.Window.UTC().Format("15:04 UTC"))
	switch {
	case c.Baseline == nil:
		says += "; no baseline yet to tell whether that is usual"
	default:
		says += fmt.Sprintf("; %.1f is usual at this hour", *c.Baseline)
	}
	if c.State() == ReportsSurge {
		return says + ": a surge of reports, which sets no status."
	}
	return says + "."
}

// Marker is a surge in a few words, for the statusline beside a status the
// crowd does not change: "👥 errors reported from 40 networks". Its emoji
// is none of a status's (verdict), so that a prompt reading the line's
// emojis reads no status into it.
func (c ReportCount) Marker() string {
	return "👥 " + c.reported()
}

// reported is the count in the statusline's words, without its emoji.
func (c ReportCount) reported() string {
	return fmt.Sprintf("errors reported from %d networks", c.Count)
}

// Crowd counts reports. MemoryCrowd counts in this process; serve's Redis
// crowd counts across replicas. A crowd that cannot count (Redis failing
// with no fallback) reports false, and the verdict goes without.
type Crowd interface {
	// Report adds voice to slug's window at t and returns the window's
	// count, the new voice included. voice is the caller's network
	// (Network), which the engine works out once for every crowd, so that
	// many addresses on one network are one voice.
	Report(slug, voice string, t time.Time) (ReportCount, bool)
	// Count is slug's window at t without adding a voice.
	Count(slug string, t time.Time) (ReportCount, bool)
	// CountAll is Count of each of slugs, in one round trip where the
	// counts are shared (a document or /metrics listing every service);
	// a slug it cannot count is absent.
	CountAll(slugs []string, t time.Time) map[string]ReportCount
}

// Network is the voice of client in the crowd: the network it calls from,
// an IPv4 /24 or an IPv6 /48, as a prefix ("192.0.2.0/24"); an IPv4-mapped
// IPv6 address is its IPv4 address's /24. One holder of a /64 has 2⁶⁴
// addresses and a rented server often a whole /24 nearby, so counting
// addresses would let one holder speak as a crowd: a network is what a
// hostile writer has to multiply. A client that is no address (a test's
// or an embedder's own key) is a network of its own.
func Network(client string) string {
	a, err := netip.ParseAddr(client)
	if err != nil {
		return client
	}
	a = a.Unmap()
	bits := 48
	if a.Is4() {
		bits = 24
	}
	p, _ := a.Prefix(bits) // cannot fail: both fit the address
	return p.String()
}

// WindowOf is the start of the report window that holds t.
func WindowOf(t time.Time) time.Time { return t.UTC().Truncate(ReportWindow) }

// BaselineWindows lists, for the window holding t, the windows the baseline
// averages: every window of the same clock hour on each of the previous
// BaselineDays days that began at or after since (when counting began). It
// returns them by day, oldest day last; none until counting has run a day.
func BaselineWindows(t, since time.Time) [][]time.Time {
	hour := t.UTC().Truncate(time.Hour)
	var days [][]time.Time
	for d := 1; d <= BaselineDays; d++ {
		start := hour.Add(-time.Duration(d) * 24 * time.Hour)
		if start.Before(since) {
			break
		}
		var day []time.Time
		for w := start; w.Before(start.Add(time.Hour)); w = w.Add(ReportWindow) {
			day = append(day, w)
		}
		days = append(days, day)
	}
	return days
}

// Baseline is the mean of counts over the windows of days (BaselineWindows);
// a window with no count had no reports. nil when days is empty.
func Baseline(days [][]time.Time, count func(time.Time) int) *float64 {
	if len(days) == 0 {
		return nil
	}
	sum, n := 0, 0
	for _, day := range days {
		for _, w := range day {
			sum += count(w)
			n++
		}
	}
	mean := float64(sum) / float64(n)
	return &mean
}

// MemoryCrowd counts reports in this process: the server's crowd without
// Redis, and the fallback while Redis fails. The open window keeps only
// hashes of its clients' networks, salted per window. Any call closes it once it has
// ended, for every service at once, and ForgetEvery does in a process
// nobody asks, so that no client's hash outlives its window by more than
// ForgetEvery's interval. Past windows keep only their counts, for
// BaselineDays.
type MemoryCrowd struct {
	mu    sync.Mutex
	since time.Time
	// open is the start of the open window: the latest any call has
	// reached. seed salts its hashes; voices are each service's in it.
	open   time.Time
	seed   maphash.Seed
	voices map[string]map[uint64]struct{}
	// counts are closed windows' counts, per service, by window start.
	counts map[string]map[time.Time]int
}

// NewMemoryCrowd returns a crowd whose counting began at since.
func NewMemoryCrowd(since time.Time) *MemoryCrowd {
	return &MemoryCrowd{since: since, voices: map[string]map[uint64]struct{}{}, counts: map[string]map[time.Time]int{}}
}

// Report implements Crowd.
func (m *MemoryCrowd) Report(slug, voice string, t time.Time) (ReportCount, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forget(t)
	// A report for a window already closed (a clock step back) is not
	// counted: that window's clients are gone.
	if WindowOf(t).Equal(m.open) {
		v := m.voices[slug]
		if v == nil {
			v = map[uint64]struct{}{}
			m.voices[slug] = v
		}
		if len(v) < MaxReportsPerWindow {
			v[maphash.String(m.seed, voice)] = struct{}{}
		}
	}
	return m.count(slug, t), true
}

// Count implements Crowd.
func (m *MemoryCrowd) Count(slug string, t time.Time) (ReportCount, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forget(t)
	return m.count(slug, t), true
}

// CountAll implements Crowd.
func (m *MemoryCrowd) CountAll(slugs []string, t time.Time) map[string]ReportCount {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forget(t)
	out := make(map[string]ReportCount, len(slugs))
	for _, slug := range slugs {
		out[slug] = m.count(slug, t)
	}
	return out
}

// Forget closes the open window when t is in a later one: every service's
// hashes are dropped and their counts kept for the baseline.
func (m *MemoryCrowd) Forget(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forget(t)
}

// ForgetEvery calls Forget with now() every interval until ctx ends: the
// calls that count reports close a window only when one comes, and a
// process nobody asks must not keep the last window's clients for hours.
func (m *MemoryCrowd) ForgetEvery(ctx context.Context, interval time.Duration, now func() time.Time) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			m.Forget(now())
		}
	}
}

// Holding is how many clients' hashes the crowd holds: those of the open
// window, all services together.
func (m *MemoryCrowd) Holding() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, v := range m.voices {
		n += len(v)
	}
	return n
}

// forget is Forget with m.mu held. It does its work once per window, so
// that every call can afford it.
func (m *MemoryCrowd) forget(t time.Time) {
	start := WindowOf(t)
	if !start.After(m.open) {
		return
	}
	for slug, v := range m.voices {
		if len(v) == 0 {
			continue
		}
		if m.counts[slug] == nil {
			m.counts[slug] = map[time.Time]int{}
		}
		m.counts[slug][m.open] = len(v)
		// Zeroed, not only dropped: freed memory keeps its bytes until
		// it is reused.
		clear(v)
	}
	clear(m.voices)
	m.open, m.seed = start, maphash.MakeSeed()
	oldest := start.Add(-(BaselineDays + 1) * 24 * time.Hour)
	for slug, counts := range m.counts {
		for at := range counts {
			if at.Before(oldest) {
				delete(counts, at)
			}
		}
		if len(counts) == 0 {
			delete(m.counts, slug)
		}
	}
}

func (m *MemoryCrowd) count(slug string, t time.Time) ReportCount {
	at := func(start time.Time) int {
		if start.Equal(m.open) {
			return len(m.voices[slug])
		}
		return m.counts[slug][start]
	}
	return ReportCount{Window: WindowOf(t), Count: at(WindowOf(t)), Baseline: Baseline(BaselineWindows(t, m.since), at)}
}
