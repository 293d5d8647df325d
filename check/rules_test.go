package check

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

func TestClassifyObserved(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want errorClass
		bad  bool
	}{
		{"", errNone, false},
		{"100", errNone, false},
		{"200", errNone, false},
		{"302", errNone, false},
		{"400", errRequest, false},
		{"401", errAuth, false},
		{"403", errAuth, false},
		{"402", errQuota, false},
		{"404", errRequest, false},
		{"407", errAuth, false},
		{"408", errTimeout, false},
		{"409", errRequest, false},
		{"413", errRequest, false},
		{"422", errRequest, false},
		{"429", errRateLimit, false},
		{"499", errRequest, false},
		{"500", errServer, false},
		{"502", errServer, false},
		{"503", errServer, false},
		{"504", errServer, false},
		{"529", errServer, false},
		{"599", errServer, false},
		{"timeout", errTimeout, false},
		{"connection", errConnection, false},
		{"099", "", true},
		{"600", "", true},
		{"42", "", true},
		{"4290", "", true},
		{"+42", "", true},
		{"429 ", "", true},
		{"4a9", "", true},
		{"Timeout", "", true},
		{"refused", "", true},
		{"٤٢٩", "", true}, // Arabic-Indic digits are not an HTTP status
	} {
		got, ok := classifyObserved(tt.in)
		if ok == tt.bad || got != tt.want {
			t.Errorf("classifyObserved(%q) = %q, %v; want %q, bad %v", tt.in, got, ok, tt.want, tt.bad)
		}
	}
}

// TestDecide exercises every rule of the table, one input each, plus
// the two adjustments (failover when an alternative is up, stale data
// lowering confidence).
func TestDecide(t *testing.T) {
	t.Parallel()
	const (
		proceed, retry, wait, failover, fix = api.ActionProceed, api.ActionRetry, api.ActionWait, api.ActionFailover, api.ActionFixClient
		provider, client, unknown           = api.BlameProvider, api.BlameClient, api.BlameUnknown
		high, medium, low                   = api.ConfidenceHigh, api.ConfidenceMedium, api.ConfidenceLow
	)
	type want struct {
		action, blame, confidence string
		retryAfter                int
	}
	calm := func(e errorClass) ruleInput { return ruleInput{Error: e, Health: healthUp, Probe: probeOK} }
	with := func(s ruleInput, edit func(*ruleInput)) ruleInput { edit(&s); return s }
	tests := []struct {
		name string
		in   ruleInput
		want want
	}{
		// No error: the status decides.
		{"no error, stale", ruleInput{Error: errNone, Health: healthStale, Probe: probeOK}, want{retry, unknown, low, 60}},
		{"no error, stale, alternative up: still retry", ruleInput{Error: errNone, Health: healthStale, AltUp: true}, want{retry, unknown, low, 60}},
		{"no error, up but our probe fails", with(calm(errNone), func(s *ruleInput) { s.Probe = probeFailing }), want{retry, provider, medium, 30}},
		{"no error, up", calm(errNone), want{proceed, unknown, high, 0}},
		{"no error, up, no probe", with(calm(errNone), func(s *ruleInput) { s.Probe = probeNone }), want{proceed, unknown, high, 0}},
		{"no error, degraded", with(calm(errNone), func(s *ruleInput) { s.Health = healthDegraded }), want{proceed, provider, medium, 0}},
		{"no error, down, no alternative", ruleInput{Error: errNone, Health: healthDown, Probe: probeFailing}, want{wait, provider, high, 120}},
		{"no error, down, alternative up", ruleInput{Error: errNone, Health: healthDown, AltUp: true}, want{failover, provider, high, 0}},
		{"no error, maintenance", ruleInput{Error: errNone, Health: healthMaintenance}, want{wait, provider, medium, 300}},
		{"no error, maintenance, alternative up", ruleInput{Error: errNone, Health: healthMaintenance, AltUp: true}, want{failover, provider, medium, 0}},
		{"no error, unknown", ruleInput{Error: errNone, Health: healthUnknown, Probe: probeNone}, want{retry, unknown, low, 60}},

		// 401/403.
		{"401, up", calm(errAuth), want{fix, client, high, 0}},
		{"401, up, alternative up: still fix the client", with(calm(errAuth), func(s *ruleInput) { s.AltUp = true }), want{fix, client, high, 0}},
		{"403, up during an incident", with(calm(errAuth), func(s *ruleInput) { s.Incident = true }), want{fix, client, medium, 0}},
		{"401, down", ruleInput{Error: errAuth, Health: healthDown}, want{fix, client, medium, 0}},
		{"401, stale", ruleInput{Error: errAuth, Health: healthStale}, want{fix, client, low, 0}},

		// Other 4xx.
		{"400, up", calm(errRequest), want{fix, client, high, 0}},
		{"422, degraded", with(calm(errRequest), func(s *ruleInput) { s.Health = healthDegraded }), want{fix, client, high, 0}},
		{"404, unknown", ruleInput{Error: errRequest, Health: healthUnknown}, want{fix, client, medium, 0}},
		{"413, stale", ruleInput{Error: errRequest, Health: healthStale}, want{fix, client, low, 0}},

		// 429.
		{"429, up", calm(errRateLimit), want{retry, client, high, 30}},
		{"429, up, stale is not up", ruleInput{Error: errRateLimit, Health: healthStale}, want{retry, client, low, 30}},
		{"429, down", ruleInput{Error: errRateLimit, Health: healthDown}, want{wait, provider, medium, 60}},
		{"429, down, alternative up", ruleInput{Error: errRateLimit, Health: healthDown, AltUp: true}, want{failover, provider, medium, 0}},
		{"429, up during an incident", with(calm(errRateLimit), func(s *ruleInput) { s.Incident = true }), want{wait, provider, medium, 60}},
		{"429, degraded", with(calm(errRateLimit), func(s *ruleInput) { s.Health = healthDegraded }), want{retry, client, medium, 30}},

		// 5xx and 529.
		{"529 during an official incident", with(calm(errServer), func(s *ruleInput) { s.Incident = true; s.Health = healthDegraded }), want{wait, provider, high, 120}},
		{"529 during an official incident, alternative up", with(calm(errServer), func(s *ruleInput) { s.Incident = true; s.AltUp = true }), want{failover, provider, high, 0}},
		{"500, down", ruleInput{Error: errServer, Health: healthDown, Probe: probeOK}, want{wait, provider, high, 120}},
		{"503 while our probe fails and the page is calm", with(calm(errServer), func(s *ruleInput) { s.Probe = probeFailing }), want{wait, provider, high, 60}},
		{"503 while our probe fails, alternative up", with(calm(errServer), func(s *ruleInput) { s.Probe = probeFailing; s.AltUp = true }), want{failover, provider, high, 0}},
		{"502, degraded", with(calm(errServer), func(s *ruleInput) { s.Health = healthDegraded }), want{retry, provider, medium, 30}},
		{"503, maintenance", with(calm(errServer), func(s *ruleInput) { s.Health = healthMaintenance }), want{retry, provider, medium, 30}},
		{"500, up, probe fine", calm(errServer), want{retry, provider, medium, 10}},
		{"500, up, no probe", with(calm(errServer), func(s *ruleInput) { s.Probe = probeNone }), want{retry, provider, low, 30}},
		{"500, stale", ruleInput{Error: errServer, Health: healthStale, Probe: probeOK}, want{retry, provider, low, 30}},
		{"500, stale, incident: lowered", ruleInput{Error: errServer, Health: healthStale, Incident: true}, want{wait, provider, medium, 120}},

		// Timeouts and connection errors.
		{"timeout, our probe fails too", with(calm(errTimeout), func(s *ruleInput) { s.Probe = probeFailing }), want{wait, provider, high, 60}},
		{"connection, our probe fails too, alternative up", with(calm(errConnection), func(s *ruleInput) { s.Probe = probeFailing; s.AltUp = true }), want{failover, provider, high, 0}},
		{"timeout during an official incident", with(calm(errTimeout), func(s *ruleInput) { s.Incident = true }), want{wait, provider, medium, 60}},
		{"connection, down", ruleInput{Error: errConnection, Health: healthDown, Probe: probeNone}, want{wait, provider, medium, 60}},
		{"timeout, probe fine, page calm", calm(errTimeout), want{retry, unknown, medium, 10}},
		{"connection, probe fine, page calm", calm(errConnection), want{retry, unknown, medium, 10}},
		{"timeout, degraded, probe fine", with(calm(errTimeout), func(s *ruleInput) { s.Health = healthDegraded }), want{retry, unknown, low, 30}},
		{"timeout, no probe", with(calm(errTimeout), func(s *ruleInput) { s.Probe = probeNone }), want{retry, unknown, low, 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := decide(tt.in)
			got := want{a.Action, a.Blame, a.Confidence, a.RetryAfter}
			if got != tt.want {
				t.Errorf("decide(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
			if a.Reason == "" {
				t.Error("no reason")
			}
		})
	}
}

// TestRuleTable walks every input: each row of the table is the first
// match of at least one (no dead rows), every answer uses the documented
// values, and retryAfterSeconds is set exactly when the advice is to retry
// or wait.
func TestRuleTable(t *testing.T) {
	t.Parallel()
	rules := checkRules()
	hit := make([]bool, len(rules))
	for _, e := range []errorClass{errNone, errAuth, errRequest, errRateLimit, errServer, errTimeout, errConnection, errQuota, errConcurrency, errOverloaded, errModel, errKeyRateLimit, errRegion} {
		for _, h := range []health{healthUp, healthDegraded, healthDown, healthMaintenance, healthUnknown, healthStale} {
			for _, p := range []probeState{probeOK, probeFailing, probeNone, probeOursDown, probeYoursDown, probeRegional} {
				for _, inc := range []bool{false, true} {
					for _, alt := range []bool{false, true} {
						s := ruleInput{Error: e, Health: h, Probe: p, Incident: inc, AltUp: alt}
						i := slices.IndexFunc(rules, func(r rule) bool { return r.matches(s) })
						if i < 0 {
							t.Fatalf("%+v matches no rule", s)
						}
						hit[i] = true
						a := decide(s)
						if !slices.Contains(api.VerdictActions, a.Action) || !slices.Contains(api.VerdictBlames, a.Blame) ||
							!slices.Contains(api.VerdictConfidences, a.Confidence) {
							t.Errorf("%+v: %+v uses an undocumented value", s, a)
						}
						waits := a.Action == api.ActionRetry || a.Action == api.ActionWait
						if waits != (a.RetryAfter > 0) {
							t.Errorf("%+v: action %s with retryAfter %d", s, a.Action, a.RetryAfter)
						}
						if a.Action == api.ActionWait && alt {
							t.Errorf("%+v: wait although an alternative is up", s)
						}
					}
				}
			}
		}
	}
	for i, ok := range hit {
		if !ok {
			t.Errorf("rule %d (%q) is never the first match", i, rules[i].advice.Reason)
		}
	}
}

// rulesMarkdown renders checkRules as the Markdown table docs/api.md and the
// OpenAPI description of /check show.
func rulesMarkdown() string {
	errorLabel := map[errorClass]string{
		errNone: "none, 1xx–3xx", errAuth: "401, 403, 407", errRequest: "other 4xx", errRateLimit: "429",
		errServer: "5xx, 529", errTimeout: "timeout, 408", errConnection: "connection",
		errQuota: "402, code: quota", errConcurrency: "code: concurrency", errOverloaded: "code: overloaded", errModel: "code: model", errKeyRateLimit: "code: rate_limit",
		errRegion: "code: region",
	}
	var b strings.Builder
	b.WriteString("| error | status | our probe | incident | action | blame | confidence | retry after |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range checkRules() {
		var errs, hs []string
		for _, e := range r.errors {
			errs = append(errs, errorLabel[e])
		}
		for _, h := range r.health {
			hs = append(hs, string(h))
		}
		anyOf := func(items []string) string { return cmp.Or(strings.Join(items, ", "), "any") }
		incident := map[tri]string{either: "any", yes: "yes", no: "no"}[r.incident]
		retry := "–"
		if r.advice.RetryAfter > 0 {
			retry = strconv.Itoa(r.advice.RetryAfter)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", anyOf(errs), anyOf(hs), cmp.Or(string(r.probe), "any"), incident,
			r.advice.Action, r.advice.Blame, r.advice.Confidence, retry)
	}
	return b.String()
}

// TestRulesDocumented: docs/api.md and the OpenAPI description state the
// rule table exactly as the code has it.
func TestRulesDocumented(t *testing.T) {
	t.Parallel()
	table := rulesMarkdown()
	readme, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), table) {
		t.Errorf("docs/api.md does not hold the rule table as implemented:\n%s", table)
	}
	raw, err := os.ReadFile("../build/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]struct {
			Get struct {
				Description string `json:"description"`
			} `json:"get"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if d := doc.Paths["/check"].Get.Description; !strings.Contains(d, table) {
		t.Errorf("openapi.json's /check description does not hold the rule table as implemented:\n%s", table)
	}
}

// FuzzClassifyObserved: /check's error parameter is accepted exactly when
// it is the documented pattern (the one in openapi.json), and never panics.
func FuzzClassifyObserved(f *testing.F) {
	for _, s := range []string{"", "401", "529", "100", "599", "600", "099", "timeout", "connection", "٤٢٩", "4\x0029"} {
		f.Add(s)
	}
	pattern := regexp.MustCompile(`^([1-5][0-9]{2}|timeout|connection)$`)
	f.Fuzz(func(t *testing.T, s string) {
		class, valid := classifyObserved(s)
		if s == "" {
			return
		}
		if ok := pattern.MatchString(s); ok != valid {
			t.Fatalf("classifyObserved(%q): accepted %v, pattern match %v", s, valid, ok)
		}
		if valid && class == "" {
			t.Fatalf("classifyObserved(%q): no class", s)
		}
	})
}

// The rules read the verdict's level as the service's health: every level a
// tracked service can have must be a health the rules know.
func TestVerdictLevelsAreHealths(t *testing.T) {
	t.Parallel()
	known := []health{healthUp, healthDegraded, healthDown, healthMaintenance, healthUnknown, healthStale}
	for _, st := range api.Statuses {
		for _, stale := range []bool{false, true} {
			if level := verdict("X", st, stale, time.Hour).Level; !slices.Contains(known, health(level)) {
				t.Errorf("status %s (stale %v): level %q is no health of the rules", st, stale, level)
			}
		}
	}
}
