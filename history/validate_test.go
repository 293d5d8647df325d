package history

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
)

func TestHistoryCheckClock(t *testing.T) {
	t.Parallel()
	now := at(10 * day)
	tests := []struct {
		name   string
		mutate func(h *History)
		ok     bool
	}{
		{"all in the past", func(*History) {}, true},
		{"updatedAt exactly MaxClockSkew ahead", func(h *History) { h.UpdatedAt = now.Add(MaxClockSkew) }, true},
		{"updatedAt a second past the skew", func(h *History) { h.UpdatedAt = now.Add(MaxClockSkew + time.Second) }, false},
		{"lastChecked ahead", func(h *History) { h.Track("a").LastChecked = now.Add(time.Hour) }, false},
		{"failingSince ahead", func(h *History) { h.Track("a").FailingSince = now.Add(time.Hour) }, false},
		{"okSince ahead", func(h *History) { h.Track("a").OKSince = now.Add(time.Hour) }, false},
		{"lastFeedAt ahead", func(h *History) { h.Track("a").LastFeedAt = now.Add(time.Hour) }, false},
		{"firstChecked ahead", func(h *History) { h.Track("a").FirstChecked = now.Add(time.Hour) }, false},
		{"feed lastOkAt ahead", func(h *History) { h.Track("a").Feed.LastOKAt = now.Add(time.Hour) }, false},
		{"feed failingSince ahead", func(h *History) { h.Track("a").Feed.FailingSince = now.Add(time.Hour) }, false},
		{"feed rosterChangedAt ahead", func(h *History) { h.Track("a").Feed.RosterChangedAt = now.Add(time.Hour) }, false},
		{"feed unplaced firstSeen ahead", func(h *History) {
			h.Track("a").Feed.Unplaced = []api.UnplacedComponent{{ID: "x", Name: "X", FirstSeen: now.Add(time.Hour)}}
		}, false},
		{"changesSince ahead", func(h *History) { h.ChangesSince = now.Add(time.Hour) }, false},
		{"a change in the past", func(h *History) { h.Changes = []api.Change{{ID: 1, Time: now.Add(-time.Hour)}} }, true},
		{"the latest change ahead", func(h *History) {
			h.Changes = []api.Change{{ID: 1, Time: now.Add(-time.Hour)}, {ID: 2, Time: now.Add(time.Hour)}}
		}, false},
		{"the current hour's bucket", func(h *History) {
			h.Track("a").Buckets = []Bucket{{T: now.Truncate(BucketSize).Unix()}}
		}, true},
		{"next hour's bucket", func(h *History) {
			h.Track("a").Buckets = []Bucket{{T: now.Truncate(BucketSize).Add(BucketSize).Unix()}}
		}, false},
		{"the next change id of a long log", func(h *History) { h.NextChangeID = firstChangeID(now) + 1_000_000 }, true},
		{"a next change id about to wrap", func(h *History) { h.NextChangeID = math.MaxInt64 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := New()
			h.UpdatedAt = now.Add(-time.Minute)
			h.Track("a").LastChecked = now.Add(-time.Minute)
			tt.mutate(h)
			err := h.CheckClock(now)
			if tt.ok && err != nil {
				t.Fatalf("CheckClock = %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, ErrCorruptHistory) {
				t.Fatalf("CheckClock = %v, want ErrCorruptHistory", err)
			}
		})
	}
}

func TestReadHistoryRejectsImpossibleValues(t *testing.T) {
	t.Parallel()
	hour := at(0).Unix()
	tests := []struct {
		name    string
		buckets []Bucket
		ok      bool
	}{
		{"a full hour", []Bucket{{T: hour, Operational: 3000, Major: 600, Probes: 60, LatencyMs: 6000}}, true},
		{"more than an hour of status", []Bucket{{T: hour, Operational: 3000, Major: 700}}, false},
		{"huge status time", []Bucket{{T: hour, Unknown: math.MaxFloat64}}, false},
		{"negative status time", []Bucket{{T: hour, Degraded: -1}}, false},
		{"latency without probes", []Bucket{{T: hour, LatencyMs: 5}}, false},
		{"negative latency", []Bucket{{T: hour, LatencyMs: -5, Probes: 1}}, false},
		{"negative probes", []Bucket{{T: hour, Probes: -1}}, false},
		{"huge probe count", []Bucket{{T: hour, Probes: math.MaxInt}}, false},
		{"start off the hour", []Bucket{{T: hour + 60}}, false},
		{"buckets out of order", []Bucket{{T: hour + 3600}, {T: hour}}, false},
		{"the same bucket twice", []Bucket{{T: hour}, {T: hour}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := New()
			h.Track("a").Buckets = tt.buckets
			data, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			writeHistory(t, dir, string(data))
			_, raw, err := ReadHistory(dir)
			if tt.ok && err != nil {
				t.Fatalf("ReadHistory = %v, want nil", err)
			}
			if !tt.ok && (!errors.Is(err, ErrCorruptHistory) || string(raw) != string(data)) {
				t.Fatalf("ReadHistory = %v, want ErrCorruptHistory and the bytes", err)
			}
		})
	}
}

func TestReadHistoryRejectsNegativeCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(sh *ServiceHistory)
	}{
		{"failed probes", func(sh *ServiceHistory) { sh.FailedProbes = -1 }},
		{"ok probes", func(sh *ServiceHistory) { sh.OKProbes = -1 }},
		{"feed failures", func(sh *ServiceHistory) { sh.Feed.Failures = -1 }},
		{"feed failures overflowing", func(sh *ServiceHistory) { sh.Feed.Failures = math.MaxInt }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := New()
			tt.mutate(h.Track("a"))
			data, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			writeHistory(t, dir, string(data))
			if _, _, err := ReadHistory(dir); !errors.Is(err, ErrCorruptHistory) {
				t.Fatalf("ReadHistory = %v, want ErrCorruptHistory", err)
			}
		})
	}
}

// TestCleanIncidents: a history read back is cleaned as a feed is: text
// capped, incidents with impossible times or ids dropped and named, the
// rest kept as they were.
func TestCleanIncidents(t *testing.T) {
	t.Parallel()
	now := at(10 * day)
	ok := api.Incident{ID: "openai-1", Service: "openai", Headline: "Elevated errors", Severity: api.Major, Status: "resolved",
		StartedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour), Source: api.SourceOfficial, URL: "https://status.openai.com/x"}
	with := func(edit func(*api.Incident)) api.Incident { inc := ok; edit(&inc); return inc }
	future := now.AddDate(5, 0, 0)
	h := New()
	h.Incidents = []api.Incident{
		ok,
		with(func(i *api.Incident) { i.ID, i.Headline = "openai-2", strings.Repeat("A", 20<<20) }),
		with(func(i *api.Incident) { i.ID, i.URL = "openai-3", "javascript:alert(1)" }),
		with(func(i *api.Incident) { i.ID, i.StartedAt = "openai-4", future }),
		with(func(i *api.Incident) { i.ID, i.EndedAt = "openai-5", &future }),
		with(func(i *api.Incident) { i.ID = strings.Repeat("x", 1<<20) }),
		with(func(i *api.Incident) { i.ID, i.Severity = "openai-7", "apocalyptic" }),
	}
	dropped := h.CleanIncidents(now)
	var ids []string
	for _, inc := range h.Incidents {
		ids = append(ids, inc.ID)
	}
	if !slices.Equal(ids, []string{"openai-1", "openai-2", "openai-3"}) || len(dropped) != 4 {
		t.Fatalf("kept %v, dropped %q", ids, dropped)
	}
	if h.Incidents[0] != ok {
		t.Errorf("a clean incident changed: %+v", h.Incidents[0])
	}
	if n := utf8.RuneCountInString(h.Incidents[1].Headline); n > api.MaxHeadline {
		t.Errorf("a headline of %d characters kept", n)
	}
	if h.Incidents[2].URL != "" {
		t.Errorf("link %q kept", h.Incidents[2].URL)
	}
	for _, why := range dropped {
		if len(why) > 200 {
			t.Errorf("a reason of %d bytes: the log line repeats what it drops", len(why))
		}
	}
}
