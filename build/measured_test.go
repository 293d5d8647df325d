package build

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/site"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

const openAIKey = "sk-proj-Zq81xWv3Lm0Tn5Ky7Rb2Hc9Jd4Fg6Pa1"

// measuredCycle runs one build with the given completion options, logging
// at debug level into log, and advances the clock a minute.
func (h *harness) measuredCycle(c Completions, log *bytes.Buffer) Result {
	h.t.Helper()
	opts := h.options()
	opts.Completions = c
	if log != nil {
		opts.Log = zerolog.New(zerolog.SyncWriter(log)).Level(zerolog.DebugLevel) // services log at once
	}
	res, err := Build(context.Background(), opts)
	if err != nil {
		h.t.Fatalf("build at %s: %v", h.clock.Now(), err)
	}
	h.clock.Advance(time.Minute)
	return res
}

// TestMeasuredCompletions is the "done when": with OPENAI_API_KEY
// set and a loopback OpenAI-compatible API that streams, a build publishes
// TTFT and total time per model; when completions get 529 while the keyless
// probe still gets 401, the model and the service read degraded, then
// down, with the disagreement shown, within one cycle; the key appears in
// no file or log line; without keys nothing is sent.
func TestMeasuredCompletions(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, scheduleCatalog(t, "openai"))
	var log bytes.Buffer

	// Without keys: nothing sent, nothing measured.
	h.measuredCycle(Completions{}, &log)
	for _, svc := range h.world.Catalog.Services {
		if n := len(h.world.Completions(svc.Slug)); n != 0 {
			t.Fatalf("%s: %d completions sent without a key", svc.Slug, n)
		}
		if doc := h.service(svc.Slug); doc.Measured == nil || len(doc.Measured) != 0 {
			t.Fatalf("%s: measured %+v without a key, want []", svc.Slug, doc.Measured)
		}
	}

	keys := Completions{Keys: map[string]string{"OPENAI_API_KEY": openAIKey}}
	h.measuredCycle(keys, &log)
	reqs := h.world.Completions("openai")
	if len(reqs) != 1 {
		t.Fatalf("%d completion requests to openai, want 1 (one model)", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+openAIKey {
		t.Fatalf("Authorization %q", got)
	}
	for _, svc := range h.world.Catalog.Services {
		if n := len(h.world.Completions(svc.Slug)); svc.Slug != "openai" && n != 0 {
			t.Fatalf("%s got %d completions with only OpenAI's key set", svc.Slug, n)
		}
	}
	doc := h.service("openai")
	if len(doc.Measured) != 1 {
		t.Fatalf("measured %+v", doc.Measured)
	}
	m := doc.Measured[0]
	if m.Model != "openai/gpt-4o-mini" || m.APIModel != "gpt-4o-mini" || m.Status != api.Operational || m.LastOutcome != api.OutcomeOK {
		t.Fatalf("model %+v", m)
	}
	w := m.Windows.Hour
	if w.Samples != 1 || w.TTFTMs.P50 == nil || w.TotalMs.P50 == nil || *w.TTFTMs.P50 <= 0 || *w.TotalMs.P50 < *w.TTFTMs.P50 || *w.ErrorRate != 0 {
		t.Fatalf("1h window %+v", w)
	}
	if doc.Status != api.Operational || doc.Basis != api.BasisOfficial || doc.Sources.Disagreement != nil {
		t.Fatalf("a page saying operational and a completion that works: %s (%s) %+v", doc.Status, doc.Basis, doc.Sources.Disagreement)
	}

	// Completions get 529; the keyless probe still gets 401.
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 529 })
	h.measuredCycle(keys, &log)
	doc = h.service("openai")
	if doc.Sources.Probe.State != api.ProbeOK || doc.Sources.Probe.HTTPStatus != 401 {
		t.Fatalf("probe %+v: the host must still answer", doc.Sources.Probe)
	}
	m = doc.Measured[0]
	// The world's 529 is Anthropic's body: OpenAI's table does not list
	// its overloaded_error, so the code published is "other".
	if m.Status != api.Degraded || m.Windows.Hour.LastError == nil || m.Windows.Hour.LastError.HTTPStatus != 529 ||
		m.Windows.Hour.LastError.Code != api.OtherErrorCode || m.Windows.Hour.LastError.Outcome != api.OutcomeOverloaded {
		t.Fatalf("after one 529: model %+v, last error %+v", m, m.Windows.Hour.LastError)
	}
	d := doc.Sources.Disagreement
	if doc.Status != api.Degraded || doc.Basis != api.BasisMeasured || d == nil || d.By != api.EvidenceMeasured ||
		d.Official != api.Operational || d.Measured != api.Degraded || !strings.Contains(d.Detail, "HTTP 529") {
		t.Fatalf("after one 529: %s (%s), disagreement %+v", doc.Status, doc.Basis, d)
	}
	var status api.StatusDoc
	h.read(snapshot.FileStatus, &status)
	for _, s := range status.Services {
		if s.Slug == "openai" && (s.Status != api.Degraded || s.Disagreement == nil) {
			t.Fatalf("status.json: %+v", s)
		}
	}

	h.measuredCycle(keys, &log)
	h.measuredCycle(keys, &log)
	doc = h.service("openai")
	if doc.Measured[0].Status != api.MajorOutage || doc.Status != api.MajorOutage || doc.Sources.Disagreement == nil {
		t.Fatalf("after three 529s: model %s, service %s, %+v", doc.Measured[0].Status, doc.Status, doc.Sources.Disagreement)
	}
	if since := doc.Sources.Disagreement.Since; !since.Equal(t0.Add(2 * time.Minute)) {
		t.Fatalf("disagreement since %s, want the first 529 at %s", since, t0.Add(2*time.Minute))
	}

	// Answering again: the latest succeeded, but 3 of the hour's 5 failed
	// (over MeasuredDegradedRate), so the service still reads degraded.
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 0 })
	h.measuredCycle(keys, &log)
	doc = h.service("openai")
	if doc.Status != api.Degraded || doc.Basis != api.BasisMeasured || doc.Measured[0].Windows.Hour.Samples != 5 ||
		*doc.Measured[0].Windows.Hour.ErrorRate != 0.6 {
		t.Fatalf("answering again: %s (%s) %+v", doc.Status, doc.Basis, doc.Measured[0].Windows.Hour)
	}

	assertNoKey(t, h.out, log.String(), openAIKey)
}

// assertNoKey scans every published file and every log line for each key
// and for every 8-character piece of it.
func assertNoKey(t *testing.T, dir, log string, keys ...string) {
	t.Helper()
	if !strings.Contains(log, "measured completion") {
		t.Fatal("the log has no measured completion line: the scan would prove nothing")
	}
	for i, line := range strings.Split(log, "\n") {
		for _, key := range keys {
			if piece := heldPiece([]byte(line), key); piece != "" {
				t.Errorf("log line %d holds %q of a key: %s", i+1, piece, line)
			}
		}
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, key := range keys {
			if piece := heldPiece(data, key); piece != "" {
				t.Errorf("%s holds %q of a key", path, piece)
			}
		}
		return nil
	})
	if err != nil || files < 10 {
		t.Fatalf("walked %d files: %v", files, err)
	}
}

// heldPiece returns the first 8-character piece of key that data holds
// (the whole key when shorter); "" if none.
func heldPiece(data []byte, key string) string {
	if len(key) < 8 {
		if bytes.Contains(data, []byte(key)) {
			return key
		}
		return ""
	}
	for i := 0; i+8 <= len(key); i++ {
		if bytes.Contains(data, []byte(key[i:i+8])) {
			return key[i : i+8]
		}
	}
	return ""
}

// TestKeyEchoedByProvider: providers that echo the key where the error
// code goes, each way it can reach a sample (a 401's error.code, a 500's,
// the type of an Anthropic error event, an error chunk inside a 200
// stream), publish "other" and never the key: no published file and no
// log line holds any 8-character piece of a key. A code the service's
// table lists is kept; one it does not list, or of a service without a
// table, is "other".
func TestKeyEchoedByProvider(t *testing.T) {
	t.Parallel()
	keys := map[string]string{
		"OPENAI_API_KEY":    openAIKey,
		"ANTHROPIC_API_KEY": "sk-ant-api03-Vb7Qw2Lx9Rk4Tn8Jm1Hd6Pz3Fc5Gy0Ks",
		"DEEPSEEK_API_KEY":  "sk-ds-Wp4Kx9Mv2Qr7Tz1Bn6Hj3Lf8Gc5Yd0",
		"XAI_API_KEY":       "xai-Qm3Nw8Rt2Yv6Lp9Kd4Hs1Jf7Gb5Zc0Xa",
	}
	// One way each: openai and anthropic have an error table, deepseek
	// and xai none.
	echo := map[string]func(p *buildtest.Page){
		"openai": func(p *buildtest.Page) {
			k := keys["OPENAI_API_KEY"]
			p.CompletionStatus = 401
			p.CompletionBody = `{"error":{"message":"Incorrect API key provided: ` + k + `.","type":"invalid_request_error","param":null,"code":"` + k + `"}}`
		},
		"deepseek": func(p *buildtest.Page) {
			k := keys["DEEPSEEK_API_KEY"]
			p.CompletionStatus = 500
			p.CompletionBody = `{"error":{"message":"` + k + `","type":"` + k + `","code":"` + k + `"}}`
		},
		"anthropic": func(p *buildtest.Page) {
			k := keys["ANTHROPIC_API_KEY"]
			p.CompletionStatus = 200
			p.CompletionBody = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\"}}\n\n" +
				"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"" + k + "\",\"message\":\"" + k + "\"}}\n\n"
		},
		"xai": func(p *buildtest.Page) {
			k := keys["XAI_API_KEY"]
			p.CompletionStatus = 200
			p.CompletionBody = `data: {"choices":[{"index":0,"delta":{"content":"OK"}}]}` + "\n\n" +
				`data: {"error":{"message":"` + k + `","type":"` + k + `","code":"` + k + `"}}` + "\n\n"
		},
	}
	h := newHarness(t)
	var log bytes.Buffer
	for slug, set := range echo {
		h.world.Set(slug, set)
	}
	all := make([]string, 0, len(keys))
	for _, k := range keys {
		all = append(all, k)
	}
	h.measuredCycle(Completions{Keys: keys}, &log)
	assertNoKey(t, h.out, log.String(), all...)
	var hist history.History
	h.read(snapshot.FileHistory, &hist)
	for slug := range echo {
		if n := len(h.world.Completions(slug)); n != 1 {
			t.Fatalf("%s got %d completions, want 1", slug, n)
		}
		sh := hist.Services[slug]
		if sh == nil || len(sh.Completions) != 1 {
			t.Fatalf("%s: history %+v", slug, sh)
		}
		for id, samples := range sh.Completions {
			if len(samples) != 1 || samples[0].Code != api.OtherErrorCode {
				t.Errorf("%s %s: samples %+v, want one with code %q", slug, id, samples, api.OtherErrorCode)
			}
		}
	}

	// Codes the table lists are kept; others are "other".
	rateLimited := `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus, p.CompletionBody = 429, rateLimited })
	h.world.Set("deepseek", func(p *buildtest.Page) { p.CompletionStatus, p.CompletionBody = 429, rateLimited })
	h.world.Set("anthropic", func(p *buildtest.Page) {
		p.CompletionStatus, p.CompletionBody = 500, `{"type":"error","error":{"type":"brand_new_error","message":"Internal"}}`
	})
	h.world.Set("xai", func(p *buildtest.Page) { p.CompletionStatus, p.CompletionBody = 0, "" })
	h.measuredCycle(Completions{Keys: keys}, &log)
	for slug, want := range map[string]string{"openai": "rate_limit_exceeded", "deepseek": api.OtherErrorCode, "anthropic": api.OtherErrorCode} {
		doc := h.service(slug)
		if len(doc.Measured) != 1 || doc.Measured[0].Windows.Hour.LastError == nil || doc.Measured[0].Windows.Hour.LastError.Code != want {
			t.Errorf("%s: measured %+v, want the last error's code %q", slug, doc.Measured, want)
		}
	}
	for _, want := range []string{`"code":"rate_limit_exceeded"`, `"code":"other"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("no measured completion line logs %s", want)
		}
	}

	// Every file the leak was seen in is among those scanned.
	for _, name := range []string{snapshot.FileHistory, snapshot.FileStatus, snapshot.FileSources, snapshot.ServiceFile("openai"), site.ServicePage("openai")} {
		if _, err := os.Stat(filepath.Join(h.out, name)); err != nil {
			t.Errorf("%s is not published: the scan would miss it", name)
		}
	}
	assertNoKey(t, h.out, log.String(), all...)
}

// TestKeyRefused: a refused key is our configuration, not an outage: the
// page's word stands and the model says why it has no status.
func TestKeyRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 401 })
	var log bytes.Buffer
	h.measuredCycle(Completions{Keys: map[string]string{"OPENAI_API_KEY": openAIKey}}, &log)
	doc := h.service("openai")
	m := doc.Measured[0]
	if doc.Status != api.Operational || doc.Basis != api.BasisOfficial || m.Status != api.Unknown ||
		m.LastOutcome != api.OutcomeKeyRefused || !strings.Contains(m.Note, "our configuration") {
		t.Fatalf("refused key: %s (%s), %+v", doc.Status, doc.Basis, m)
	}
	if !strings.Contains(log.String(), `"level":"warn"`) {
		t.Fatalf("a refused key is not logged as a warning: %s", log.String())
	}
	assertNoKey(t, h.out, log.String(), openAIKey)
}

// TestCompletionEvery: --completion-every spaces the measurements out over
// cycles that build more often.
func TestCompletionEvery(t *testing.T) {
	t.Parallel()
	// OpenAI alone: 11 builds of every service cost 25 s under -race, and
	// the schedule is the same for each.
	h := newHarnessWith(t, scheduleCatalog(t, "openai"))
	keys := Completions{Keys: map[string]string{"OPENAI_API_KEY": openAIKey}, Every: 5 * time.Minute}
	for range 11 { // minutes 0 to 10
		h.measuredCycle(keys, nil)
	}
	if n := len(h.world.Completions("openai")); n != 3 {
		t.Fatalf("%d completions in 11 one-minute cycles every 5 minutes, want 3 (minutes 0, 5, 10)", n)
	}
}

// TestCompletionsOffline: when most probes fail at once (our network), a
// completion that got no answer is discarded, not an outage.
func TestCompletionsOffline(t *testing.T) {
	t.Parallel()
	// Five probed services, as TestBuildOurNetworkDown.
	h := newHarnessWith(t, scheduleCatalog(t, "openai", "anthropic", "groq", "mistral", "cohere"))
	keys := Completions{Keys: map[string]string{"OPENAI_API_KEY": openAIKey}}
	h.measuredCycle(keys, nil)
	h.world.SetAll(func(p *buildtest.Page) { p.FeedBroken, p.APIDown = true, true })
	for range 3 {
		h.measuredCycle(keys, nil)
	}
	doc := h.service("openai")
	if doc.Status != api.Unknown || doc.Measured[0].LastOutcome != api.OutcomeDiscarded || doc.Measured[0].Windows.Hour.Samples != 1 {
		t.Fatalf("offline: %s, %+v", doc.Status, doc.Measured[0])
	}
}

// TestCleanStoredCodes: the codes a history already holds follow the rule
// of new samples, whatever build wrote them: kept while the service's
// table lists them and they hold no piece of a configured key.
func TestCleanStoredCodes(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	sample := func(code string) []api.CompletionSample {
		return []api.CompletionSample{{At: t0, Outcome: api.OutcomeServerError, HTTPStatus: 500, Code: code}}
	}
	h := history.New()
	h.Services["openai"] = &history.ServiceHistory{Completions: map[string][]api.CompletionSample{
		"a/listed": sample("rate_limit_exceeded"), "a/unlisted": sample("overloaded_error"),
		"a/key": sample(openAIKey), "a/none": sample(""), "a/other": sample(api.OtherErrorCode),
	}}
	h.Services["deepseek"] = &history.ServiceHistory{Completions: map[string][]api.CompletionSample{"a/no-table": sample("rate_limit_exceeded")}}
	h.Services["untracked"] = &history.ServiceHistory{Completions: map[string][]api.CompletionSample{"a/gone": sample("rate_limit_exceeded")}}
	want := map[string]string{
		"a/listed": "rate_limit_exceeded", "a/unlisted": "other", "a/key": "other", "a/none": "", "a/other": "other",
		"a/no-table": "other", "a/gone": "other",
	}
	replaced, leaked := cleanStoredCodes(h, cat, map[string]string{"OPENAI_API_KEY": openAIKey, "XAI_API_KEY": "xai-unrelated-key-0000"})
	if replaced != 4 || !slices.Equal(leaked, []string{"OPENAI_API_KEY"}) {
		t.Errorf("replaced %d, leaked %v; want 4 and OPENAI_API_KEY", replaced, leaked)
	}
	for _, sh := range h.Services {
		for id, s := range sh.Completions {
			if s[0].Code != want[id] {
				t.Errorf("%s: code %q, want %q", id, s[0].Code, want[id])
			}
		}
	}
	// Even a listed code goes when it holds a piece of a key.
	h.Services["openai"].Completions["a/listed"] = sample("rate_limit_exceeded")
	if _, leaked := cleanStoredCodes(h, cat, map[string]string{"OPENAI_API_KEY": "sk-9fQ2t_exceedXw3Lm0Tn5"}); h.Services["openai"].Completions["a/listed"][0].Code != "other" || len(leaked) != 1 {
		t.Errorf("a listed code holding a piece of the key: %+v, leaked %v", h.Services["openai"].Completions["a/listed"], leaked)
	}
}

// TestKeyInStoredHistory: a history written before the rule, holding a key
// a provider echoed as its code, publishes none of it from the next build
// on, even when that key is no longer configured (rotated); a listed code
// is kept.
func TestKeyInStoredHistory(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, scheduleCatalog(t, "openai"))
	var log bytes.Buffer
	keys := Completions{Keys: map[string]string{"OPENAI_API_KEY": openAIKey}}
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 429 })
	h.measuredCycle(keys, &log)
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 529 })
	h.measuredCycle(keys, &log)
	// What a build before the rule wrote: the 529's code is the key.
	name := filepath.Join(h.out, snapshot.FileHistory)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(data, []byte(`"code":"other"`)) != 1 {
		t.Fatalf("history holds %d codes \"other\", want the 529's alone", bytes.Count(data, []byte(`"code":"other"`)))
	}
	if err := os.WriteFile(name, bytes.Replace(data, []byte(`"code":"other"`), []byte(`"code":"`+openAIKey+`"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}

	log.Reset()
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 0 })
	h.measuredCycle(Completions{Keys: map[string]string{"OPENAI_API_KEY": "sk-proj-Rotated4Kx9Mv2Qr7Tz1Bn6Hj3Lf8"}}, &log)
	var hist history.History
	h.read(snapshot.FileHistory, &hist)
	var codes []string
	for _, s := range hist.Services["openai"].Completions["openai/gpt-4o-mini"] {
		codes = append(codes, s.Code)
	}
	if !slices.Equal(codes, []string{"rate_limit_exceeded", "other", ""}) {
		t.Errorf("codes %q, want the listed one kept and the key replaced", codes)
	}
	if !strings.Contains(log.String(), `"codes":1`) {
		t.Errorf("the replaced code is not logged: %s", log.String())
	}
	assertNoKey(t, h.out, log.String(), openAIKey)
}
