package check

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// TestPollAfter: the incident's stage, our failing probe or a maintenance
// sets the base; the reliability priors stretch it until the incident is
// monitored; the answer stays within MinPollAfter and MaxPollAfter.
func TestPollAfter(t *testing.T) {
	t.Parallel()
	now := genTime
	incident := func(stage string) *api.Incident {
		return &api.Incident{ID: "svc-1", Severity: api.Major, Status: stage, Source: api.SourceOfficial, StartedAt: now.Add(-time.Hour)}
	}
	// expected is an expectedResolution of an incident that began ago.
	expected := func(ago time.Duration, p50, p90 int) *api.ExpectedResolution {
		return &api.ExpectedResolution{StartedAt: now.Add(-ago), P50Minutes: p50, P90Minutes: p90, Basis: 5}
	}
	for _, tt := range []struct {
		name         string
		status       api.Status
		inc          *api.Incident
		probeFailing bool
		expected     *api.ExpectedResolution
		want         int
	}{
		{"no incident", api.MajorOutage, nil, false, nil, 60},
		{"our probe fails", api.MajorOutage, nil, true, nil, 30},
		{"maintenance", api.Maintenance, nil, false, nil, 300},
		{"investigating", api.PartialOutage, incident("investigating"), true, nil, 120},
		{"a stage of the page's own", api.PartialOutage, incident("ongoing"), false, nil, 120},
		{"identified", api.PartialOutage, incident("Identified"), false, nil, 300},
		{"monitoring", api.Degraded, incident("monitoring"), false, nil, 60},
		// An hour in, incidents of its severity end at 120 minutes: a
		// quarter of the hour left.
		{"priors, before the p50", api.MajorOutage, incident("investigating"), false, expected(time.Hour, 120, 300), 900},
		{"priors, shorter than the stage", api.MajorOutage, incident("identified"), false, expected(time.Hour, 70, 300), 300},
		{"priors, past the p50", api.MajorOutage, incident("investigating"), false, expected(time.Hour, 30, 90), 450},
		{"priors, past the p90", api.MajorOutage, incident("investigating"), false, expected(time.Hour, 30, 50), 120},
		{"priors, far off: the upper bound", api.MajorOutage, incident("investigating"), false, expected(time.Hour, 600, 900), 900},
		{"monitoring ignores the priors", api.MajorOutage, incident("monitoring"), false, expected(time.Hour, 600, 900), 60},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := pollAfter(tt.status, tt.inc, tt.probeFailing, tt.expected, now)
			if got != tt.want {
				t.Errorf("pollAfter = %d, want %d", got, tt.want)
			}
			if got < int(MinPollAfter.Seconds()) || got > int(MaxPollAfter.Seconds()) {
				t.Errorf("pollAfter = %d, out of bounds", got)
			}
		})
	}
}

// TestCheckComeBack asks the engine about subjects that are down or whose
// advice is to wait, and about some that are fine: the first carry
// pollAfterSeconds and resumeWhen, naming the event that ends the wait
// (the subject's recovery, its open incident resolved), the others neither.
func TestCheckComeBack(t *testing.T) {
	t.Parallel()
	// A condition as "condition event subject incident".
	cond := func(c api.ResumeCondition) string {
		return strings.Join(strings.Fields(fmt.Sprintf("%s %s %s %s", c.Condition, c.Event, c.Subject, c.Incident)), " ")
	}
	down := func(v *fakeView) modelView {
		providers := []api.ModelProvider{gatewayEntry("anthropic", "Anthropic", pct(60)), gatewayEntry("aws-bedrock", "Amazon Bedrock", pct(40))}
		return modelView{fakeView: v, models: map[string]api.ModelDoc{"anthropic/claude-sonnet-4.5": {ID: "anthropic/claude-sonnet-4.5",
			Name: "Claude Sonnet 4.5", Author: "anthropic", Status: history.BestModelStatus(providers, ""), Providers: providers}}}
	}
	clauded := api.Incident{ID: "anthropic-x1", Service: "anthropic", Headline: "claude.ai unavailable",
		Severity: api.Critical, StartedAt: genTime.Add(-10 * time.Minute), Status: "identified", Source: api.SourceOfficial}
	for _, tt := range []struct {
		name    string
		req     Request
		failing []string               // slugs whose live probe fails
		edit    func(v *fakeView) View // nil: the test view
		poll    int                    // 0: none
		want    []string               // the conditions, as cond writes them
	}{
		{name: "up", req: Request{Query: "anthropic"}},
		{name: "up, a 500 passing", req: Request{Query: "anthropic", Error: "500"}},
		{name: "degraded, proceed", req: Request{Query: "openai"}},
		{name: "down, but the key is refused", req: Request{Query: "cohere", Error: "401"}},
		{name: "an incident being investigated", req: Request{Query: "openai", Error: "529"}, poll: 120, want: []string{
			"recovered service.recovered openai", "incident_resolved incident.resolved openai openai-01"}},
		{name: "our probes overrule the page", req: Request{Query: "cohere"}, poll: 60, want: []string{
			"recovered service.recovered cohere"}},
		{name: "and our live probe fails", req: Request{Query: "cohere"}, failing: []string{"cohere"}, poll: 30, want: []string{
			"recovered service.recovered cohere", "probe_answers"}},
		{name: "overloaded while up", req: Request{Query: "anthropic", Error: "529", Code: "overloaded_error"}, poll: 60, want: []string{
			"call_succeeds"}},
		{name: "maintenance", req: Request{Query: "pinecone"}, poll: 300, want: []string{"maintenance_ends status.changed pinecone"},
			edit: func(v *fakeView) View {
				sum := v.summaries["pinecone"]
				sum.Status = api.Maintenance
				v.summaries["pinecone"] = sum
				return v
			}},
		{name: "a model down everywhere", req: Request{Query: "claude-sonnet-4.5", Error: "529"}, poll: 60, want: []string{
			"recovered model.recovered model:anthropic/claude-sonnet-4.5", "model_uptime"},
			edit: func(v *fakeView) View { return down(v) }},
		{name: "a surface", req: Request{Query: "claude.ai"}, poll: 300, want: []string{
			"recovered surface.recovered anthropic/app", "incident_resolved anthropic-x1"},
			edit: func(v *fakeView) View {
				sum := v.summaries["anthropic"]
				sum.Surfaces = []api.SurfaceSummary{
					{ID: catalog.SurfaceAPI, Name: "Anthropic API", Status: api.Operational, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}},
					{ID: catalog.SurfaceApp, Name: "claude.ai", Status: api.MajorOutage, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{clauded}},
				}
				v.summaries["anthropic"] = sum
				return v
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			engine, fake, _ := newTestEngine(t, tt.failing...)
			var view View = fake
			if tt.edit != nil {
				view = tt.edit(fake)
			}
			doc, err := engine.Check(view, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			v := doc.Verdict
			if tt.poll == 0 {
				if v.PollAfterSeconds != nil || v.ResumeWhen != nil {
					t.Errorf("level %s, action %s: pollAfterSeconds %v, resumeWhen %+v, want neither", v.Level, v.Action, v.PollAfterSeconds, v.ResumeWhen)
				}
				return
			}
			if v.PollAfterSeconds == nil || *v.PollAfterSeconds != tt.poll {
				t.Errorf("level %s, action %s: pollAfterSeconds %v, want %d", v.Level, v.Action, v.PollAfterSeconds, tt.poll)
			}
			var got []string
			for _, c := range v.ResumeWhen {
				got = append(got, cond(c))
				if c.When == "" || !slices.Contains(api.ResumeConditions, c.Condition) || (c.Event == "") != (c.Subject == "") {
					t.Errorf("condition %+v", c)
				}
				if c.Condition == api.ResumeModelUptime && (c.Threshold == nil || *c.Threshold != history.ModelDegradedBelow) {
					t.Errorf("model uptime condition %+v, want the threshold of operational", c)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("resumeWhen:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestPollAfterBoundsDocumented: the OpenAPI description's bounds of
// pollAfterSeconds are MinPollAfter and MaxPollAfter, which docs/api.md
// states too.
func TestPollAfterBoundsDocumented(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../build/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Minimum, Maximum int
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	lo, hi := int(MinPollAfter.Seconds()), int(MaxPollAfter.Seconds())
	if p := doc.Components.Schemas["Verdict"].Properties["pollAfterSeconds"]; p.Minimum != lo || p.Maximum != hi {
		t.Errorf("openapi.json bounds pollAfterSeconds by %d and %d, want %d and %d", p.Minimum, p.Maximum, lo, hi)
	}
	docs, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docs), fmt.Sprintf("**%d s**", lo)) || !strings.Contains(string(docs), fmt.Sprintf("**%d s**", hi)) {
		t.Errorf("docs/api.md does not state the bounds %d s and %d s", lo, hi)
	}
}
