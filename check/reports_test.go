package check

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// voices returns n distinct clients: IPv4 addresses and IPv6 /64s.
func voices(n int) []netip.Addr {
	out := make([]netip.Addr, n)
	for i := range out {
		if i%2 == 0 {
			out[i] = netip.AddrFrom4([4]byte{203, 0, 113, byte(i)})
		} else {
			out[i] = netip.MustParseAddr(fmt.Sprintf("2001:db8:0:%x::", i))
		}
	}
	return out
}

// TestMemoryCrowd: distinct voices count once each per window, one voice
// however often it reports counts once, a read adds nothing, the count
// starts again with the next window, and the cap holds.
func TestMemoryCrowd(t *testing.T) {
	at := genTime.Add(time.Minute)
	c := NewMemoryCrowd(ReportWindow)
	for _, v := range voices(20) {
		c.Count("anthropic", v, at)
	}
	one := netip.MustParseAddr("198.51.100.7")
	for range 200 {
		c.Count("openai", one, at)
	}
	if got := c.Count("anthropic", netip.Addr{}, at.Add(time.Minute)); got.Count != 20 || !got.Surge() || got.Baseline != nil {
		t.Errorf("anthropic: %+v, want 20 voices, a surge, no baseline", got)
	}
	if got := c.Count("openai", netip.Addr{}, at); got.Count != 1 || got.Surge() {
		t.Errorf("openai: %+v, want one voice", got)
	}
	next := c.Count("anthropic", netip.Addr{}, at.Add(ReportWindow))
	if next.Count != 0 || !next.Window.Equal(at.Add(ReportWindow).Truncate(ReportWindow)) {
		t.Errorf("next window: %+v, want it empty", next)
	}
	for i := range MaxReportsPerWindow + 50 {
		c.Count("groq", netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), at)
	}
	if got := c.Count("groq", netip.Addr{}, at); got.Count != MaxReportsPerWindow {
		t.Errorf("capped count %d, want %d", got.Count, MaxReportsPerWindow)
	}
}

// TestCrowdBaseline: the baseline is the mean count per window of the same
// hour on the days we hold a record of, and a count is a surge only at
// SurgeFactor times it.
func TestCrowdBaseline(t *testing.T) {
	c := NewMemoryCrowd(ReportWindow)
	day0 := time.Date(2026, 11, 1, 14, 0, 0, 0, time.UTC)
	// Two days ago, 24 callers in one window of 14:00–15:00 (2 per window
	// over its 12); yesterday nobody reported but the hour was seen.
	for _, v := range voices(24) {
		c.Count("openai", v, day0.Add(-48*time.Hour))
	}
	c.Count("openai", netip.Addr{}, day0.Add(-24*time.Hour))
	c.Count("openai", netip.Addr{}, day0.Add(-24*time.Hour+ReportWindow))
	for _, v := range voices(12) {
		c.Count("openai", v, day0.Add(10*time.Minute))
	}
	got := c.Count("openai", netip.Addr{}, day0.Add(10*time.Minute))
	if got.Baseline == nil || *got.Baseline != 1 {
		t.Fatalf("baseline %v, want 1 ((24 + 0) / 2 days / 12 windows)", got.Baseline)
	}
	if !got.Surge() {
		t.Errorf("12 voices over a baseline of 1: %+v, want a surge", got)
	}
	high := 5.0
	if (Tally{Count: 12, Baseline: &high}).Surge() {
		t.Error("12 voices over a baseline of 5 is a surge")
	}
	if (Tally{Count: SurgeMin - 1}).Surge() {
		t.Error("fewer than SurgeMin voices make a surge")
	}
}

// TestCheckCrowd: the engine counts /check calls that report an error,
// states the tally as reports evidence, and weighs a surge: said on its
// own when nothing else sees trouble, raising the confidence of blame on
// the provider and lowering that of blame on the caller when the page or
// our probes agree — but not against the provider's own error code.
func TestCheckCrowd(t *testing.T) {
	type want struct {
		count                     int
		state, action, confidence string
		reason                    string
	}
	for _, tt := range []struct {
		name        string
		q, err      string
		code        string
		reporters   int
		reportsEach int
		want        want
	}{
		{"twenty callers, nothing else sees it", "anthropic", "529", "", 20, 1,
			want{20, "surge", "retry", "medium", crowdAlone}},
		{"one caller 200 times", "anthropic", "529", "", 1, 200,
			want{1, "normal", "retry", "medium", ""}},
		{"a surge the page's outage agrees with: higher", "cohere", "connection", "", 20, 1,
			want{20, "surge", "failover", "high", crowdAgrees}},
		{"no surge: as before", "cohere", "connection", "", 3, 1,
			want{3, "normal", "failover", "medium", ""}},
		{"a surge our failing probe agrees with: blame on the caller lower", "groq", "429", "", 20, 1,
			want{20, "surge", "retry", "medium", crowdAgrees}},
		{"the provider's code still decides", "groq", "429", "rate_limit_exceeded", 20, 1,
			want{20, "surge", "retry", "high", crowdAgrees}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			engine, view, _ := newTestEngine(t, "groq")
			engine.WithCrowd(NewMemoryCrowd(ReportWindow))
			var doc snapshot.CheckDoc
			for _, v := range voices(tt.reporters) {
				for range tt.reportsEach {
					var err error
					doc, err = engine.Check(view, Request{Query: tt.q, Error: tt.err, Code: tt.code, Voice: v})
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			v := doc.Verdict
			if v.Action != tt.want.action || v.Confidence != tt.want.confidence {
				t.Errorf("verdict %s/%s (%q), want %s/%s", v.Action, v.Confidence, v.Reason, tt.want.action, tt.want.confidence)
			}
			if tt.want.reason != "" && !strings.Contains(v.Reason, tt.want.reason) {
				t.Errorf("reason %q, want it to say %q", v.Reason, tt.want.reason)
			}
			if tt.want.reason == "" && (strings.Contains(v.Reason, crowdAlone) || strings.Contains(v.Reason, crowdAgrees)) {
				t.Errorf("reason %q speaks of a surge", v.Reason)
			}
			var reports *snapshot.Evidence
			for i, e := range v.Evidence {
				if e.Source == snapshot.EvidenceReports {
					reports = &v.Evidence[i]
				}
			}
			if reports == nil || reports.Count == nil || *reports.Count != tt.want.count || reports.State != tt.want.state ||
				reports.ObservedAt == nil || !reports.ObservedAt.Equal(genTime.Add(time.Minute)) {
				t.Fatalf("reports evidence %+v, want count %d, %s", reports, tt.want.count, tt.want.state)
			}
			if !strings.Contains(reports.Says, fmt.Sprintf("%d ", tt.want.count)) || !strings.Contains(reports.Says, "5 min") {
				t.Errorf("reports say %q", reports.Says)
			}
		})
	}
}

// TestCheckCrowdCountsOnlyErrors: a check without an error, or with a
// status below 400, reads the tally but adds no voice; an engine without a
// crowd (a local check) has no reports evidence at all.
func TestCheckCrowdCountsOnlyErrors(t *testing.T) {
	engine, view, _ := newTestEngine(t)
	crowd := NewMemoryCrowd(ReportWindow)
	engine.WithCrowd(crowd)
	for _, v := range voices(15) {
		for _, e := range []string{"", "200"} {
			if _, err := engine.Check(view, Request{Query: "anthropic", Error: e, Voice: v}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := crowd.Count("anthropic", netip.Addr{}, genTime.Add(time.Minute)); got.Count != 0 {
		t.Errorf("%d voices counted from checks without an error", got.Count)
	}
	local, view, _ := newTestEngine(t)
	doc, err := local.Check(view, Request{Query: "anthropic", Error: "529", Voice: voices(1)[0]})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range doc.Verdict.Evidence {
		if e.Source == snapshot.EvidenceReports || e.Count != nil {
			t.Errorf("evidence without a crowd: %+v", e)
		}
	}
}
