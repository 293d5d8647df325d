package check

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// TestMemoryCrowd: one voice per client per window, however often it
// reports; a capped count; a new window starts from zero and the closed one
// joins the baseline, which exists only once counting has run a whole day
// and averages the same clock hour of each previous day.
func TestMemoryCrowd(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	c := NewMemoryCrowd(start)
	for range 200 {
		c.Report("anthropic", "192.0.2.1", start.Add(time.Minute))
	}
	if rc, _ := c.Count("anthropic", start.Add(4*time.Minute)); rc.Count != 1 || rc.Baseline != nil || !rc.Window.Equal(start) {
		t.Fatalf("one client 200 times: %+v", rc)
	}
	for i := range MaxReportsPerWindow + 50 {
		c.Report("openai", fmt.Sprint("client-", i), start.Add(2*time.Minute))
	}
	if rc, _ := c.Count("openai", start.Add(2*time.Minute)); rc.Count != MaxReportsPerWindow {
		t.Fatalf("count %d, want the cap %d", rc.Count, MaxReportsPerWindow)
	}
	if rc, _ := c.Count("anthropic", start.Add(ReportWindow)); rc.Count != 0 {
		t.Fatalf("the next window starts at %d", rc.Count)
	}
	if rc, _ := c.Report("anthropic", "192.0.2.1", start.Add(time.Minute)); rc.Count != 1 {
		t.Fatalf("a report for a closed window: %+v", rc)
	}
	if rc, _ := c.Count("anthropic", start.Add(ReportWindow)); rc.Count != 0 {
		t.Fatalf("a late report reopened nothing, yet the window holds %d", rc.Count)
	}

	// A day later, the 12:00–12:05 window's one voice is the baseline of
	// the 12:00 hour: 1 voice over its 12 windows.
	day := start.Add(24 * time.Hour)
	rc, _ := c.Report("anthropic", "192.0.2.9", day.Add(30*time.Minute))
	if rc.Baseline == nil || *rc.Baseline != 1.0/12 || rc.Count != 1 {
		t.Fatalf("a day later: %+v (baseline %v)", rc, rc.Baseline)
	}
	if rc, _ := c.Count("anthropic", day.Add(time.Hour)); rc.Baseline == nil || *rc.Baseline != 0 {
		t.Fatalf("13:00 on day 2: baseline %v, want 0 (no reports from 13:00 on day 1)", rc.Baseline)
	}
	if rc, _ := c.Count("anthropic", day.Add(-time.Hour)); rc.Baseline != nil {
		t.Fatalf("11:00 on day 2: baseline %v, want none (counting began at 12:00 on day 1)", *rc.Baseline)
	}
}

// TestCrowdForgetsClosedWindows: no client's hash outlives its window by
// more than a call or a tick. A call about any service closes every
// service's ended window, keeping only its count for the baseline; in a
// process nobody asks, ForgetEvery closes it on the clock — and never
// before the window ends.
func TestCrowdForgetsClosedWindows(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	c := NewMemoryCrowd(start)
	c.Report("anthropic", "192.0.2.1", start.Add(time.Minute))
	c.Report("openai", "192.0.2.2", start.Add(4*time.Minute))
	if n := c.Holding(); n != 2 {
		t.Fatalf("two clients in the open window: holding %d hashes", n)
	}
	c.Count("groq", start.Add(3*time.Hour))
	if n := c.Holding(); n != 0 {
		t.Fatalf("3 hours later, after a call about groq: holding %d hashes of the 12:00 window", n)
	}
	for _, slug := range []string{"anthropic", "openai"} {
		if rc, _ := c.Count(slug, start); rc.Count != 1 {
			t.Errorf("%s's closed window counts %d, want its count of 1 kept", slug, rc.Count)
		}
	}

	var now atomic.Int64
	now.Store(start.Add(time.Minute).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }
	c = NewMemoryCrowd(start)
	c.Report("anthropic", "192.0.2.1", clock())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.ForgetEvery(ctx, time.Millisecond, clock)
	}()
	defer func() {
		cancel()
		<-done
	}()
	time.Sleep(20 * time.Millisecond)
	if n := c.Holding(); n != 1 {
		t.Fatalf("the window is still open, yet the crowd holds %d hashes", n)
	}
	now.Store(start.Add(ReportWindow).UnixNano())
	for deadline := time.Now().Add(10 * time.Second); c.Holding() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("nobody asks: the closed window's %d hashes are still held", c.Holding())
		}
	}
	if rc, _ := c.Count("anthropic", start); rc.Count != 1 {
		t.Errorf("the window closed by the clock counts %d, want 1", rc.Count)
	}
}

// TestCrowdNoSurgeWithoutBaseline: no window is a surge until the crowd has
// counted the same clock hour on a previous day: just after a start, 12
// addresses were one, and any dozen addresses could raise the confidence
// of every verdict on a service for a day. The edge is the hour's start a
// day earlier: counting since then gives a baseline (0 here, so 10 voices
// are a surge and 9 are not); since a second later, none, and no count
// is a surge, not even the cap.
func TestCrowdNoSurgeWithoutBaseline(t *testing.T) {
	t.Parallel()
	hour := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	now := hour.Add(31 * time.Minute)
	for _, tc := range []struct {
		name   string
		since  time.Time
		voices int
		want   string
	}{
		{"just started, 12 voices", now.Add(-time.Minute), 12, ReportsUnknown},
		{"counting since a second after the hour's start yesterday, the cap", hour.Add(-24*time.Hour + time.Second), MaxReportsPerWindow, ReportsUnknown},
		{"counting since a second after the hour's start yesterday, no voice", hour.Add(-24*time.Hour + time.Second), 0, ReportsUnknown},
		{"counting since the hour's start yesterday, 10 voices", hour.Add(-24 * time.Hour), SurgeMinReports, ReportsSurge},
		{"counting since the hour's start yesterday, 9 voices", hour.Add(-24 * time.Hour), SurgeMinReports - 1, ReportsNormal},
		{"counting for a week, 10 voices", hour.Add(-7 * 24 * time.Hour), SurgeMinReports, ReportsSurge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewMemoryCrowd(tc.since)
			rc, _ := c.Count("anthropic", now)
			for i := range tc.voices {
				rc, _ = c.Report("anthropic", fmt.Sprint("client-", i), now)
			}
			if rc.Count != tc.voices || rc.State() != tc.want {
				t.Fatalf("%d voices, baseline %v: state %s, want %s", rc.Count, rc.Baseline, rc.State(), tc.want)
			}
			if says := rc.Says(); (tc.want == ReportsSurge) != strings.HasSuffix(says, ": a surge of reports, which sets no status.") {
				t.Errorf("state %s, yet it says %q", rc.State(), says)
			}
		})
	}
}

// onNetwork is an address on the i-th of many networks: a /48 of the IPv6
// documentation prefix each, so that i callers are i voices.
func onNetwork(i int) string { return fmt.Sprintf("2001:db8:%x::1", i) }

// TestNetwork: a voice is a network, an IPv4 /24 or an IPv6 /48, whatever
// address on it calls; an IPv4-mapped IPv6 address is its IPv4 address.
func TestNetwork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ client, want string }{
		{"192.0.2.1", "192.0.2.0/24"},
		{"192.0.2.255", "192.0.2.0/24"},
		{"192.0.3.0", "192.0.3.0/24"},
		{"::ffff:192.0.2.77", "192.0.2.0/24"},
		{"2001:db8:1:2::", "2001:db8:1::/48"},
		{"2001:db8:1:ffff:1:2:3:4", "2001:db8:1::/48"},
		{"2001:db8:2::1", "2001:db8:2::/48"},
		{"fe80::1%eth0", "fe80::/48"},
		{"client-7", "client-7"},
	} {
		if got := Network(tc.client); got != tc.want {
			t.Errorf("Network(%q) = %q, want %q", tc.client, got, tc.want)
		}
	}
}

// TestCrowdCountsNetworks: ten addresses are ten voices only on ten
// networks, as the engine reports them to its crowd. With a day's baseline of none, ten addresses of one /24, of
// one /48 (ten /64s, each a rate limit's client) or of one /24 written
// both as IPv4 and IPv4-mapped IPv6 are one voice and no surge; ten /24s
// side by side, or ten /48s, are ten and a surge.
func TestCrowdCountsNetworks(t *testing.T) {
	t.Parallel()
	hour := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	now := hour.Add(31 * time.Minute)
	each := func(f func(i int) string) []string {
		var out []string
		for i := range SurgeMinReports {
			out = append(out, f(i))
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		clients []string
		want    int
	}{
		{"ten addresses of one /24", each(func(i int) string { return fmt.Sprintf("198.51.100.%d", 10+i) }), 1},
		{"ten /64s of one /48", each(func(i int) string { return fmt.Sprintf("2001:db8:7:%x::", i) }), 1},
		{"one /24, mapped and not", each(func(i int) string {
			if i%2 == 0 {
				return fmt.Sprintf("::ffff:203.0.113.%d", i)
			}
			return fmt.Sprintf("203.0.113.%d", i)
		}), 1},
		{"ten /24s side by side", each(func(i int) string { return fmt.Sprintf("198.51.%d.1", 100+i) }), SurgeMinReports},
		{"ten /48s", each(onNetwork), SurgeMinReports},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Through the engine, which works out each client's network
			// once for whatever crowd counts.
			engine := (&Engine{}).CountReports(NewMemoryCrowd(hour.Add(-24 * time.Hour)))
			var rc ReportCount
			for _, client := range tc.clients {
				rc = *engine.crowdSays("anthropic", Request{Error: "503", Client: client}, now)
			}
			if rc.Count != tc.want {
				t.Fatalf("count %d, want %d", rc.Count, tc.want)
			}
			if surge := rc.State() == ReportsSurge; surge != (tc.want >= SurgeMinReports) {
				t.Errorf("%d voices over a baseline of %v: state %s", rc.Count, *rc.Baseline, rc.State())
			}
		})
	}
}

func TestReportState(t *testing.T) {
	t.Parallel()
	b := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		count    int
		baseline *float64
		want     string
	}{
		{0, nil, ReportsUnknown},
		{SurgeMinReports, nil, ReportsUnknown},
		{MaxReportsPerWindow, nil, ReportsUnknown},
		{SurgeMinReports - 1, b(0), ReportsNormal},
		{SurgeMinReports, b(0), ReportsSurge},
		{30, b(10), ReportsSurge},
		{29, b(10), ReportsNormal},
		{SurgeMinReports - 1, b(0.1), ReportsNormal},
	} {
		if got := (ReportCount{Count: tc.count, Baseline: tc.baseline}).State(); got != tc.want {
			t.Errorf("%d voices, baseline %v: %s, want %s", tc.count, tc.baseline, got, tc.want)
		}
	}
}

// TestCheckCrowd: the crowd never changes the action or the blame. A surge
// agreeing with the page or our probes raises the confidence of blaming the
// provider; a surge neither sees is said as such, and lowers the confidence
// of blaming anyone else; a refused key stays the caller's; under the surge
// threshold, or without a baseline to call it a surge, the count is
// evidence and nothing more. Without a client, or without an error,
// nothing is counted.
func TestCheckCrowd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, q, observed string
		others            int // other clients that reported in the window
		confidence        func(string) string
		reason            string
		// fresh is a crowd that began counting just now: no baseline.
		fresh bool
	}{
		{"surge, page sees an incident", "openai", "503", 19, raise, "Many other callers report errors for it right now too.", false},
		{"surge, our probe fails", "groq", "500", 19, raise, "Many other callers report errors for it right now too.", false},
		{"surge nobody else sees, provider blamed", "anthropic", "500", 19, same, "neither the page nor our probes see it yet.", false},
		{"surge, timeouts nobody else sees", "anthropic", "timeout", 19, lower, "neither the page nor our probes see it yet.", false},
		{"surge, a refused key", "anthropic", "401", 19, same, "", false},
		{"under the threshold", "anthropic", "500", SurgeMinReports - 2, same, "", false},
		{"many voices, no baseline yet, page sees an incident", "openai", "503", 19, same, "", true},
		{"many voices, no baseline yet, nobody else sees it", "anthropic", "timeout", 19, same, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, view, _ := newTestEngine(t, "groq")
			without, err := plain.Check(view, Request{Query: tc.q, Error: tc.observed, Client: "192.0.2.1"})
			if err != nil {
				t.Fatal(err)
			}
			engine, _, _ := newTestEngine(t, "groq")
			crowd := NewMemoryCrowd(genTime.Add(-24 * time.Hour))
			if tc.fresh {
				crowd = NewMemoryCrowd(genTime)
			}
			for i := range tc.others {
				crowd.Report(tc.q, onNetwork(i), genTime.Add(time.Minute))
			}
			engine.CountReports(crowd)
			with, err := engine.Check(view, Request{Query: tc.q, Error: tc.observed, Client: "192.0.2.1"})
			if err != nil {
				t.Fatal(err)
			}
			a, b := without.Verdict, with.Verdict
			if a.Action != b.Action || a.Blame != b.Blame {
				t.Fatalf("the crowd changed the advice: %s/%s → %s/%s", a.Action, a.Blame, b.Action, b.Blame)
			}
			if want := tc.confidence(a.Confidence); b.Confidence != want {
				t.Errorf("confidence %s → %s, want %s", a.Confidence, b.Confidence, want)
			}
			if tc.reason != "" && !strings.HasSuffix(b.Reason, tc.reason) {
				t.Errorf("reason %q, want it to end %q", b.Reason, tc.reason)
			}
			if tc.reason == "" && b.Reason != a.Reason {
				t.Errorf("reason changed: %q → %q", a.Reason, b.Reason)
			}
			var ev *api.Evidence
			for i := range b.Evidence {
				if b.Evidence[i].Source == api.EvidenceReports {
					ev = &b.Evidence[i]
				}
			}
			if ev == nil || *ev.Count != tc.others+1 || ev.ObservedAt == nil || !ev.ObservedAt.Equal(genTime.Add(time.Minute)) {
				t.Fatalf("evidence %+v, want a count of %d", ev, tc.others+1)
			}
		})
	}

	engine, view, _ := newTestEngine(t)
	crowd := NewMemoryCrowd(genTime)
	engine.CountReports(crowd)
	// An error on a surface other than the API (ChatGPT, Codex) is not a
	// report of OpenAI's API.
	for _, req := range []Request{{Query: "openai", Error: "500"}, {Query: "openai", Client: "192.0.2.1"},
		{Query: "chatgpt.com", Error: "500", Client: "192.0.2.1"}, {Query: "codex", Error: "503", Client: "192.0.2.2"}} {
		doc, err := engine.Check(view, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range doc.Verdict.Evidence {
			if ev.Source == api.EvidenceReports {
				t.Fatalf("%+v was counted", req)
			}
		}
	}
	if rc, _ := crowd.Count("openai", genTime.Add(time.Minute)); rc.Count != 0 {
		t.Fatalf("count %d, want 0", rc.Count)
	}
}

func same(confidence string) string { return confidence }

// TestCrowdSurgeOnPlainChecks: a surge of reports is news to every caller,
// not only to those who send error=. Once ten callers have reported errors
// for Groq (over a baseline of 0), a plain check of Groq cites the surge
// and its advice moves as the rules move it for a surge nobody else sees,
// the status, level and emoji staying up's; a stack check's check of Groq
// cites it too; the statusline notes it, asked by name or not. A check of claude.ai cites
// nothing: the crowd is the API's. One caller fewer is no surge, and then
// none of them says anything of the crowd.
func TestCrowdSurgeOnPlainChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		voices int
		surge  bool
	}{
		{"a surge", SurgeMinReports, true},
		{"one voice short of a surge", SurgeMinReports - 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			engine, _, _ := newTestEngine(t)
			engine.CountReports(NewMemoryCrowd(genTime.Add(-24 * time.Hour)))
			view := claudeDownView(t)
			quiet, err := engine.Check(view, Request{Query: "groq"})
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.voices {
				if _, err := engine.Check(view, Request{Query: "groq", Error: "503", Client: onNetwork(i)}); err != nil {
					t.Fatal(err)
				}
			}

			plain, err := engine.Check(view, Request{Query: "groq"})
			if err != nil {
				t.Fatal(err)
			}
			stack, err := engine.CheckStack(view, "groq,openai", []string{"groq", "openai"})
			if err != nil {
				t.Fatal(err)
			}
			surface, err := engine.Check(view, Request{Query: "claude.ai"})
			if err != nil {
				t.Fatal(err)
			}
			if ev := reportsEvidence(surface); ev != nil {
				t.Errorf("a check of claude.ai cites the API's crowd: %+v", ev)
			}
			named, err := engine.Statusline(view, []string{"groq", "claude.ai"})
			if err != nil {
				t.Fatal(err)
			}
			all, err := engine.Statusline(view, nil)
			if err != nil {
				t.Fatal(err)
			}
			marker := fmt.Sprintf("(👥 errors reported from %d networks)", tc.voices)
			wantAll := "🔴 Anthropic: claude.ai major outage, Claude Code major outage · 🔴 Cohere: API major outage · " +
				"⚠️ OpenAI: API degraded · ⚠️ DeepSeek: API degraded · ❔ " + strconv.Itoa(unknownIn(t, testCatalog(t))) + " unknown"

			if !tc.surge {
				if ev := reportsEvidence(plain); ev != nil || plain.Verdict.Confidence != quiet.Verdict.Confidence || plain.Verdict.Reason != quiet.Verdict.Reason {
					t.Errorf("under the threshold, a plain check changed: evidence %+v, %s %q", ev, plain.Verdict.Confidence, plain.Verdict.Reason)
				}
				if ev := reportsEvidence(stack.Checks[0]); ev != nil {
					t.Errorf("under the threshold, the stack's check cites %+v", ev)
				}
				if want := "✅ Groq up · 🔴 claude.ai major outage"; named != want {
					t.Errorf("statusline %q, want %q", named, want)
				}
				if all != wantAll {
					t.Errorf("statusline without q %q\nwant %q", all, wantAll)
				}
				return
			}
			ev := reportsEvidence(plain)
			if ev == nil || ev.State != ReportsSurge || *ev.Count != tc.voices || !strings.HasSuffix(ev.Says, ": a surge of reports, which sets no status.") {
				t.Fatalf("a plain check after %d reports: evidence %+v", tc.voices, ev)
			}
			v := plain.Verdict
			if *plain.Status != api.Operational || v.Level != "up" || v.Emoji != quiet.Verdict.Emoji || v.Headline != quiet.Verdict.Headline || v.Action != quiet.Verdict.Action || v.Blame != quiet.Verdict.Blame ||
				v.Confidence != lower(quiet.Verdict.Confidence) || !strings.HasSuffix(v.Reason, "neither the page nor our probes see it yet.") {
				t.Errorf("a surge changed more than the rules allow: status %s, %s/%s/%s %q", *plain.Status, v.Action, v.Blame, v.Confidence, v.Reason)
			}
			if ev := reportsEvidence(stack.Checks[0]); ev == nil || ev.State != ReportsSurge {
				t.Errorf("the stack's check of Groq cites %+v, want the surge", ev)
			}
			if want := "✅ Groq up " + marker + " · 🔴 claude.ai major outage"; named != want {
				t.Errorf("statusline %q, want %q", named, want)
			}
			wantAll += fmt.Sprintf(" · 👥 Groq: errors reported from %d networks", tc.voices)
			if all != wantAll {
				t.Errorf("statusline without q %q\nwant %q", all, wantAll)
			}
		})
	}
}

// TestStatuslineSurgeIsANote: a surge of reports adds a note to the
// statusline and changes nothing else. Without q, the line with callers on
// ten networks reporting errors at Groq (up) and at OpenAI (degraded) is
// the line without them, every item in its place with its emoji and words
// (all up still counted as such), followed by a note per surge in the
// catalog's order, under an emoji no status has; by name, the status comes
// first, as it is, and the note after it.
func TestStatuslineSurgeIsANote(t *testing.T) {
	t.Parallel()
	cat := testCatalog(t)
	calm := &fakeView{generatedAt: genTime, staleAfter: 15 * time.Minute, summaries: map[string]api.ServiceSummary{}}
	for _, svc := range cat.Services {
		sum := api.ServiceSummary{Slug: svc.Slug, Name: svc.Name, Status: api.Operational, Basis: api.BasisOfficial}
		for _, sf := range svc.Surfaces {
			sum.Surfaces = append(sum.Surfaces, api.SurfaceSummary{ID: sf.ID, Name: sf.Name, Status: api.Operational, Basis: api.BasisOfficial})
		}
		calm.summaries[svc.Slug] = sum
	}
	notes := fmt.Sprintf(" · 👥 OpenAI API: errors reported from %d networks · 👥 Groq: errors reported from %d networks", SurgeMinReports, SurgeMinReports)
	for _, tc := range []struct {
		name  string
		view  View
		want  string // without q, before the notes
		named string // q=groq,openai, before the notes
	}{
		{"all up", calm, "✅ all " + strconv.Itoa(len(cat.Services)) + " up", "✅ Groq up · ✅ OpenAI API up"},
		{"claude.ai down, OpenAI degraded", claudeDownView(t), "🔴 Anthropic: claude.ai major outage, Claude Code major outage · 🔴 Cohere: API major outage · " +
			"⚠️ OpenAI: API degraded · ⚠️ DeepSeek: API degraded · ❔ " + strconv.Itoa(unknownIn(t, cat)) + " unknown", "✅ Groq up · ⚠️ OpenAI API degraded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			engine, _, _ := newTestEngine(t)
			engine.CountReports(NewMemoryCrowd(genTime.Add(-24 * time.Hour)))
			for _, q := range []string{"groq", "openai"} {
				for i := range SurgeMinReports {
					if _, err := engine.Check(tc.view, Request{Query: q, Error: "503", Client: onNetwork(i)}); err != nil {
						t.Fatal(err)
					}
				}
			}
			all, err := engine.Statusline(tc.view, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.want + notes; all != want {
				t.Errorf("statusline without q %q\nwant %q", all, want)
			}
			named, err := engine.Statusline(tc.view, []string{"groq", "openai"})
			if err != nil {
				t.Fatal(err)
			}
			item := strings.Split(tc.named, " · ")
			marker := fmt.Sprintf(" (👥 errors reported from %d networks)", SurgeMinReports)
			if want := item[0] + marker + " · " + item[1] + marker; named != want {
				t.Errorf("statusline %q\nwant %q", named, want)
			}
			for _, emoji := range []string{"✅", "⚠️", "🟠", "🔴", "🛠️", "❔", "⏳"} {
				if strings.Contains(strings.TrimPrefix(all, tc.want), emoji) {
					t.Errorf("the notes %q carry a status's emoji %s", strings.TrimPrefix(all, tc.want), emoji)
				}
			}
		})
	}
}

// reportsEvidence is the crowd's evidence in doc's verdict; nil when none.
func reportsEvidence(doc api.CheckDoc) *api.Evidence {
	for i, ev := range doc.Verdict.Evidence {
		if ev.Source == api.EvidenceReports {
			return &doc.Verdict.Evidence[i]
		}
	}
	return nil
}
