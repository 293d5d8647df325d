package history

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// The history rules, also stated in docs/api.md and the OpenAPI description.
const (
	// BucketSize is the resolution at which per-service status time is kept.
	BucketSize = time.Hour
	// KeepBuckets is how far back status time is kept: the 30-day uptime
	// window plus two days, so that a 30-day chart always has full days.
	KeepBuckets = 32 * 24 * time.Hour
	// KeepIncidents is how long an incident is kept after it ended.
	KeepIncidents = 90 * 24 * time.Hour
	// MaxIncidents bounds the retained incidents; past it the oldest ended
	// incidents of the services holding the most go first.
	MaxIncidents = 100_000
	// MaxHold is how long one check's status is taken to hold when no newer
	// check follows. A longer gap (the generator was not running) is "no data"
	// and stays out of uptime, rather than being guessed up or down.
	MaxHold = 15 * time.Minute
	// PartialOutageDowntime is the share of partial-outage time counted as
	// downtime, the weight Atlassian Statuspage uses for its uptime figures.
	PartialOutageDowntime = 0.3
)

// MaxClockSkew is how far in the future a time recorded in a history (or a
// snapshot's generation time) may lie before it is treated as corrupt: a
// little skew between machines is normal; more means a clock was wrong, and
// a history from the future would freeze lastChecked and uptime until the
// real clock caught up.
const MaxClockSkew = 5 * time.Minute

// maxCount bounds the counters of a history (probes in a bucket, consecutive
// probe results): far above anything a build writes, far below an overflow.
const maxCount = 1 << 31

// HistoryVersion is the version of the history file's format.
const HistoryVersion = 1

// History is the state one build hands to the next: per-service status time
// and the retained incidents. It lives in the snapshot folder as history.json.
type History struct {
	Version   int                        `json:"version"`
	UpdatedAt time.Time                  `json:"updatedAt"`
	Services  map[string]*ServiceHistory `json:"services"`
	// Incidents are all retained incidents, newest startedAt first.
	Incidents []api.Incident `json:"incidents"`
	// Changes is the change log, oldest first (ids ascending), and
	// ChangesSince when it begins: it holds every change after that time.
	// NextChangeID is the id the next entry gets; it is kept even when the
	// log is pruned empty, so that an id is never reused.
	Changes      []api.Change `json:"changes,omitempty"`
	ChangesSince time.Time    `json:"changesSince,omitzero"`
	NextChangeID int64        `json:"nextChangeId,omitempty"`
	// Models is the latest cycle's word on the watched models (models.go).
	Models *ModelHistory `json:"models,omitempty"`
	// Days are the daily rollups, kept for years. They are not part of
	// history.json: ReadArchive reads them from the snapshot's monthly
	// dataset files, and WriteDataset writes them there.
	Days DaySeries `json:"-"`
	// Archive is the previous snapshot's dataset files: name → path on
	// disk, so that a closed month is published again byte for byte. They
	// are read one at a time as the dataset is written, never held.
	Archive map[string]string `json:"-"`
	// ArchiveUnverified are the files of Archive whose bytes the previous
	// snapshot's dataset index did not list (ReadArchive).
	ArchiveUnverified map[string]bool `json:"-"`
}

// ServiceHistory is what is remembered of one service between builds.
type ServiceHistory struct {
	// FirstChecked is the time of the first check recorded.
	FirstChecked time.Time `json:"firstChecked,omitzero"`
	// LastChecked and LastStatus are the latest cycle's time and status.
	LastChecked time.Time  `json:"lastChecked"`
	LastStatus  api.Status `json:"lastStatus"`
	// FailedProbes counts consecutive failed probes that the official feed did
	// not explain, the first of them at FailingSince. OKProbes counts the
	// consecutive successful probes since OKSince.
	FailedProbes int       `json:"failedProbes,omitempty"`
	FailingSince time.Time `json:"failingSince,omitzero"`
	OKProbes     int       `json:"okProbes,omitempty"`
	OKSince      time.Time `json:"okSince,omitzero"`
	// LastFeedStatus is what the official feed last declared, at LastFeedAt.
	LastFeedStatus api.Status `json:"lastFeedStatus,omitempty"`
	LastFeedAt     time.Time  `json:"lastFeedAt,omitzero"`
	// ProbeIncident is the id of our own open incident, if any.
	ProbeIncident string `json:"probeIncident,omitempty"`
	// Feed is the health of the official source.
	Feed FeedHealth `json:"feed,omitzero"`
	// TimelineAt is the latest check at which the official feed was read
	// with its incident timeline (CreditTimeline needs it on both sides of
	// a gap).
	TimelineAt time.Time `json:"timelineAt,omitzero"`
	// Outage follows an outage our probes see while the page declares
	// none, and Detections are those that ended (predict.go).
	Outage     *OutageWatch `json:"outage,omitempty"`
	Detections []Detection  `json:"detections,omitempty"`
	// Buckets hold status time per BucketSize, oldest first.
	Buckets []Bucket `json:"buckets"`
	// Completions are the measured completions of the last MeasuredKeep,
	// by model id (author/model), oldest first.
	Completions map[string][]api.CompletionSample `json:"completions,omitempty"`
	// Recent are the latest intervals credited to Buckets, oldest first:
	// enough of them for Restate to correct what the last checks credited.
	Recent []Span `json:"recent,omitempty"`
	// Surfaces are the histories of the service's surfaces other than its
	// API (see Surface): of each, the check times, the status and the
	// buckets, for its uptime, and its Incidents.
	Surfaces map[catalog.SurfaceID]*ServiceHistory `json:"surfaces,omitempty"`
	// Incidents are a surface's official incidents, newest first, kept
	// and pruned like History.Incidents; a service's own are those.
	Incidents []api.Incident `json:"incidents,omitempty"`
}

// Span is an interval credited to one status.
type Span struct {
	From   time.Time  `json:"from"`
	To     time.Time  `json:"to"`
	Status api.Status `json:"status"`
}

// recentSpans is how many credited intervals are kept for Restate: the
// checks from a first failed probe to the one that confirms an outage, with
// room for cycles between them whose probes were discarded (an hour of
// 5-minute cycles).
const recentSpans = 12

// FeedHealth is what is remembered of a service's official source: when it
// was last read, how long it has been failing, and the components in scope
// at the last good read, so that a change in them is noticed.
type FeedHealth struct {
	LastOKAt time.Time `json:"lastOkAt,omitzero"`
	// Failures counts the failed reads since the last good one, the first
	// of them at FailingSince; LastFailure is the kind of the latest.
	Failures     int             `json:"failures,omitempty"`
	FailingSince time.Time       `json:"failingSince,omitzero"`
	LastFailure  api.FailureKind `json:"lastFailure,omitempty"`
	// Roster is the in-scope components at the last good read, as
	// "name (id)", sorted. RosterChangedAt, RosterAdded and RosterRemoved
	// describe its latest change.
	Roster          []string  `json:"roster,omitempty"`
	RosterChangedAt time.Time `json:"rosterChangedAt,omitzero"`
	RosterAdded     []string  `json:"rosterAdded,omitempty"`
	RosterRemoved   []string  `json:"rosterRemoved,omitempty"`
	// Unplaced are the page's components, and its feed's tags, in no
	// place at the last good read, each with when it was first seen: kept
	// so that firstSeen stays put and each is announced once.
	Unplaced []api.UnplacedComponent `json:"unplaced,omitempty"`
}

// Bucket is the time, in seconds, a service spent in each status during one
// BucketSize period starting at T (Unix seconds), plus probe latency totals.
type Bucket struct {
	T           int64   `json:"t"`
	Operational float64 `json:"op,omitempty"`
	Degraded    float64 `json:"deg,omitempty"`
	Partial     float64 `json:"part,omitempty"`
	Major       float64 `json:"maj,omitempty"`
	Maintenance float64 `json:"maint,omitempty"`
	Unknown     float64 `json:"unk,omitempty"`
	// Timeline is how much of the time above (seconds) came from the
	// official page's incident timeline between two of our checks rather
	// than from a check (CreditTimeline); the rest came from our checks.
	Timeline float64 `json:"tl,omitempty"`
	// LatencyMs is the sum of successful probe latencies; Probes their count.
	LatencyMs float64 `json:"latMs,omitempty"`
	Probes    int     `json:"probes,omitempty"`
	// LatBins is the histogram of those latencies, count by bin (latBin):
	// what p50 and p95 are read from. Buckets written before it have none.
	LatBins map[int]int `json:"latBins,omitempty"`
}

// New returns an empty history.
func New() *History {
	return &History{Version: HistoryVersion, Services: map[string]*ServiceHistory{}}
}

// Lookup returns the history of slug for reading: an empty one, not stored,
// when there is none. Rendering uses it, so that it never changes the history.
func (h *History) Lookup(slug string) *ServiceHistory {
	if sh := h.Services[slug]; sh != nil {
		return sh
	}
	return &ServiceHistory{}
}

// Track returns the history of slug for recording, creating it when absent
// (Lookup reads without creating).
func (h *History) Track(slug string) *ServiceHistory {
	if h.Services == nil {
		h.Services = map[string]*ServiceHistory{}
	}
	sh := h.Services[slug]
	if sh == nil {
		sh = &ServiceHistory{}
		h.Services[slug] = sh
	}
	return sh
}

// Record adds one check of the service at time at. The status seen by the
// previous check is credited from that check until this one (at most MaxHold);
// this check's status is credited by the next one. latencyMs is the
// probe's latency, nil when there was no successful probe.
func (sh *ServiceHistory) Record(at time.Time, status api.Status, latencyMs *float64) {
	if !sh.LastChecked.IsZero() && at.After(sh.LastChecked) {
		end := at
		if limit := sh.LastChecked.Add(MaxHold); end.After(limit) {
			end = limit
		}
		sh.credit(sh.LastChecked, end, sh.LastStatus)
	}
	if latencyMs != nil && *latencyMs >= 0 { // a negative one would make the bucket fail its check
		b := sh.bucket(at)
		b.LatencyMs += *latencyMs
		b.Probes++
		b.addLatency(*latencyMs)
	}
	if at.After(sh.LastChecked) || sh.LastChecked.IsZero() {
		sh.LastChecked, sh.LastStatus = at, status
	}
	if sh.FirstChecked.IsZero() || at.Before(sh.FirstChecked) {
		sh.FirstChecked = at
	}
}

// credit adds the interval [from, to) in status s, split across buckets,
// and remembers it among the Recent spans.
func (sh *ServiceHistory) credit(from, to time.Time, s api.Status) {
	sh.move(from, to, "", s)
	sh.Recent = append(sh.Recent, Span{From: from, To: to, Status: s})
	if n := len(sh.Recent) - recentSpans; n > 0 {
		sh.Recent = append(sh.Recent[:0], sh.Recent[n:]...)
	}
}

// move credits the interval [from, to) to status s, split across buckets,
// taking it from status old unless old is "" (a first credit).
func (sh *ServiceHistory) move(from, to time.Time, old, s api.Status) {
	sh.eachBucket(from, to, func(b *Bucket, secs float64) {
		if old != "" {
			f := b.seconds(old)
			secs = min(secs, *f) // never below zero, whatever rounding did
			*f -= secs
		}
		*b.seconds(s) += secs
	})
}

// eachBucket calls fn with each bucket that [from, to) overlaps, appending
// it when needed, and the seconds of the interval that fall in it.
func (sh *ServiceHistory) eachBucket(from, to time.Time, fn func(b *Bucket, secs float64)) {
	for from.Before(to) {
		b := sh.bucket(from)
		end := time.Unix(b.T, 0).Add(BucketSize)
		if end.After(to) {
			end = to
		}
		fn(b, end.Sub(from).Seconds())
		from = end
	}
}

// Restate credits the time since from that the latest checks credited to an
// up or unknown status to s instead. An outage our probes confirm at their
// third failure began at the first: until it was confirmed, those minutes
// were credited to the status the page or the previous check gave, and
// uptime would leave them out of the outage that our incident dates from
// its first failure. Only the Recent spans can be restated.
func (sh *ServiceHistory) Restate(from time.Time, s api.Status) {
	var out []Span
	for _, sp := range sh.Recent {
		start := sp.From
		if start.Before(from) {
			start = from
		}
		restatable := sp.Status == api.Operational || sp.Status == api.Degraded || sp.Status == api.Unknown
		if !restatable || !start.Before(sp.To) {
			out = append(out, sp)
			continue
		}
		sh.move(start, sp.To, sp.Status, s)
		if sp.From.Before(start) {
			out = append(out, Span{From: sp.From, To: start, Status: sp.Status})
		}
		out = append(out, Span{From: start, To: sp.To, Status: s})
	}
	sh.Recent = out
}

// bucket returns the bucket that holds time t, appending it when needed.
// Checks arrive in time order, so a bucket is almost always the last one.
func (sh *ServiceHistory) bucket(t time.Time) *Bucket {
	start := t.Truncate(BucketSize).Unix()
	for i := len(sh.Buckets) - 1; i >= 0; i-- {
		switch {
		case sh.Buckets[i].T == start:
			return &sh.Buckets[i]
		case sh.Buckets[i].T < start:
			sh.Buckets = append(sh.Buckets, Bucket{})
			copy(sh.Buckets[i+2:], sh.Buckets[i+1:])
			sh.Buckets[i+1] = Bucket{T: start}
			return &sh.Buckets[i+1]
		}
	}
	sh.Buckets = append([]Bucket{{T: start}}, sh.Buckets...)
	return &sh.Buckets[0]
}

// seconds is the field of b that holds the time in status s.
func (b *Bucket) seconds(s api.Status) *float64 {
	switch s {
	case api.Operational:
		return &b.Operational
	case api.Degraded:
		return &b.Degraded
	case api.PartialOutage:
		return &b.Partial
	case api.MajorOutage:
		return &b.Major
	case api.Maintenance:
		return &b.Maintenance
	default:
		return &b.Unknown
	}
}

func (b *Bucket) add(s api.Status, seconds float64) { *b.seconds(s) += seconds }

// observed is the time with a known availability: maintenance and unknown
// time are left out. down is the weighted downtime within it.
func (b Bucket) observed() float64 { return b.Operational + b.Degraded + b.Partial + b.Major }

func (b Bucket) down() float64 { return b.Major + PartialOutageDowntime*b.Partial }

// Uptime computes the uptime windows ending at now.
func (sh *ServiceHistory) Uptime(now time.Time) api.Uptime {
	return api.Uptime{
		H24: sh.UptimePercent(now.Add(-24*time.Hour), now),
		D7:  sh.UptimePercent(now.Add(-7*24*time.Hour), now),
		D30: sh.UptimePercent(now.Add(-30*24*time.Hour), now),
	}
}

// UptimePercent is 100 × (observed − downtime) / observed over [from, to), where
// the status of the latest check is taken to hold until to (at most MaxHold).
// A bucket that straddles from is counted pro rata. The result is rounded
// down to three decimals, so that any downtime shows as less than 100. It is
// nil when nothing was observed.
func (sh *ServiceHistory) UptimePercent(from, to time.Time) *float64 {
	return percentOf(sh.window(from, to))
}

// window adds up the status time in [from, to), the open interval since the
// latest check included.
func (sh *ServiceHistory) window(from, to time.Time) Bucket {
	var sum Bucket
	// Buckets are in time order (checkValues): start at the first that ends
	// after from, and stop at the first that starts at to. A page's 30 daily
	// bars for 26 services read a day each, not the month each.
	size := int64(BucketSize / time.Second)
	first := sort.Search(len(sh.Buckets), func(i int) bool { return sh.Buckets[i].T+size > from.Unix() })
	for _, b := range sh.Buckets[first:] {
		start := time.Unix(b.T, 0)
		end := start.Add(BucketSize)
		if !start.Before(to) {
			break
		}
		share := 1.0
		if start.Before(from) {
			share = end.Sub(from).Seconds() / BucketSize.Seconds()
		}
		sum.addScaled(b, share)
	}
	if !sh.LastChecked.IsZero() && to.After(sh.LastChecked) {
		start, end := sh.LastChecked, to
		if limit := start.Add(MaxHold); end.After(limit) {
			end = limit
		}
		if start.Before(from) {
			start = from
		}
		if end.After(start) {
			sum.add(sh.LastStatus, end.Sub(start).Seconds())
		}
	}
	return sum
}

// MinCoverage is the share of its window an uptime figure needs before it is
// shown to people: below it, the page, badges, llms.txt and MCP say "not
// enough data" rather than a percentage computed from a few minutes. The API
// publishes the figure and its coverage alike.
const MinCoverage = 0.5

// FormatPercent shows an uptime as the API has it (floored to three
// decimals, so any downtime stays below 100), without trailing zeros, or
// "no data".
func FormatPercent(p *float64) string {
	if p == nil {
		return "no data"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64) + "%"
}

// UptimeText is an uptime figure as people are shown it (the status page,
// badges, llms.txt, MCP): "not enough data" while less than MinCoverage of
// its window has data, rather than a percentage computed from minutes.
func UptimeText(p *float64, coverage float64) string {
	if p != nil && coverage < MinCoverage {
		return "not enough data"
	}
	return FormatPercent(p)
}

// Coverage computes the coverage of the three uptime windows ending at now,
// rounded down to three decimals.
func (sh *ServiceHistory) Coverage(now time.Time) api.Coverage {
	share := func(d time.Duration) float64 { return coverageOf(sh.window(now.Add(-d), now), d) }
	return api.Coverage{H24: share(24 * time.Hour), D7: share(7 * 24 * time.Hour), D30: share(30 * 24 * time.Hour)}
}

// DataSince is when the retained data begins: the first check, or the
// oldest bucket once older checks have been pruned; zero with no data.
func (sh *ServiceHistory) DataSince() time.Time {
	since := sh.FirstChecked
	if len(sh.Buckets) > 0 {
		if oldest := time.Unix(sh.Buckets[0].T, 0); since.IsZero() || oldest.After(since) {
			since = oldest
		}
	}
	return since.UTC()
}

// Prune drops status time older than KeepBuckets and incidents that ended
// more than KeepIncidents ago, then caps the incident count at MaxIncidents
// and the change log at MaxChanges, dropping the oldest entries of the
// services that hold the most first (see pruneIncidents). Incidents must be
// sorted.
func (h *History) Prune(now time.Time) {
	cutoff := now.Add(-KeepBuckets).Truncate(BucketSize).Unix()
	for slug, sh := range h.Services {
		if sh == nil {
			delete(h.Services, slug)
		}
	}
	for _, sh := range h.histories() {
		i := 0
		for i < len(sh.Buckets) && sh.Buckets[i].T < cutoff {
			i++
		}
		sh.Buckets = sh.Buckets[i:]
		if sh.Incidents != nil {
			sh.Incidents = pruneIncidents(sh.Incidents, now, MaxIncidents)
		}
		sh.pruneDetections(now)
	}
	h.Incidents = pruneIncidents(h.Incidents, now, MaxIncidents)
	h.pruneChanges(now, MaxChanges)
}

// checkValues reports a value no build writes: a negative, infinite or
// too-large count or duration, or buckets out of order. Such a history is
// corrupt: numbers near the float64 limit overflow to Inf or NaN once added
// up, which JSON cannot encode, and every later build would fail on them.
func (h *History) checkValues() error {
	// The log is searched by id and by time: out of order, it would answer wrong.
	for i, c := range h.Changes {
		if c.ID >= h.NextChangeID || (i > 0 && (c.ID <= h.Changes[i-1].ID || c.Time.Before(h.Changes[i-1].Time))) {
			return fmt.Errorf("%w: change %d is out of order", ErrCorruptHistory, c.ID)
		}
	}
	for slug, sh := range h.histories() {
		for _, n := range []int{sh.FailedProbes, sh.OKProbes, sh.Feed.Failures} {
			if n < 0 || n > maxCount {
				return fmt.Errorf("%w: service %q: probe count %d out of range", ErrCorruptHistory, slug, n)
			}
		}
		prev := int64(math.MinInt64)
		for _, b := range sh.Buckets {
			if err := b.check(); err != nil {
				return fmt.Errorf("%w: service %q: bucket %d: %v", ErrCorruptHistory, slug, b.T, err)
			}
			if b.T <= prev {
				return fmt.Errorf("%w: service %q: bucket %d is not after bucket %d", ErrCorruptHistory, slug, b.T, prev)
			}
			prev = b.T
		}
		if err := sh.checkCompletions(); err != nil {
			return fmt.Errorf("%w: service %q: %v", ErrCorruptHistory, slug, err)
		}
	}
	return nil
}

// check reports a bucket that no sequence of Record calls produces.
func (b Bucket) check() error {
	size := BucketSize.Seconds()
	if b.T%int64(size) != 0 {
		return fmt.Errorf("start not on a %s boundary", BucketSize)
	}
	if b.Probes < 0 || b.Probes > maxCount {
		return fmt.Errorf("probe count %d out of range", b.Probes)
	}
	sum := 0.0
	for _, v := range []float64{b.Operational, b.Degraded, b.Partial, b.Major, b.Maintenance, b.Unknown} {
		// A second of slack, as for the sum below: an hour credited in
		// fractional-second pieces can add up to 3600.0000000000005, and a
		// history rejected for that would be started afresh.
		if math.IsNaN(v) || v < 0 || v > size+1 {
			return fmt.Errorf("status time %v s out of range", v)
		}
		sum += v
	}
	if math.IsNaN(b.Timeline) || b.Timeline < 0 || b.Timeline > sum+1 {
		return fmt.Errorf("timeline time %v s out of range", b.Timeline)
	}
	// Record credits disjoint intervals, so a bucket never holds more time
	// than it lasts; a second of slack absorbs float rounding.
	if sum > size+1 {
		return fmt.Errorf("%v s of status time in a %s bucket", sum, BucketSize)
	}
	// A probe's latency is bounded by its timeout, far below a bucket.
	if math.IsNaN(b.LatencyMs) || b.LatencyMs < 0 || b.LatencyMs > float64(b.Probes)*size*1000 {
		return fmt.Errorf("latency total %v ms out of range for %d probes", b.LatencyMs, b.Probes)
	}
	return b.checkLatBins()
}

// maxIncidentIDLength bounds an incident id read back from a history: an
// official id is at most the slug and api.MaxIDLength (longer ones are hashed).
const maxIncidentIDLength = 2 * api.MaxIDLength

// CleanIncidents cleans the incidents of a history read back from a file as
// a feed's are cleaned (api.Incident.Clean), and drops those that cannot be
// published, saying why: a hand-edited or hostile history must not
// republish a 20 MB headline or an incident that starts in 2031. A build
// writes none of these, so the usual history comes out unchanged.
func (h *History) CleanIncidents(now time.Time) (dropped []string) {
	h.Incidents, dropped = cleanIncidents(h.Incidents, now, dropped)
	for _, sh := range h.histories() { // the surfaces' incidents
		if sh.Incidents != nil {
			sh.Incidents, dropped = cleanIncidents(sh.Incidents, now, dropped)
		}
	}
	return dropped
}

// cleanIncidents is CleanIncidents on one list, in place, adding to dropped.
func cleanIncidents(list []api.Incident, now time.Time, dropped []string) ([]api.Incident, []string) {
	kept := list[:0]
	for _, inc := range list {
		var why string
		if inc.ID == "" || len(inc.ID) > maxIncidentIDLength {
			why = fmt.Sprintf("incident id of %d bytes", len(inc.ID))
		} else {
			why = inc.Clean(now, "")
		}
		if why != "" {
			dropped = append(dropped, why)
			continue
		}
		kept = append(kept, inc)
	}
	clear(list[len(kept):])
	return kept, dropped
}

// maxChangeIDsAhead bounds how far the next change id may be ahead of the
// clock: ids start at the first change's time in microseconds and grow by
// one per change, so 2⁴⁰ (a thousand changes a second for 35 years) is more
// than any log reaches, and far from the int64 limit where the counter
// would wrap.
const maxChangeIDsAhead = 1 << 40

// CheckClock reports, as an error wrapping ErrCorruptHistory, a history
// holding a time later than now plus MaxClockSkew: one written by a build
// whose clock was ahead. Built on, it would freeze the data — every check
// until the real clock catches up is older than the last one recorded and
// moves neither lastChecked nor uptime — so it is set aside like any
// corrupt history.
func (h *History) CheckClock(now time.Time) error {
	limit := now.Add(MaxClockSkew)
	future := func(what string, t time.Time) error {
		if t.After(limit) {
			return fmt.Errorf("%w: %s %s is in the future (now %s)", ErrCorruptHistory, what,
				t.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
		return nil
	}
	if err := future("updatedAt", h.UpdatedAt); err != nil {
		return err
	}
	if err := future("changesSince", h.ChangesSince); err != nil {
		return err
	}
	if h.NextChangeID > firstChangeID(limit)+maxChangeIDsAhead {
		return fmt.Errorf("%w: nextChangeId %d is further ahead of the clock than any log goes (now %s)",
			ErrCorruptHistory, h.NextChangeID, now.UTC().Format(time.RFC3339))
	}
	// The log is in time order, and a new change is never dated before the
	// last: one from the future would date every later change there.
	if n := len(h.Changes); n > 0 {
		if err := future("the latest change", h.Changes[n-1].Time); err != nil {
			return err
		}
	}
	for slug, sh := range h.histories() {
		for _, f := range []struct {
			name string
			t    time.Time
		}{
			{"firstChecked", sh.FirstChecked},
			{"lastChecked", sh.LastChecked},
			{"failingSince", sh.FailingSince},
			{"okSince", sh.OKSince},
			{"lastFeedAt", sh.LastFeedAt},
			{"timelineAt", sh.TimelineAt},
			{"feed.lastOkAt", sh.Feed.LastOKAt},
			{"feed.failingSince", sh.Feed.FailingSince},
			{"feed.rosterChangedAt", sh.Feed.RosterChangedAt},
			{"the latest completion", sh.LastCompletionAt()},
		} {
			if err := future(fmt.Sprintf("service %q: %s", slug, f.name), f.t); err != nil {
				return err
			}
		}
		for _, u := range sh.Feed.Unplaced {
			if err := future(fmt.Sprintf("service %q: feed.unplaced %q firstSeen", slug, u.Name), u.FirstSeen); err != nil {
				return err
			}
		}
		// Buckets are in time order: the last one is the latest.
		if n := len(sh.Buckets); n > 0 {
			if err := future(fmt.Sprintf("service %q: bucket", slug), time.Unix(sh.Buckets[n-1].T, 0)); err != nil {
				return err
			}
		}
	}
	return nil
}
