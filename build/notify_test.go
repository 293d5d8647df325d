package build

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/notify"
	"github.com/aistatus/aistatus/notify/notifytest"
	"github.com/rs/zerolog"
)

// TestWebhooks builds twice with a verifying receiver, a failing one and
// one that never answers: the builds are not slowed or failed, the good
// receiver gets every change once and in order, the failing one is retried.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	good := notifytest.NewWebhookReceiver(t)
	failing, failures := notifytest.StatusServer(t, http.StatusInternalServerError)
	released := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body first: only then does net/http notice the client
		// hanging up and cancel the request's context.
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-released: // the test is over: let its server close
		}
	}))
	defer hanging.Close()
	defer close(released)

	h := newHarnessWith(t, scheduleCatalog(t, "openai"))
	ctx := context.Background()
	n, err := notify.New(ctx, notify.Options{
		URLs: []string{failing.URL, hanging.URL, good.URL}, Secret: notifytest.Secret, BaseURL: "https://aistatus.example",
		// No client timeout: an attempt at the hanging receiver lasts the
		// notifier's own notify.AttemptTimeout, so that waiting for it, in a
		// build or past Close's deadline, would cost far more than the work.
		Client: &http.Client{}, Log: h.options().Log,
		QueueSize: 10_000, Attempts: 3, Backoff: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := h.options()
	opts.Notifier = n
	var changes []api.Change
	for i := range 2 {
		if i == 1 {
			h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.MajorOutage })
		}
		start := time.Now()
		res, err := Build(ctx, opts)
		if err != nil {
			t.Fatalf("build %d with failing receivers: %v", i, err)
		}
		// A build of the fake world takes about a second (up to three or
		// four on a loaded machine under the race detector); one that waited
		// for the hanging receiver would take 3 attempts of
		// notify.AttemptTimeout for each change. The bound sits far from both.
		if d := time.Since(start); d > 2*notify.AttemptTimeout {
			t.Errorf("build %d took %s: it waited for the hanging receiver?", i, d)
		}
		changes = append(changes, res.Changes...)
		h.clock.Advance(time.Minute)
	}
	// The good receiver and the failing one are served by their own
	// queues, whatever the hanging one does.
	want := int32(3 * len(changes))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got := len(good.Events())
		if got >= len(changes) && failures.Load() >= want {
			break
		}
	}
	// Close gives up on the hanging receiver's queue at its deadline, not
	// when the attempt in progress (and the retries after it) would end.
	drain, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	n.Close(drain)
	if d := time.Since(start); d > notify.AttemptTimeout {
		t.Errorf("Close took %s, with a deadline of 300ms: it waited for the hanging receiver?", d)
	}

	if bad := good.Refused(); len(bad) > 0 {
		t.Errorf("receiver refused %d deliveries: %s", len(bad), bad[0])
	}
	events := good.Events()
	if len(events) != len(changes) {
		t.Fatalf("receiver got %d events, want %d", len(events), len(changes))
	}
	for i, ev := range events {
		c := changes[i]
		if ev.ID != fmt.Sprint(c.ID) || ev.Type != "ai.aistatus."+string(c.Type) || ev.Subject != c.Subject() ||
			ev.SpecVersion != "1.0" || ev.Source != "https://aistatus.example/api/v1" || ev.Data.NewStatus != c.NewStatus {
			t.Errorf("event %d = %+v, want change %+v", i, ev, c)
		}
	}
	if last := events[len(events)-1]; last.Subject != "openai" || last.Data.NewStatus != api.MajorOutage {
		t.Errorf("last event %+v, want openai's outage", last)
	}
	if got := failures.Load(); got != want {
		t.Errorf("failing receiver got %d attempts, want %d (3 per change)", got, want)
	}
}

// TestWebhookRecovery builds through an outage of OpenAI and its end: the
// build in which the page comes back logs one service.recovered, after the
// status change, and a receiver gets it once, as a CloudEvent whose type
// and subject a client waiting to resume can match; the builds around it
// log none.
func TestWebhookRecovery(t *testing.T) {
	t.Parallel()
	rcv := notifytest.NewWebhookReceiver(t)
	h := newHarnessWith(t, scheduleCatalog(t, "openai"))
	ctx := context.Background()
	n, err := notify.New(ctx, notify.Options{
		URLs: []string{rcv.URL}, Secret: notifytest.Secret, BaseURL: "https://aistatus.example",
		Client: &http.Client{}, Log: h.options().Log, QueueSize: 10_000, Attempts: 1, Backoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := h.options()
	opts.Notifier = n
	recoveries := func(changes []api.Change) []api.Change {
		var out []api.Change
		for _, c := range changes {
			if c.Type == api.ChangeServiceRecovered {
				out = append(out, c)
			}
		}
		return out
	}
	for i, openai := range []api.Status{api.Operational, api.MajorOutage, api.Operational, api.Operational} {
		h.world.Set("openai", func(p *buildtest.Page) { p.Status = openai })
		res, err := Build(ctx, opts)
		if err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		h.clock.Advance(time.Minute)
		got := recoveries(res.Changes)
		if i != 2 {
			if len(got) > 0 {
				t.Errorf("build %d (openai %s) logged %+v, want no recovery", i, openai, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Service != "openai" || got[0].OldStatus != api.MajorOutage || got[0].NewStatus != api.Operational {
			t.Fatalf("the build that saw openai back logged %+v, want one service.recovered of openai from major_outage", got)
		}
		at := slices.IndexFunc(res.Changes, func(c api.Change) bool { return c.ID == got[0].ID })
		if at == 0 || res.Changes[at-1].Type != api.ChangeStatus || res.Changes[at-1].Service != "openai" {
			t.Errorf("the recovery does not follow openai's status change: %+v", res.Changes)
		}
	}
	drain, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n.Close(drain)

	if bad := rcv.Refused(); len(bad) > 0 {
		t.Errorf("receiver refused %d deliveries: %s", len(bad), bad[0])
	}
	var recovered []api.CloudEvent
	for _, ev := range rcv.Events() {
		if ev.Type == api.CloudEventTypePrefix+string(api.ChangeServiceRecovered) {
			recovered = append(recovered, ev)
		}
	}
	if len(recovered) != 1 {
		t.Fatalf("receiver got %d service.recovered events, want 1: %+v", len(recovered), recovered)
	}
	if ev := recovered[0]; ev.Subject != "openai" || ev.Data.OldStatus != api.MajorOutage || ev.Data.NewStatus != api.Operational {
		t.Errorf("recovery event %+v, want openai back from major_outage", ev)
	}
}

// TestChatNotifyBuild builds twice against the fake world, OpenAI going
// into a major outage and Anthropic degraded in the second build: a
// loopback Slack receiver filtered to partial outages of OpenAI and
// Anthropic gets one message, in Slack's shape, of OpenAI alone; a Discord
// receiver filtered to Anthropic gets one, in Discord's shape, of
// Anthropic alone; one filtered to Mistral gets nothing, nor does any for
// the first build (every status is a first check). A failing receiver is
// retried, and no log line holds any URL's token.
func TestChatNotifyBuild(t *testing.T) {
	t.Parallel()
	slack, discord, quiet, failing := notifytest.NewChatReceiver(t, 0), notifytest.NewChatReceiver(t, 0), notifytest.NewChatReceiver(t, 0), notifytest.NewChatReceiver(t, http.StatusBadGateway)
	h := newHarness(t)
	var logs syncLog
	ctx := context.Background()
	n, err := notify.New(ctx, notify.Options{
		Destinations: []notify.Destination{
			{URL: slack.URL + "/services/T000/B000/SLACKTOKEN", Kind: notify.Slack,
				Filter: notify.Filter{Services: []string{"openai", "anthropic"}, MinStatus: api.PartialOutage}},
			{URL: discord.URL + "/api/webhooks/123/DISCORDTOKEN", Kind: notify.Discord, Filter: notify.Filter{Services: []string{"anthropic"}}},
			{URL: quiet.URL + "/services/T000/B000/QUIETTOKEN", Kind: notify.Slack, Filter: notify.Filter{Services: []string{"mistral"}}},
			{URL: failing.URL + "/api/webhooks/456/FAILINGTOKEN", Kind: notify.Discord},
		},
		BaseURL: "https://aistatus.example", Names: notify.SubjectNames(h.world.Catalog),
		Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := h.options()
	opts.Notifier = n
	settle := func() {
		// Delivery is asynchronous: wait for the failing receiver's two
		// attempts, which come after nothing else.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if len(failing.Received())%2 == 0 && strings.Count(logs.String(), "giving up") == len(failing.Received())/2 {
				return
			}
		}
	}
	if _, err := Build(ctx, opts); err != nil {
		t.Fatal(err)
	}
	settle()
	for name, rcv := range map[string]*notifytest.ChatReceiver{"slack": slack, "discord": discord, "quiet": quiet, "failing": failing} {
		if got := rcv.Received(); len(got) != 0 {
			t.Errorf("first build: %s got %d posts, want none (first checks are no transitions)", name, len(got))
		}
	}
	h.clock.Advance(time.Minute)
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	h.world.Set("anthropic", func(p *buildtest.Page) { p.Status = api.Degraded })
	if _, err := Build(ctx, opts); err != nil {
		t.Fatal(err)
	}
	drain, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n.Close(drain)

	tests := []struct {
		name       string
		rcv        *notifytest.ChatReceiver
		kind       notify.Kind
		path       string
		want, deny []string
	}{
		{"slack", slack, notify.Slack, "POST /services/T000/B000/SLACKTOKEN",
			[]string{"OpenAI", "up → major outage", "https://aistatus.example/services/openai", "the official status page"},
			[]string{"Anthropic", "degraded"}},
		{"discord", discord, notify.Discord, "POST /api/webhooks/123/DISCORDTOKEN",
			[]string{"Anthropic", "up → degraded", "https://aistatus.example/services/anthropic"},
			[]string{"OpenAI"}},
	}
	for _, tt := range tests {
		posts := tt.rcv.Received()
		if len(posts) != 1 {
			t.Errorf("%s: %d posts, want 1", tt.name, len(posts))
			continue
		}
		p := posts[0]
		if p.Path != tt.path || p.ContentType != "application/json" {
			t.Errorf("%s: %s with %s, want %s with application/json", tt.name, p.Path, p.ContentType, tt.path)
		}
		if err := notifytest.CheckPayload(string(tt.kind), p.Body); err != nil {
			t.Errorf("%s: %v: %s", tt.name, err, p.Body)
		}
		for _, s := range tt.want {
			if !strings.Contains(string(p.Body), s) {
				t.Errorf("%s: no %q in %s", tt.name, s, p.Body)
			}
		}
		for _, s := range tt.deny {
			if strings.Contains(string(p.Body), s) {
				t.Errorf("%s: %q, which its filter leaves out, in %s", tt.name, s, p.Body)
			}
		}
	}
	if got := quiet.Received(); len(got) != 0 {
		t.Errorf("the receiver filtered to Mistral got %d posts", len(got))
	}
	if got := failing.Received(); len(got) != 2 {
		t.Errorf("the failing receiver got %d posts, want 2 (one message, two attempts)", len(got))
	}
	log := logs.String()
	if !strings.Contains(log, `"receiver":4`) || !strings.Contains(log, `"kind":"discord"`) {
		t.Errorf("the failed delivery is not logged with its receiver's index and kind: %s", log)
	}
	for line := range strings.Lines(log) {
		if strings.Contains(line, "TOKEN") || strings.Contains(line, "/services/") || strings.Contains(line, "/webhooks/") {
			t.Errorf("a log line names a URL's path: %s", line)
		}
	}
}

// TestChatRecoveryBuild builds against the fake world: OpenAI falls into a
// major outage and Anthropic is degraded, then both are back 42 minutes
// later. Every chat kind filtered to OpenAI hears of the recovery once, in
// words, with its length; one filtered to partial outages of Anthropic
// hears nothing of the degraded spell nor of its end.
func TestChatRecoveryBuild(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receivers := map[notify.Kind]*notifytest.ChatReceiver{}
	var dests []notify.Destination
	for _, kind := range []notify.Kind{notify.Slack, notify.Discord, notify.Teams, notify.Ntfy} {
		receivers[kind] = notifytest.NewChatReceiver(t, 0)
		dests = append(dests, notify.Destination{URL: receivers[kind].URL + "/hooks/TOKEN", Kind: kind, Filter: notify.Filter{Services: []string{"openai"}}})
	}
	quiet := notifytest.NewChatReceiver(t, 0)
	dests = append(dests, notify.Destination{URL: quiet.URL + "/hooks/TOKEN", Kind: notify.Slack,
		Filter: notify.Filter{Services: []string{"anthropic"}, MinStatus: api.PartialOutage}})
	var logs syncLog
	ctx := context.Background()
	n, err := notify.New(ctx, notify.Options{Destinations: dests, BaseURL: "https://aistatus.example",
		Names: notify.SubjectNames(h.world.Catalog), Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	opts := h.options()
	opts.Notifier = n
	var changes []api.Change
	build := func() {
		res, err := Build(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, res.Changes...)
	}
	build()
	h.clock.Advance(time.Minute)
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	h.world.Set("anthropic", func(p *buildtest.Page) { p.Status = api.Degraded })
	build()
	h.clock.Advance(42 * time.Minute)
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.Operational })
	h.world.Set("anthropic", func(p *buildtest.Page) { p.Status = api.Operational })
	build()
	drain, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n.Close(drain)
	var types []api.ChangeType
	for _, c := range changes {
		if c.Service == "openai" && c.Surface == "" && c.Model == nil {
			types = append(types, c.Type)
		}
	}
	if !slices.Contains(types, api.ChangeServiceRecovered) {
		t.Fatalf("OpenAI's changes %v have no recovery: the test's world did not recover", types)
	}
	for kind, rcv := range receivers {
		posts := rcv.Received()
		if len(posts) != 2 {
			t.Errorf("%s: %d posts, want 2 (the outage, the recovery)", kind, len(posts))
			continue
		}
		if err := notifytest.CheckPayload(string(kind), posts[1].Body); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
		body := string(posts[1].Body)
		if !strings.Contains(body, "is back: up after 42 min of major outage") {
			t.Errorf("%s: the recovery is not told in words: %s", kind, body)
		}
		for _, deny := range []string{"recovered", "→", "❔", "changes:"} {
			if strings.Contains(body, deny) {
				t.Errorf("%s: %q in the recovery's message (an event type, its status change, or more than one line): %s", kind, deny, body)
			}
		}
	}
	if got := quiet.Received(); len(got) != 0 {
		t.Errorf("the receiver of Anthropic's partial outages got %d posts: %s", len(got), got[0].Body)
	}
}

// syncLog is a log written by goroutines (the notifier's workers, a
// build's services) while the test reads it.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
