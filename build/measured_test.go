package build

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build/buildtest"
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
		opts.Log = zerolog.New(log).Level(zerolog.DebugLevel)
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
	h := newHarness(t)
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
	if m.Model != "openai/gpt-4o-mini" || m.APIModel != "gpt-4o-mini" || m.Status != snapshot.Operational || m.LastOutcome != snapshot.OutcomeOK {
		t.Fatalf("model %+v", m)
	}
	w := m.Windows.Hour
	if w.Samples != 1 || w.TTFTMs.P50 == nil || w.TotalMs.P50 == nil || *w.TTFTMs.P50 <= 0 || *w.TotalMs.P50 < *w.TTFTMs.P50 || *w.ErrorRate != 0 {
		t.Fatalf("1h window %+v", w)
	}
	if doc.Status != snapshot.Operational || doc.Basis != snapshot.BasisOfficial || doc.Sources.Disagreement != nil {
		t.Fatalf("a page saying operational and a completion that works: %s (%s) %+v", doc.Status, doc.Basis, doc.Sources.Disagreement)
	}

	// Completions get 529; the keyless probe still gets 401.
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 529 })
	h.measuredCycle(keys, &log)
	doc = h.service("openai")
	if doc.Sources.Probe.State != snapshot.ProbeOK || doc.Sources.Probe.HTTPStatus != 401 {
		t.Fatalf("probe %+v: the host must still answer", doc.Sources.Probe)
	}
	m = doc.Measured[0]
	if m.Status != snapshot.Degraded || m.Windows.Hour.LastError == nil || m.Windows.Hour.LastError.HTTPStatus != 529 ||
		m.Windows.Hour.LastError.Code != "overloaded_error" || m.Windows.Hour.LastError.Outcome != snapshot.OutcomeOverloaded {
		t.Fatalf("after one 529: model %+v, last error %+v", m, m.Windows.Hour.LastError)
	}
	d := doc.Sources.Disagreement
	if doc.Status != snapshot.Degraded || doc.Basis != snapshot.BasisMeasured || d == nil || d.By != snapshot.EvidenceMeasured ||
		d.Official != snapshot.Operational || d.Measured != snapshot.Degraded || !strings.Contains(d.Detail, "HTTP 529") {
		t.Fatalf("after one 529: %s (%s), disagreement %+v", doc.Status, doc.Basis, d)
	}
	var status snapshot.StatusDoc
	h.read(snapshot.FileStatus, &status)
	for _, s := range status.Services {
		if s.Slug == "openai" && (s.Status != snapshot.Degraded || s.Disagreement == nil) {
			t.Fatalf("status.json: %+v", s)
		}
	}

	h.measuredCycle(keys, &log)
	h.measuredCycle(keys, &log)
	doc = h.service("openai")
	if doc.Measured[0].Status != snapshot.MajorOutage || doc.Status != snapshot.MajorOutage || doc.Sources.Disagreement == nil {
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
	if doc.Status != snapshot.Degraded || doc.Basis != snapshot.BasisMeasured || doc.Measured[0].Windows.Hour.Samples != 5 ||
		*doc.Measured[0].Windows.Hour.ErrorRate != 0.6 {
		t.Fatalf("answering again: %s (%s) %+v", doc.Status, doc.Basis, doc.Measured[0].Windows.Hour)
	}

	assertNoKey(t, h.out, log.String(), openAIKey)
}

// assertNoKey scans every published file and every log line for the key.
func assertNoKey(t *testing.T, dir, log, key string) {
	t.Helper()
	if !strings.Contains(log, "measured completion") {
		t.Fatal("the log has no measured completion line: the scan would prove nothing")
	}
	if strings.Contains(log, key) {
		t.Fatal("the key is in the log")
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
		if bytes.Contains(data, []byte(key)) || bytes.Contains(data, []byte(key[len(key)-12:])) {
			t.Errorf("the key is in %s", path)
		}
		return nil
	})
	if err != nil || files < 10 {
		t.Fatalf("walked %d files: %v", files, err)
	}
}

// TestKeyRefused: a refused key is our configuration, not an outage: the
// page's word stands and the model says why it has no status.
func TestKeyRefused(t *testing.T) {
	h := newHarness(t)
	h.world.Set("openai", func(p *buildtest.Page) { p.CompletionStatus = 401 })
	var log bytes.Buffer
	h.measuredCycle(Completions{Keys: map[string]string{"OPENAI_API_KEY": openAIKey}}, &log)
	doc := h.service("openai")
	m := doc.Measured[0]
	if doc.Status != snapshot.Operational || doc.Basis != snapshot.BasisOfficial || m.Status != snapshot.Unknown ||
		m.LastOutcome != snapshot.OutcomeKeyRefused || !strings.Contains(m.Note, "our configuration") {
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
	h := newHarness(t)
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
	h := newHarness(t)
	keys := Completions{Keys: map[string]string{"OPENAI_API_KEY": openAIKey}}
	h.measuredCycle(keys, nil)
	h.world.SetAll(func(p *buildtest.Page) { p.FeedBroken, p.APIDown = true, true })
	for range 3 {
		h.measuredCycle(keys, nil)
	}
	doc := h.service("openai")
	if doc.Status != snapshot.Unknown || doc.Measured[0].LastOutcome != snapshot.OutcomeDiscarded || doc.Measured[0].Windows.Hour.Samples != 1 {
		t.Fatalf("offline: %s, %+v", doc.Status, doc.Measured[0])
	}
}
