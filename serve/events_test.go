package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// changeWorld publishes snapshots built by the real Assemble and Render from
// scripted official statuses, one a minute, so that the log the server reads
// is the one a build keeps.
type changeWorld struct {
	t        testing.TB
	dir      string
	cat      catalog.Catalog
	h        *history.History
	at       time.Time
	statuses map[string]api.Status
}

func newChangeWorld(t testing.TB) *changeWorld {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The services the tests move, and one that stays: every build renders
	// each of them, and the change log's rules are the same for all.
	cat.Services = slices.DeleteFunc(cat.Services, func(svc catalog.Service) bool {
		return !slices.Contains([]string{"openai", "anthropic", "groq", "cohere"}, svc.Slug)
	})
	w := &changeWorld{t: t, dir: filepath.Join(t.TempDir(), "public"), cat: cat, h: history.New(),
		at: genTime, statuses: map[string]api.Status{}}
	for _, svc := range cat.Services {
		w.statuses[svc.Slug] = api.Operational
	}
	return w
}

// publish runs one cycle with the given statuses changed and returns the
// changes it logged.
func (w *changeWorld) publish(set map[string]api.Status, incidents ...api.Incident) []api.Change {
	w.t.Helper()
	for slug, st := range set {
		w.statuses[slug] = st
	}
	obs := map[string]build.Observation{}
	for _, svc := range w.cat.Services {
		o := build.Observation{
			Feed:  api.FeedSource{Format: catalog.FormatStatuspage, State: api.FeedOK, Status: w.statuses[svc.Slug]},
			Probe: api.ProbeSource{State: api.ProbeNone},
		}
		for _, inc := range incidents {
			if inc.Service == svc.Slug {
				o.Incidents = append(o.Incidents, inc)
			}
		}
		obs[svc.Slug] = o
	}
	last := history.LastChangeID(w.h.Changes)
	states := build.Assemble(w.h, w.cat, obs, w.at, zerolog.Nop())
	files, err := build.Render(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "test"}, w.cat, w.h, states, w.at)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := snapshot.Publish(w.dir, files); err != nil {
		w.t.Fatal(err)
	}
	w.at = w.at.Add(time.Minute)
	return append([]api.Change{}, history.ChangesAfter(w.h.Changes, last)...)
}

func (w *changeWorld) server(clock *testClock) *testServer {
	w.t.Helper()
	return w.serverWith(clock, Options{MaxEventStreams: 2})
}

// serverWith is server with opts, whose folder, catalog, log and clock it
// sets.
func (w *changeWorld) serverWith(clock *testClock, opts Options) *testServer {
	w.t.Helper()
	opts.Dir, opts.Catalog, opts.Log, opts.Now = w.dir, w.cat, zerolog.Nop(), clock.Now
	srv := New(opts)
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		w.t.Fatalf("reload: %v %v", ok, err)
	}
	return &testServer{Server: srv, dir: w.dir, clock: clock, cat: w.cat}
}

func TestChangesEndpoint(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	first := w.publish(nil)
	second := w.publish(map[string]api.Status{"openai": api.MajorOutage, "anthropic": api.Degraded})
	third := w.publish(map[string]api.Status{"openai": api.Operational})
	ts := w.server(newTestClock(w.at))

	get := func(target string) api.ChangeList {
		t.Helper()
		resp := ts.do(t, http.MethodGet, target, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", target, resp.StatusCode, body(t, resp))
		}
		var list api.ChangeList
		if err := json.Unmarshal(body(t, resp), &list); err != nil {
			t.Fatal(err)
		}
		return list
	}
	ids := func(cs []api.Change) (out []int64) {
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	all := append(append(append([]api.Change{}, first...), second...), third...)

	// Without since: changes.json, the recent log.
	if got := get(snapshot.PathChanges); len(got.Changes) != len(all) || got.LastID != all[len(all)-1].ID {
		t.Errorf("recent log: %d entries, last id %d; want %d, %d", len(got.Changes), got.LastID, len(all), all[len(all)-1].ID)
	}
	// After an id: exactly the later ones, oldest first.
	lastFirst := first[len(first)-1].ID
	got := get(fmt.Sprintf("%s?since=%d", snapshot.PathChanges, lastFirst))
	if want := ids(append(append([]api.Change{}, second...), third...)); fmt.Sprint(ids(got.Changes)) != fmt.Sprint(want) || got.Truncated {
		t.Errorf("since id: %v truncated %v, want %v", ids(got.Changes), got.Truncated, want)
	}
	if c := got.Changes[0]; c.Service != "openai" || c.OldStatus != api.Operational || c.NewStatus != api.MajorOutage {
		t.Errorf("first change after the first build = %+v", c)
	}
	// At or after a time.
	got = get(snapshot.PathChanges + "?since=" + third[0].Time.Format(time.RFC3339))
	if fmt.Sprint(ids(got.Changes)) != fmt.Sprint(ids(third)) {
		t.Errorf("since time: %v, want %v", ids(got.Changes), ids(third))
	}
	// At or after midnight UTC of a day, as /incidents reads a date: the
	// day of the first change, and the day after the last.
	day := all[0].Time.UTC().Format(time.DateOnly)
	if got = get(snapshot.PathChanges + "?since=" + day); fmt.Sprint(ids(got.Changes)) != fmt.Sprint(ids(all)) {
		t.Errorf("since %s: %v, want %v", day, ids(got.Changes), ids(all))
	}
	next := all[len(all)-1].Time.UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	if got = get(snapshot.PathChanges + "?since=" + next); len(got.Changes) != 0 {
		t.Errorf("since %s: %v, want none", next, ids(got.Changes))
	}
	// Bounded.
	got = get(fmt.Sprintf("%s?since=0&limit=2", snapshot.PathChanges))
	if len(got.Changes) != 2 || !got.Truncated || got.Changes[0].ID != all[0].ID {
		t.Errorf("limit 2: %v truncated %v", ids(got.Changes), got.Truncated)
	}
	for _, bad := range []string{"?since=yesterday", "?since=2026-13-01T00:00:00Z", "?since=-1", "?since=0&limit=1001", "?since=0&limit=x", "?since=" + strings.Repeat("1", 65)} {
		resp := ts.do(t, http.MethodGet, snapshot.PathChanges+bad, nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, resp.StatusCode)
			continue
		}
		decodeProblem(t, resp)
	}
}

// TestPointInTime asks "was OpenAI down when my job failed?" before, during
// and after an outage, and at the edges of what the log can answer.
func TestPointInTime(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	w.publish(nil) // genTime: all operational
	inc := api.Incident{ID: "openai-x1", Service: "openai", Headline: "API errors", Severity: api.Major,
		StartedAt: genTime.Add(50 * time.Second), Status: "investigating", Source: api.SourceOfficial}
	down := w.publish(map[string]api.Status{"openai": api.MajorOutage}, inc) // genTime+1m
	w.publish(map[string]api.Status{"openai": api.Operational})              // genTime+2m: resolved
	ts := w.server(newTestClock(w.at.Add(time.Hour)))

	service := func(at time.Time) api.ServiceAtDoc {
		t.Helper()
		resp := ts.do(t, http.MethodGet, snapshot.APIBase+"/services/openai?at="+at.Format(time.RFC3339Nano), nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("at %s: %d %s", at, resp.StatusCode, body(t, resp))
		}
		var doc api.ServiceAtDoc
		if err := json.Unmarshal(body(t, resp), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	before := service(genTime.Add(30 * time.Second))
	if before.Service.Status != api.Operational || len(before.Service.Incidents) != 0 || before.Service.Name != "OpenAI" {
		t.Errorf("before the outage: %+v", before.Service)
	}
	during := service(genTime.Add(90 * time.Second))
	if during.Service.Status != api.MajorOutage || during.Service.Since == nil || !during.Service.Since.Equal(down[0].Time) {
		t.Errorf("during the outage: %+v", during.Service)
	}
	if len(during.Service.Incidents) != 1 || during.Service.Incidents[0].ID != inc.ID {
		t.Errorf("incidents open during the outage: %+v", during.Service.Incidents)
	}
	// The incident started at +50 s by its own account, but we reported it
	// only at +1 min: at +55 s we had not.
	if early := service(genTime.Add(55 * time.Second)); len(early.Service.Incidents) != 0 || early.Service.Status != api.Operational {
		t.Errorf("at +55s: %+v", early.Service)
	}
	after := service(genTime.Add(3 * time.Minute))
	if after.Service.Status != api.Operational || len(after.Service.Incidents) != 0 {
		t.Errorf("after the outage: %+v", after.Service)
	}

	resp := ts.do(t, http.MethodGet, snapshot.PathStatus+"?at="+genTime.Add(90*time.Second).Format(time.RFC3339), nil)
	var all api.StatusAtDoc
	if err := json.Unmarshal(body(t, resp), &all); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status at: %d %v", resp.StatusCode, err)
	}
	if len(all.Services) != len(w.cat.Services) {
		t.Errorf("%d services, want %d", len(all.Services), len(w.cat.Services))
	}
	for _, s := range all.Services {
		want := api.Operational
		if s.Slug == "openai" {
			want = api.MajorOutage
		}
		if s.Status != want {
			t.Errorf("%s at +90s: %s, want %s", s.Slug, s.Status, want)
		}
	}
	for _, c := range []struct {
		query string
		code  int
	}{
		{"?at=" + genTime.Add(-time.Second).Format(time.RFC3339), http.StatusNotFound}, // before the log
		{"?at=" + w.at.Add(2*time.Hour).Format(time.RFC3339), http.StatusBadRequest},   // future
		{"?at=14:03", http.StatusBadRequest},
	} {
		for _, path := range []string{snapshot.PathStatus, snapshot.APIBase + "/services/openai"} {
			resp := ts.do(t, http.MethodGet, path+c.query, nil)
			if resp.StatusCode != c.code {
				t.Errorf("%s%s: %d, want %d", path, c.query, resp.StatusCode, c.code)
				continue
			}
			if p := decodeProblem(t, resp); p.Param != "at" {
				t.Errorf("%s%s: param %q", path, c.query, p.Param)
			}
		}
	}
}

// sseEvent is one Server-Sent Event as a client parses it.
type sseEvent struct {
	// name is the event's type: the CloudEvent's type for a change, "gap"
	// for a gap.
	name, id string
	// raw is its data line; data is it decoded, for a change.
	raw  string
	data api.CloudEvent
}

// sseStream is an open /events response.
type sseStream struct {
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
	events chan sseEvent
	other  chan string // comments and retry lines
}

func openStream(t *testing.T, base, lastID string) (*sseStream, *http.Response) {
	t.Helper()
	header := http.Header{}
	if lastID != "" {
		header.Set("Last-Event-ID", lastID)
	}
	return openStreamWith(t, base, header)
}

// openStreamWith opens a stream with the request headers given; a refused
// one returns a nil stream and the response.
func openStreamWith(t *testing.T, base string, header http.Header) (*sseStream, *http.Response) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+snapshot.PathEvents, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		return nil, resp
	}
	s := &sseStream{resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel, events: make(chan sseEvent, 100), other: make(chan string, 100)}
	go func() {
		readSSE(t, s.r, func(ev sseEvent) { s.events <- ev }, func(line string) {
			select {
			case s.other <- line:
			default:
			}
		})
		close(s.events)
	}()
	t.Cleanup(func() { s.close() })
	return s, resp
}

// readSSE parses a Server-Sent Events stream until it ends: each event
// with an id goes to event, each other line (comments, retry) to other.
// The data of an unnamed event is a CloudEvent; a named one's is kept raw.
func readSSE(t *testing.T, r *bufio.Reader, event func(sseEvent), other func(string)) {
	var ev sseEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.id != "" {
				if ev.name != "gap" {
					if err := json.Unmarshal([]byte(ev.raw), &ev.data); err != nil {
						t.Errorf("data %q: %v", ev.raw, err)
					}
					// A change is named by its CloudEvent type.
					if !strings.HasPrefix(ev.name, api.CloudEventTypePrefix) || ev.name != ev.data.Type {
						t.Errorf("event %s named %q, its type %q", ev.id, ev.name, ev.data.Type)
					}
				}
				event(ev)
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			ev.raw = strings.TrimPrefix(line, "data: ")
		default:
			other(line)
		}
	}
}

// parseSSE parses a whole stream written in process.
func parseSSE(t *testing.T, data []byte) (events []sseEvent, other []string) {
	t.Helper()
	readSSE(t, bufio.NewReader(bytes.NewReader(data)),
		func(ev sseEvent) { events = append(events, ev) }, func(line string) { other = append(other, line) })
	return events, other
}

func (s *sseStream) close() { s.cancel(); s.resp.Body.Close() }

// next returns the next n events, failing after a few seconds.
func (s *sseStream) next(t *testing.T, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	timeout := time.After(5 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("stream ended after %d of %d events", len(out), n)
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("%d of %d events after 5 s", len(out), n)
		}
	}
	return out
}

// rest returns the events up to the end of the stream, failing if it has
// not ended after a few seconds.
func (s *sseStream) rest(t *testing.T) []sseEvent {
	t.Helper()
	var out []sseEvent
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-timeout:
			t.Fatalf("the stream has not ended 5 s on (%d events)", len(out))
		}
	}
}

// quiet fails if an event arrives within d.
func (s *sseStream) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if ok {
			t.Errorf("unexpected event %s %s", ev.id, ev.data.Type)
		}
	case <-time.After(d):
	}
}

// TestEventsResumeAcrossBuilds: connect, get a build's events, disconnect,
// miss a build, reconnect with Last-Event-ID and get the missed events
// exactly once; the stream outlives the server's write timeout, sends
// heartbeats, is capped, and ends at shutdown.
func TestEventsResumeAcrossBuilds(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	w.publish(nil) // A
	ts := w.server(newTestClock(w.at.Add(time.Hour)))
	ts.heartbeat = 50 * time.Millisecond
	ts.timeouts = httpTimeouts{readHeader: time.Second, read: 300 * time.Millisecond, write: 300 * time.Millisecond, idle: time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ts.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	s1, _ := openStream(t, base, "")
	if s1.resp.Header.Get("Content-Type") != snapshot.ContentEventStream || s1.resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", s1.resp.Header)
	}
	// A new client is not replayed the history.
	s1.quiet(t, 100*time.Millisecond)

	b := w.publish(map[string]api.Status{"openai": api.MajorOutage, "groq": api.Degraded}) // B
	if _, err := ts.Store().Reload(); err != nil {
		t.Fatal(err)
	}
	got := s1.next(t, len(b))
	for i, ev := range got {
		c, d := b[i], ev.data
		if ev.id != fmt.Sprint(c.ID) || d.ID != ev.id || d.SpecVersion != "1.0" || d.Source != "https://aistatus.example/api/v1" ||
			d.Type != "ai.aistatus.status.changed" || d.Subject != c.Service || !d.Time.Equal(c.Time) ||
			d.DataContentType != "application/json" || d.Data.Service != c.Service || d.Data.NewStatus != c.NewStatus || d.Data.OldStatus != c.OldStatus {
			t.Errorf("event %d = %+v, want change %+v", i, ev, c)
		}
	}
	// Still open past the server's read and write timeouts, with heartbeats.
	time.Sleep(500 * time.Millisecond)
	heartbeats := 0
	for len(s1.other) > 0 {
		if <-s1.other == ": heartbeat" {
			heartbeats++
		}
	}
	if heartbeats == 0 {
		t.Error("no heartbeat in 500 ms")
	}
	lastSeen := got[len(got)-1].id
	s1.close()

	c := w.publish(map[string]api.Status{"openai": api.Operational}) // C, while disconnected
	if _, err := ts.Store().Reload(); err != nil {
		t.Fatal(err)
	}
	s2, _ := openStream(t, base, lastSeen)
	resumed := s2.next(t, len(c))
	for i, ev := range resumed {
		if ev.id != fmt.Sprint(c[i].ID) {
			t.Errorf("resumed event %d id %s, want %d", i, ev.id, c[i].ID)
		}
	}
	s2.quiet(t, 150*time.Millisecond) // exactly once

	// The cap (2 in this test): a third stream gets a 503 problem.
	s3, _ := openStream(t, base, "")
	if s3 == nil {
		t.Fatal("second stream refused")
	}
	if _, resp := openStream(t, base, ""); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("stream over the cap: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	} else {
		resp.Body.Close()
	}
	// A bad Last-Event-ID is a 400.
	s3.close()
	if _, resp := openStream(t, base, "abc"); resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad Last-Event-ID accepted")
	} else {
		resp.Body.Close()
	}

	// Shutdown ends the open streams at once instead of waiting for them.
	start := time.Now()
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown waited for the open stream")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	for range s2.events {
	}
}

// waitUntil polls cond until it holds, failing the test after a generous
// while: for what the server does on its own time, such as noticing that a
// client went away.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s after 10 s", what)
		}
	}
}

// clientStreams is how many streams the server holds open for a client key.
func (h *eventHub) clientStreams(client netip.Addr) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.perClient[client]
}

// TestEventStreamsPerClient: a few clients could hold every stream slot of
// the server for as long as they liked (34 addresses × 30 streams filled
// the 1000). One client — one address, IPv6 one /64, behind a trusted
// proxy the address it forwards — holds at most MaxEventStreamsPerClient;
// past that it gets a 429 problem, while other clients still get theirs,
// and it gets one again once it closes one.
func TestEventStreamsPerClient(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	w.publish(nil)
	trusted, err := limits.ParseTrustedProxies([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	// Rate-limited, as in production: the refusal must still be a
	// described 429 when the request quota is not exhausted.
	ts := w.serverWith(newTestClock(w.at), Options{MaxEventStreams: 100, MaxEventStreamsPerClient: 2,
		TrustedProxies: trusted, RateLimit: 1000})
	base, _ := serveLoopback(t, ts.Server)

	open := func(client string) (*sseStream, *http.Response) {
		t.Helper()
		return openStreamWith(t, base, http.Header{"X-Forwarded-For": {client}})
	}
	var first *sseStream
	for _, step := range []struct {
		name, client string
		want         int
	}{
		{"a client's first stream", "203.0.113.1", http.StatusOK},
		{"its second", "203.0.113.1", http.StatusOK},
		{"its third, over the cap", "203.0.113.1", http.StatusTooManyRequests},
		{"another client", "203.0.113.2", http.StatusOK},
		{"an IPv6 client", "2001:db8:1:2::1", http.StatusOK},
		{"another address of its /64", "2001:db8:1:2::2", http.StatusOK},
		{"a third address of the /64, over the cap", "2001:db8:1:2:ffff::3", http.StatusTooManyRequests},
		{"the next /64", "2001:db8:1:3::1", http.StatusOK},
	} {
		s, resp := open(step.client)
		if resp.StatusCode != step.want {
			t.Fatalf("%s (%s): %d, want %d", step.name, step.client, resp.StatusCode, step.want)
		}
		if first == nil {
			first = s
		}
		if s != nil {
			continue
		}
		data := body(t, resp)
		if resp.Header.Get("Retry-After") == "" || resp.Header.Get("Cache-Control") != "no-store" ||
			!strings.Contains(string(data), "2 open event streams") {
			t.Errorf("%s: Retry-After %q Cache-Control %q, body %s", step.name, resp.Header.Get("Retry-After"), resp.Header.Get("Cache-Control"), data)
		}
		assertContract(t, httptest.NewRequest(http.MethodGet, snapshot.PathEvents, nil), resp.StatusCode, resp.Header, data)
	}

	// Closing a stream gives the client its slot back.
	client := netip.MustParseAddr("203.0.113.1")
	first.close()
	waitUntil(t, "down to one stream of the client", func() bool { return ts.events.clientStreams(client) == 1 })
	if s, resp := open("203.0.113.1"); s == nil {
		t.Fatalf("after closing one: %d, want 200", resp.StatusCode)
	}
}

// TestEventStreamLifetime: a stream had no end, so a client that never
// reads kept its slot for good (its heartbeats take days to fill a
// buffer). It now ends at its lifetime, by the injected clock, at the
// first heartbeat or build after it: with the build's changes sent, a
// comment saying why and a short retry, so that EventSource comes back at
// once and resumes from Last-Event-ID without a loss.
func TestEventStreamLifetime(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		lifetime time.Duration // Options.EventStreamLifetime
		open     time.Duration // how long the stream has been open when a build comes
		wantEnd  bool
	}{
		{"default, reached", 0, DefaultEventStreamLifetime, true},
		{"an hour, not reached", time.Hour, time.Hour - time.Second, false},
		{"an hour, reached", time.Hour, time.Hour, true},
		{"none", -1, 1000 * time.Hour, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newChangeWorld(t)
			w.publish(nil)
			opened := w.at
			clock := newTestClock(opened)
			ts := w.serverWith(clock, Options{EventStreamLifetime: c.lifetime})
			// No heartbeat: the builds are when the stream looks at the time.
			ts.heartbeat = time.Hour
			base, _ := serveLoopback(t, ts.Server)
			// Each build moves openai between up and down.
			down := false
			build := func() []api.Change {
				t.Helper()
				status := api.Operational
				if down = !down; down {
					status = api.MajorOutage
				}
				changes := w.publish(map[string]api.Status{"openai": status})
				if _, err := ts.Store().Reload(); err != nil {
					t.Fatal(err)
				}
				return changes
			}
			ids := func(evs []sseEvent) (out []string) {
				for _, ev := range evs {
					out = append(out, ev.id)
				}
				return out
			}
			changeIDs := func(cs []api.Change) (out []string) {
				for _, c := range cs {
					out = append(out, fmt.Sprint(c.ID))
				}
				return out
			}

			s, _ := openStream(t, base, "")
			clock.Set(opened.Add(c.open))
			want := build()
			if !c.wantEnd {
				if got := ids(s.next(t, len(want))); fmt.Sprint(got) != fmt.Sprint(changeIDs(want)) {
					t.Fatalf("events %v, want %v", got, changeIDs(want))
				}
				// Still open: the next build comes through too.
				more := build()
				if got := ids(s.next(t, len(more))); fmt.Sprint(got) != fmt.Sprint(changeIDs(more)) {
					t.Errorf("events of the next build %v, want %v", got, changeIDs(more))
				}
				return
			}
			got := s.rest(t)
			if fmt.Sprint(ids(got)) != fmt.Sprint(changeIDs(want)) {
				t.Errorf("before the end: events %v, want the build's %v", ids(got), changeIDs(want))
			}
			var lines []string
			for len(s.other) > 0 {
				lines = append(lines, <-s.other)
			}
			if n := len(lines); n < 2 || !strings.HasPrefix(lines[n-2], ": ") || lines[n-1] != fmt.Sprintf("retry: %d", eventEndRetry) {
				t.Errorf("the stream ended with %q, want a comment and retry: %d", lines, eventEndRetry)
			}
			// The client resumes where it was and misses nothing.
			again, resp := openStream(t, base, got[len(got)-1].id)
			if again == nil {
				t.Fatalf("reconnect: %d", resp.StatusCode)
			}
			clock.Set(opened.Add(c.open + time.Minute))
			more := build()
			if got := ids(again.next(t, len(more))); fmt.Sprint(got) != fmt.Sprint(changeIDs(more)) {
				t.Errorf("after reconnecting: events %v, want %v", got, changeIDs(more))
			}
		})
	}
}

// TestEventsEncodedOnce: every stream encoded every change it sent again,
// so that a build cost as many encodings as there were streams (100
// streams and one 10 000-change build: 5.6 CPU-s and 545 MB). A change is
// now encoded once per snapshot and its frame shared: streams that catch
// up together get the same bytes, and one more stream on a snapshot the
// others have read allocates less than one object per event it sends.
func TestEventsEncodedOnce(t *testing.T) {
	log := syntheticChanges(1000)
	from, until := "0", fmt.Sprint(history.LastChangeID(log))
	srv := New(Options{Catalog: catalog.Catalog{}, Log: zerolog.Nop(), Now: newTestClock(genTime).Now})
	srv.store.set(logSnapshot(log))

	// Streams woken together by one build.
	const streams = 4
	got := make([][]byte, streams)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = catchUp(t, srv, from, until, true).data })
	}
	wg.Wait()
	if n := bytes.Count(got[0], []byte("\nid: ")); n != len(log) {
		t.Fatalf("%d events sent, want %d", n, len(log))
	}
	for i := range got[1:] {
		if !bytes.Equal(got[i+1], got[0]) {
			t.Errorf("stream %d sent other bytes than stream 0", i+1)
		}
	}

	allocs := testing.AllocsPerRun(5, func() { catchUp(t, srv, from, until, false) })
	t.Logf("one more stream: %.0f allocations for %d events", allocs, len(log))
	if allocs >= float64(len(log)) {
		t.Errorf("one more stream allocates %.0f objects to send %d events: it encodes them again", allocs, len(log))
	}
}

// TestEventsFlushedPerBuild: a stream flushed after every event, a system
// call each, so that a catch-up of n events cost n writes to the socket
// per stream. A build's events (or a replay) now go out in one flush.
func TestEventsFlushedPerBuild(t *testing.T) {
	t.Parallel()
	log := syntheticChanges(1000)
	srv := New(Options{Catalog: catalog.Catalog{}, Log: zerolog.Nop(), Now: newTestClock(genTime).Now})
	srv.store.set(logSnapshot(log))
	// One flush for the retry line, one for the events.
	if w := catchUp(t, srv, "0", fmt.Sprint(history.LastChangeID(log)), false); w.flushes > 2 {
		t.Errorf("%d flushes for a catch-up of %d events, want 2", w.flushes, len(log))
	}
}

// TestEventsReplayBounded: a stream sent every change it had not seen in
// one go, so one request bought a replay of the whole retained log (24 MB
// at 50 000 changes), and a build of many changes went whole to every
// stream. A stream now sends at most maxEventReplay changes in a row, then
// a gap event whose id is the newest change and whose data points at
// /changes?since=, from where the client pages through exactly the
// changes it did not get.
func TestEventsReplayBounded(t *testing.T) {
	t.Parallel()
	log := syntheticChanges(2*maxEventReplay + 500)
	newest := history.LastChangeID(log)
	for _, c := range []struct {
		name string
		// from is the index of the last change the client has, -1 for
		// Last-Event-ID 0.
		from int
		// live: the stream opens on the log's first from+1 changes as a
		// new client, and a build brings the rest.
		live bool
		// want: the changes sent, log[from+1:to]; gap: then a gap event.
		to  int
		gap bool
	}{
		{"within the bound", len(log) - 11, false, len(log), false},
		{"exactly the bound", len(log) - maxEventReplay - 1, false, len(log), false},
		{"the whole log", -1, false, maxEventReplay, true},
		{"past the bound", 10, false, 11 + maxEventReplay, true},
		{"a build past the bound", 10, true, 11 + maxEventReplay, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := New(Options{Catalog: catalog.Catalog{}, Log: zerolog.Nop(), Now: newTestClock(genTime).Now})
			var sink *streamSink
			if !c.live {
				srv.store.set(logSnapshot(log))
				lastID := "0"
				if c.from >= 0 {
					lastID = fmt.Sprint(log[c.from].ID)
				}
				sink = catchUp(t, srv, lastID, fmt.Sprint(newest), true)
			} else {
				srv.store.set(logSnapshot(log[:c.from+1]))
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, snapshot.PathEvents, nil)
				req.RemoteAddr = "192.0.2.1:1234"
				sink = &streamSink{h: http.Header{}, keep: true, until: []byte(fmt.Sprintf("id: %d\n", newest)), cancel: cancel}
				done := make(chan struct{})
				go func() { defer close(done); srv.Handler().ServeHTTP(sink, req) }()
				client := netip.MustParseAddr("192.0.2.1")
				waitUntil(t, "subscribed", func() bool { return srv.events.clientStreams(client) == 1 })
				srv.store.set(logSnapshot(log))
				<-done
			}
			events, _ := parseSSE(t, sink.data)
			var want []string
			for _, ch := range log[c.from+1 : c.to] {
				want = append(want, fmt.Sprint(ch.ID))
			}
			var got []string
			for _, ev := range events {
				if ev.name != "gap" {
					got = append(got, ev.id)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("sent %d changes (%v … ), want %d", len(got), got[:min(len(got), 3)], len(want))
			}
			last := events[len(events)-1]
			if !c.gap {
				if last.name == "gap" {
					t.Errorf("a %s event after changes within the bound", last.name)
				}
				return
			}
			var gap eventGap
			if err := json.Unmarshal([]byte(last.raw), &gap); err != nil || last.name != "gap" || last.id != fmt.Sprint(newest) {
				t.Fatalf("last event %+v (%v), want a gap with id %d", last, err, newest)
			}
			after := log[c.to-1].ID
			if gap.After != after || gap.Until != newest || !gap.Retained || gap.Changes != fmt.Sprintf("%s?since=%d", snapshot.PathChanges, after) {
				t.Errorf("gap %+v, want after %d until %d", gap, after, newest)
			}
			// Paging from the gap's address gets exactly what was skipped.
			var paged []api.Change
			for next := gap.Changes; next != ""; {
				rec := httptest.NewRecorder()
				srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, next+"&limit=1000", nil))
				var list api.ChangeList
				if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != http.StatusOK {
					t.Fatalf("%s: %d %v", next, rec.Code, err)
				}
				paged, next = append(paged, list.Changes...), ""
				if list.Truncated {
					next = fmt.Sprintf("%s?since=%d", snapshot.PathChanges, list.Changes[len(list.Changes)-1].ID)
				}
			}
			if len(paged) != len(log)-c.to || paged[0].ID != log[c.to].ID || paged[len(paged)-1].ID != newest {
				t.Errorf("paged %d changes from the gap, want %d from id %d", len(paged), len(log)-c.to, log[c.to].ID)
			}
		})
	}
}

// TestEventsResumeBeforeTheLog: a client whose Last-Event-ID was older
// than the retained log (pruned at 90 days or 50 000 changes, a replica's
// at 7 days) got the log from its start as if nothing were missing. It now
// first gets a gap event that says the changes in between are no longer
// retained (and has no address to page them from), then the log.
func TestEventsResumeBeforeTheLog(t *testing.T) {
	t.Parallel()
	log := syntheticChanges(maxEventReplay + 5)
	first, newest := log[0].ID, history.LastChangeID(log)
	for _, c := range []struct {
		name   string
		lastID int64
		// lost: a gap of changes no longer retained comes first; then
		// log[from:to]; then a gap of the rest (past the bound) when
		// to < len(log).
		lost     bool
		from, to int
	}{
		{"older than the log", first - 10, true, 0, maxEventReplay},
		{"just before the log", first - 1, false, 0, maxEventReplay},
		{"the whole log (0)", 0, false, 0, maxEventReplay},
		{"within the log", log[9].ID, false, 10, len(log)},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := New(Options{Catalog: catalog.Catalog{}, Log: zerolog.Nop(), Now: newTestClock(genTime).Now})
			srv.store.set(logSnapshot(log))
			events, _ := parseSSE(t, catchUp(t, srv, fmt.Sprint(c.lastID), fmt.Sprint(newest), true).data)
			var want []string
			if c.lost {
				want = append(want, fmt.Sprintf("gap %d", first-1))
			}
			for _, ch := range log[c.from:c.to] {
				want = append(want, fmt.Sprint(ch.ID))
			}
			if c.to < len(log) {
				want = append(want, fmt.Sprintf("gap %d", newest))
			}
			var got []string
			for _, ev := range events {
				name := ev.name
				if name != "gap" {
					name = "" // a change: its name is checked by readSSE
				}
				got = append(got, strings.TrimSpace(name+" "+ev.id))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%d events %v … %v, want %d %v … %v", len(got), got[0], got[len(got)-1], len(want), want[0], want[len(want)-1])
			}
			if !c.lost {
				return
			}
			var gap eventGap
			if err := json.Unmarshal([]byte(events[0].raw), &gap); err != nil {
				t.Fatal(err)
			}
			if want := (eventGap{After: c.lastID, Until: first - 1}); gap != want {
				t.Errorf("gap %+v, want %+v", gap, want)
			}
			if strings.Contains(events[0].raw, "changes") {
				t.Errorf("a gap of pruned changes points at /changes: %s", events[0].raw)
			}
		})
	}
}

// TestChangesWithoutLog: a snapshot from before the change log (no
// changes.json, no log in the history) answers an empty list, and ?at= a 404.
func TestChangesWithoutLog(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	if err := os.Remove(filepath.Join(ts.dir, snapshot.FileChanges)); err != nil {
		t.Fatal(err)
	}
	ts.clock.Set(genTime.Add(time.Hour))
	publishTestSnapshot(t, ts.dir, ts.cat, genTime.Add(time.Minute))
	os.Remove(filepath.Join(ts.dir, snapshot.FileChanges))
	if _, err := ts.Store().Reload(); err != nil {
		t.Fatal(err)
	}
	resp := ts.do(t, http.MethodGet, snapshot.PathChanges, nil)
	var list api.ChangeList
	if err := json.Unmarshal(body(t, resp), &list); err != nil || resp.StatusCode != http.StatusOK || len(list.Changes) != 0 {
		t.Errorf("/changes without a log: %d %v %+v", resp.StatusCode, err, list)
	}
	if resp := ts.do(t, http.MethodGet, snapshot.PathStatus+"?at="+genTime.Format(time.RFC3339), nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("?at= without a log: %d, want 404", resp.StatusCode)
	}
}

// TestReplicaChangeLog: a replica of a published site, which fetches no
// history, answers /changes?since from changes.json and wakes its event
// streams when it swaps in a new generation.
func TestReplicaChangeLog(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	first := w.publish(nil)
	files := http.FileServer(http.Dir(w.dir))
	site := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		// An ETag from the content: Last-Modified has whole seconds, and two
		// generations published within one would look unchanged.
		if data, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(r.URL.Path))); err == nil {
			rw.Header().Set("ETag", fmt.Sprintf(`"%x"`, sha256.Sum256(data)))
		}
		files.ServeHTTP(rw, r)
	}))
	defer site.Close()
	clock := newTestClock(w.at.Add(time.Hour))
	origin := newTestOrigin(t, site.URL, clock, time.Hour)
	srv := New(Options{Origin: origin, Catalog: w.cat, Log: zerolog.Nop(), Now: clock.Now})
	ctx := context.Background()
	if ok, err := origin.Sync(ctx, srv.Store()); !ok || err != nil {
		t.Fatalf("sync: %v %v", ok, err)
	}
	ts := &testServer{Server: srv, clock: clock, cat: w.cat}
	wake, err := srv.events.subscribe(netip.Addr{})
	if err != nil {
		t.Fatalf("subscribe refused: %v", err)
	}
	defer srv.events.unsubscribe(wake)

	second := w.publish(map[string]api.Status{"openai": api.MajorOutage})
	if ok, err := origin.Sync(ctx, srv.Store()); !ok || err != nil {
		t.Fatalf("sync: %v %v", ok, err)
	}
	select {
	case <-wake:
	default:
		t.Error("the replica's swap did not wake the event streams")
	}
	resp := ts.do(t, http.MethodGet, fmt.Sprintf("%s?since=%d", snapshot.PathChanges, first[len(first)-1].ID), nil)
	var list api.ChangeList
	if err := json.Unmarshal(body(t, resp), &list); err != nil || len(list.Changes) != len(second) || list.Changes[0].ID != second[0].ID {
		t.Errorf("replica /changes?since: %d %v %+v, want %+v", resp.StatusCode, err, list.Changes, second)
	}
}

// TestEventRulesDocumented: docs/api.md, docs/security.md and the OpenAPI
// description of /events state the stream's bounds as the defaults set them.
func TestEventRulesDocumented(t *testing.T) {
	t.Parallel()
	spec, err := build.OpenAPI("", 0) // the rules, not the number of services
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]struct{ Get struct{ Description string } }
		Components struct {
			Responses map[string]struct{ Description string }
		}
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"the OpenAPI description of /events": doc.Paths["/events"].Get.Description}
	if rule, text := fmt.Sprintf("holds %d open event streams", DefaultMaxEventStreamsPerClient),
		doc.Components.Responses["TooManyStreams"].Description; !strings.Contains(text, rule) {
		t.Errorf("the OpenAPI's TooManyStreams response does not state %q: %s", rule, text)
	}
	for _, name := range []string{"../docs/api.md", "../docs/security.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(data)
	}
	for _, rule := range []string{
		fmt.Sprintf("at most %d streams open at once", DefaultMaxEventStreamsPerClient),
		fmt.Sprintf("after %d minutes open", int(DefaultEventStreamLifetime.Minutes())),
		fmt.Sprintf("at most %d changes in a row", maxEventReplay),
	} {
		for name, text := range texts {
			// Line breaks in Markdown fall anywhere.
			if !strings.Contains(strings.Join(strings.Fields(text), " "), rule) {
				t.Errorf("%s does not state %q", name, rule)
			}
		}
	}
	if rule := fmt.Sprintf("`retry: %d`", eventEndRetry); !strings.Contains(texts["../docs/api.md"], rule) ||
		!strings.Contains(texts["the OpenAPI description of /events"], rule) {
		t.Errorf("docs/api.md or the OpenAPI description does not state %s", rule)
	}
}

// TestPointInTimePaths: GET /status/at/{time} and /services/{slug}/at/{time}
// answer exactly what ?at= answers (the older spelling, kept), an offset
// included; their problems name the path parameter time.
func TestPointInTimePaths(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	w.publish(nil)
	w.publish(map[string]api.Status{"openai": api.MajorOutage})
	ts := w.server(newTestClock(w.at.Add(time.Hour)))
	during := genTime.Add(90 * time.Second)
	for _, instant := range []string{during.Format(time.RFC3339), during.In(time.FixedZone("", 3600)).Format(time.RFC3339)} {
		for _, path := range []string{snapshot.PathStatus, snapshot.APIBase + "/services/openai"} {
			old := ts.do(t, http.MethodGet, path+"?at="+url.QueryEscape(instant), nil)
			oldBody := body(t, old)
			resp := ts.do(t, http.MethodGet, path+"/at/"+instant, nil)
			if got := body(t, resp); resp.StatusCode != http.StatusOK || old.StatusCode != http.StatusOK || !bytes.Equal(got, oldBody) {
				t.Errorf("%s/at/%s: %d %.200s\n?at=: %d %.200s", path, instant, resp.StatusCode, got, old.StatusCode, oldBody)
			}
		}
	}
	var doc api.ServiceAtDoc
	resp := ts.do(t, http.MethodGet, snapshot.APIBase+"/services/openai/at/"+during.Format(time.RFC3339), nil)
	if err := json.Unmarshal(body(t, resp), &doc); err != nil || doc.Service.Status != api.MajorOutage || !doc.At.Equal(during) {
		t.Errorf("openai at +90s: %v %+v", err, doc)
	}
	for _, c := range []struct {
		path  string
		code  int
		param string
	}{
		{snapshot.PathStatus + "/at/" + genTime.Add(-time.Second).Format(time.RFC3339), http.StatusNotFound, "time"},
		{snapshot.PathStatus + "/at/" + w.at.Add(2*time.Hour).Format(time.RFC3339), http.StatusBadRequest, "time"},
		{snapshot.APIBase + "/services/openai/at/14:03", http.StatusBadRequest, "time"},
		{snapshot.APIBase + "/services/nope/at/" + during.Format(time.RFC3339), http.StatusNotFound, "slug"},
	} {
		resp := ts.do(t, http.MethodGet, c.path, nil)
		if resp.StatusCode != c.code {
			t.Errorf("%s: %d, want %d", c.path, resp.StatusCode, c.code)
			continue
		}
		if p := decodeProblem(t, resp); p.Param != c.param {
			t.Errorf("%s: param %q, want %q", c.path, p.Param, c.param)
		}
	}
}
