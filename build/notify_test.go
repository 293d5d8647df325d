package build

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/outbound"
	"github.com/rs/zerolog"
)

const testWebhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// webhookReceiver verifies deliveries as the Standard Webhooks reference
// does, independently of SignWebhook, and keeps the CloudEvents it accepted.
type webhookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	events []api.CloudEvent
	bad    []string
}

func newWebhookReceiver(t *testing.T) *webhookReceiver {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(testWebhookSecret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	rcv := &webhookReceiver{}
	rcv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := verifyWebhook(key, r.Header, body)
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		if err != nil {
			rcv.bad = append(rcv.bad, err.Error())
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		rcv.events = append(rcv.events, ev)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	return rcv
}

// verifyWebhook checks a delivery as the Standard Webhooks reference does,
// independently of SignWebhook: webhook-signature holds, among its
// space-separated signatures, "v1," + base64(HMAC-SHA256(key, webhook-id
// + "." + webhook-timestamp + "." + body)); the timestamp is within five
// minutes of now; the body is a CloudEvent whose id is the webhook-id.
func verifyWebhook(key []byte, h http.Header, body []byte) (api.CloudEvent, error) {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	sec, err := strconv.ParseInt(ts, 10, 64)
	ok := err == nil && time.Since(time.Unix(sec, 0)).Abs() < 5*time.Minute
	signed := false
	for sig := range strings.FieldsSeq(sigs) {
		signed = signed || hmac.Equal([]byte(sig), []byte(want))
	}
	var ev api.CloudEvent
	if !ok || !signed || json.Unmarshal(body, &ev) != nil || ev.ID != id || h.Get("Content-Type") != "application/cloudevents+json" {
		return ev, fmt.Errorf("id %q ts %q sig %q content type %q body %s", id, ts, sigs, h.Get("Content-Type"), body)
	}
	return ev, nil
}

// statusServer answers every request with status and counts them.
func statusServer(t *testing.T, status int) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestWebhooks builds twice with a verifying receiver, a failing one and
// one that never answers: the builds are not slowed or failed, the good
// receiver gets every change once and in order, the failing one is retried.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	good := newWebhookReceiver(t)
	failing, failures := statusServer(t, http.StatusInternalServerError)
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
	n, err := NewNotifier(ctx, NotifierOptions{
		URLs: []string{failing.URL, hanging.URL, good.URL}, Secret: testWebhookSecret, BaseURL: "https://aistatus.example",
		// No client timeout: an attempt at the hanging receiver lasts the
		// notifier's own notifyAttemptTimeout, so that waiting for it, in a
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
		// notifyAttemptTimeout for each change. The bound sits far from both.
		if d := time.Since(start); d > 2*notifyAttemptTimeout {
			t.Errorf("build %d took %s: it waited for the hanging receiver?", i, d)
		}
		changes = append(changes, res.Changes...)
		h.clock.Advance(time.Minute)
	}
	// The good receiver and the failing one are served by their own
	// queues, whatever the hanging one does.
	want := int32(3 * len(changes))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		good.mu.Lock()
		got := len(good.events)
		good.mu.Unlock()
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
	if d := time.Since(start); d > notifyAttemptTimeout {
		t.Errorf("Close took %s, with a deadline of 300ms: it waited for the hanging receiver?", d)
	}

	good.mu.Lock()
	defer good.mu.Unlock()
	if len(good.bad) > 0 {
		t.Errorf("receiver refused %d deliveries: %s", len(good.bad), good.bad[0])
	}
	if len(good.events) != len(changes) {
		t.Fatalf("receiver got %d events, want %d", len(good.events), len(changes))
	}
	for i, ev := range good.events {
		c := changes[i]
		if ev.ID != fmt.Sprint(c.ID) || ev.Type != "ai.aistatus."+string(c.Type) || ev.Subject != c.Subject() ||
			ev.SpecVersion != "1.0" || ev.Source != "https://aistatus.example/api/v1" || ev.Data.NewStatus != c.NewStatus {
			t.Errorf("event %d = %+v, want change %+v", i, ev, c)
		}
	}
	if last := good.events[len(good.events)-1]; last.Subject != "openai" || last.Data.NewStatus != api.MajorOutage {
		t.Errorf("last event %+v, want openai's outage", last)
	}
	if got := failures.Load(); got != want {
		t.Errorf("failing receiver got %d attempts, want %d (3 per change)", got, want)
	}
}

func TestWebhookSecret(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "secret", "whsec_!!!", "whsec_" + base64.StdEncoding.EncodeToString([]byte("short"))} {
		if _, err := ParseWebhookSecret(bad); err == nil {
			t.Errorf("secret %q accepted", bad)
		}
	}
	// The Standard Webhooks specification's example.
	key, err := ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := SignWebhook(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
}

// TestWebhookClient: without a Client of their own, webhooks go out through
// the program's outbound client: with our User-Agent, not Go's default, and
// through its guard — a receiver on loopback is reached, as it is
// configured — and following no redirect: a 3xx is a failed delivery that
// names where it pointed, and nothing is sent there, not even to the
// receiver's own host (a 302 would have turned the signed POST into a GET
// that counted as delivered, a 307 re-posted it).
func TestWebhookClient(t *testing.T) {
	t.Parallel()
	unlisted, unlistedHits := statusServer(t, http.StatusNoContent)
	tests := []struct {
		name     string
		code     int    // the receiver's redirect status; 0 accepts
		redirect string // its Location; a path is on the receiver's host
		wantLog  string // in the log: the delivery's failure; "" for none
	}{
		{"a receiver on loopback", 0, "", ""},
		{"a 302 to the receiver's host", http.StatusFound, "/elsewhere", "302 Found (Location: http://127.0.0.1:"},
		{"a 307 to the receiver's host", http.StatusTemporaryRedirect, "/elsewhere", "/…): webhooks follow no redirect"},
		{"a 308 to an unconfigured loopback host", http.StatusPermanentRedirect, unlisted.URL + "/hook", "(Location: " + unlisted.URL + "/…)"},
		{"a 301 to cloud metadata", http.StatusMovedPermanently, "http://169.254.169.254/latest/meta-data/", "(Location: http://169.254.169.254/…)"},
		{"a 302 without Location", http.StatusFound, "", "302 Found (Location: none)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agents := make(chan string, 10)
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				agents <- r.UserAgent()
				if tt.code != 0 && r.URL.Path == "/" {
					if tt.redirect != "" {
						w.Header().Set("Location", tt.redirect)
					}
					w.WriteHeader(tt.code)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			}))
			defer rcv.Close()
			var logs strings.Builder // written by the worker, read once Close has waited for it
			ctx := context.Background()
			n, err := NewNotifier(ctx, NotifierOptions{
				URLs: []string{rcv.URL + "/"}, Secret: testWebhookSecret, BaseURL: "https://aistatus.example",
				Log: zerolog.New(&logs), Attempts: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			n.Notify([]api.Change{{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: t0, NewStatus: api.MajorOutage}})
			drain, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			n.Close(drain)

			close(agents)
			sent := 0
			for ua := range agents {
				sent++
				if ua != outbound.UserAgent {
					t.Errorf("webhook sent with User-Agent %q, want %q", ua, outbound.UserAgent)
				}
			}
			if sent != 1 {
				t.Errorf("receiver got %d requests, want 1", sent)
			}
			if failed := strings.Contains(logs.String(), "giving up"); failed != (tt.wantLog != "") || !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q; want a failed delivery (%v) saying %q", logs.String(), tt.wantLog != "", tt.wantLog)
			}
			if n := unlistedHits.Load(); n != 0 {
				t.Errorf("the unconfigured host got %d requests", n)
			}
		})
	}
}

// TestWebhookRetryPolicy: a change is posted again only where a later
// attempt may succeed (408, 429, 5xx); any other answer that is not a 2xx
// gives it up at once, logged with the status.
func TestWebhookRetryPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status    int
		wantPosts int // of Attempts, 3
	}{
		{http.StatusNoContent, 1},
		{http.StatusInternalServerError, 3},
		{http.StatusBadGateway, 3},
		{http.StatusServiceUnavailable, 3},
		{http.StatusRequestTimeout, 3},
		{http.StatusTooManyRequests, 3},
		{http.StatusBadRequest, 1},
		{http.StatusUnauthorized, 1},
		{http.StatusForbidden, 1},
		{http.StatusNotFound, 1},
		{http.StatusRequestEntityTooLarge, 1},
		{http.StatusUnprocessableEntity, 1},
		{http.StatusFound, 1},
		{http.StatusNotModified, 1},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			rcv, posts := statusServer(t, tt.status)
			var logs strings.Builder // read once Close has waited for the worker
			ctx := context.Background()
			n, err := NewNotifier(ctx, NotifierOptions{
				URLs: []string{rcv.URL}, Secret: testWebhookSecret, BaseURL: "https://aistatus.example",
				Log: zerolog.New(&logs), Attempts: 3, Backoff: time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			n.Notify([]api.Change{{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: t0, NewStatus: api.MajorOutage}})
			drain, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			n.Close(drain)
			if got := int(posts.Load()); got != tt.wantPosts {
				t.Errorf("answering %d: %d posts, want %d", tt.status, got, tt.wantPosts)
			}
			if tt.wantPosts == 1 && tt.status >= 300 && !strings.Contains(logs.String(), fmt.Sprintf(`"status":%d`, tt.status)) {
				t.Errorf("a change given up on %d, logged as %q", tt.status, logs.String())
			}
		})
	}
}

// TestWebhookGone: a receiver that answers 410 Gone is posted nothing more,
// neither what was queued for it nor later changes, and this is logged
// once; the other receivers are served as before.
func TestWebhookGone(t *testing.T) {
	t.Parallel()
	gone, gonePosts := statusServer(t, http.StatusGone)
	good := newWebhookReceiver(t)
	var logs strings.Builder // read once Close has waited for the workers
	ctx := context.Background()
	n, err := NewNotifier(ctx, NotifierOptions{
		URLs: []string{gone.URL, good.URL}, Secret: testWebhookSecret, BaseURL: "https://aistatus.example",
		Log: zerolog.New(&logs), Attempts: 3, Backoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	change := func(id int64) api.Change {
		return api.Change{ID: id, Type: api.ChangeStatus, Service: "openai", Time: t0, NewStatus: api.MajorOutage}
	}
	n.Notify([]api.Change{change(1), change(2), change(3)})
	for deadline := time.Now().Add(10 * time.Second); !n.receivers[0].gone.Load(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the receiver's 410 was never taken as gone")
		}
	}
	n.Notify([]api.Change{change(4), change(5)})
	drain, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	n.Close(drain)

	if got := gonePosts.Load(); got != 1 {
		t.Errorf("the receiver that answered 410 got %d posts, want 1", got)
	}
	if got := strings.Count(logs.String(), "410 Gone"); got != 1 {
		t.Errorf("410 logged %d times, want once: %s", got, logs.String())
	}
	good.mu.Lock()
	defer good.mu.Unlock()
	if len(good.events) != 5 {
		t.Errorf("the other receiver got %d events, want 5", len(good.events))
	}
}

// logLines is a log writer that hands each line to the test as written.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) { l <- string(p); return len(p), nil }

// TestWebhookDropsReported: changes that find a receiver's queue full are
// counted, not logged one by one: one line per report tick with how many
// and which, and one for the rest when the notifier closes.
func TestWebhookDropsReported(t *testing.T) {
	t.Parallel()
	posted, release := make(chan struct{}, 100), make(chan struct{})
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posted <- struct{}{}
		<-release
	}))
	defer rcv.Close()
	var released sync.Once
	unblock := func() { released.Do(func() { close(release) }) }
	defer unblock() // before rcv.Close, which waits for the handler
	logs, tick := make(logLines, 2000), make(chan time.Time)
	ctx := context.Background()
	n, err := NewNotifier(ctx, NotifierOptions{
		URLs: []string{rcv.URL}, Secret: testWebhookSecret, BaseURL: "https://aistatus.example",
		Log: zerolog.New(logs), QueueSize: 2, ReportTick: tick,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Change 1 is being posted, 2 and 3 fill the queue, 4 to 1003 find it
	// full.
	n.Notify(outageChanges(1, 1))
	<-posted
	n.Notify(outageChanges(2, 1003))
	tests := []struct {
		name string
		next func() // what brings the report
		want string // the report's fields
	}{
		{"a tick after 1000 drops", func() { tick <- time.Time{} }, `"dropped":1000,"firstChange":4,"lastChange":1003`},
		{"a tick after 2 more", func() { n.Notify(outageChanges(1004, 1005)); tick <- time.Time{} }, `"dropped":2,"firstChange":1004,"lastChange":1005`},
		{"Close after 1 more", func() { n.Notify(outageChanges(1006, 1006)); unblock(); n.Close(ctx) }, `"dropped":1,"firstChange":1006,"lastChange":1006`},
	}
	for _, tt := range tests {
		select {
		case line := <-logs:
			t.Fatalf("before %s: logged %s", tt.name, line)
		default:
		}
		tt.next()
		if line := <-logs; !strings.Contains(line, tt.want) || !strings.Contains(line, "webhook queue full") {
			t.Errorf("%s: logged %s, want a report with %s", tt.name, line, tt.want)
		}
	}
	close(logs)
	for line := range logs {
		t.Errorf("logged after the reports: %s", line)
	}
}

// TestWebhookRejectionsReported: a receiver that rejects every change (here
// a 302) is one log line per report tick, with how many changes and which,
// not one line per change; and the Location it answers is named by its
// scheme and host only, as the receiver's own URL is: it may carry a token
// in its userinfo, path or query.
func TestWebhookRejectionsReported(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		posts.Add(1)
		w.Header().Set("Location", "https://user:pass@evil.example/path?token=SECRET")
		w.WriteHeader(http.StatusFound)
	}))
	defer rcv.Close()
	logs, tick := make(logLines, 2000), make(chan time.Time)
	ctx := context.Background()
	n, err := NewNotifier(ctx, NotifierOptions{
		URLs: []string{rcv.URL + "/hook?token=OWNSECRET"}, Secret: testWebhookSecret, BaseURL: "https://aistatus.example",
		Log: zerolog.New(logs), ReportTick: tick,
	})
	if err != nil {
		t.Fatal(err)
	}
	posted := func(want int32) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); posts.Load() < want; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d posts, want %d", posts.Load(), want)
			}
		}
	}
	// Two intervals: 282 changes (as many as one build once sent) and a
	// tick, 3 more and Close. The last post of an interval may be counted
	// in the next one, so only the sums are exact.
	n.Notify(outageChanges(1, 282))
	posted(282)
	tick <- time.Time{}
	var lines []string
	select {
	case line := <-logs:
		lines = append(lines, line)
	case <-time.After(10 * time.Second):
		t.Fatal("nothing logged at the tick")
	}
	n.Notify(outageChanges(283, 285))
	posted(285)
	n.Close(ctx)
	close(logs)
	for line := range logs {
		lines = append(lines, line)
	}

	rejected, first, last := 0, int64(0), int64(0)
	for i, line := range lines {
		var report struct {
			Status, Rejected        int
			FirstChange, LastChange int64
			Error, Message          string
		}
		if err := json.Unmarshal([]byte(line), &report); err != nil || report.Message != "webhook rejected: giving up on these changes without retrying" ||
			report.Status != http.StatusFound || !strings.Contains(report.Error, "(Location: https://evil.example/…)") {
			t.Errorf("line %d: %s", i+1, line)
		}
		if i == 0 {
			first = report.FirstChange
		}
		rejected, last = rejected+report.Rejected, report.LastChange
		for _, secret := range []string{"SECRET", "pass", "user", "/path", "/hook"} {
			if strings.Contains(line, secret) {
				t.Errorf("line %d has %q: %s", i+1, secret, line)
			}
		}
	}
	if len(lines) != 2 || rejected != 285 || first != 1 || last != 285 {
		t.Errorf("%d lines reporting %d rejected changes, %d to %d; want 2 lines, 285 changes, 1 to 285", len(lines), rejected, first, last)
	}
}

// TestWebhookURLStaysSecret: a webhook URL carries its secret in its path or
// query (Slack, Discord, most hook services); no log line or error of the
// notifier writes either, whether the receiver fails, refuses, is gone or
// never answers, or the URL is refused at start.
func TestWebhookURLStaysSecret(t *testing.T) {
	t.Parallel()
	const secret = "T0SECRET/B0SECRET"
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, status := range []int{http.StatusInternalServerError, http.StatusForbidden, http.StatusFound, http.StatusGone, 0} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			base := closed.URL // 0: nothing answers
			if status != 0 {
				rcv, _ := statusServer(t, status)
				base = rcv.URL
			}
			var logs strings.Builder
			n, err := NewNotifier(context.Background(), NotifierOptions{
				URLs: []string{base + "/services/" + secret + "?token=" + secret}, Secret: testWebhookSecret,
				BaseURL: "https://aistatus.example", Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			n.Notify([]api.Change{{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: t0, NewStatus: api.MajorOutage}})
			drain, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			n.Close(drain)
			if logs.Len() == 0 || strings.Contains(logs.String(), "SECRET") {
				t.Errorf("logs: %s", logs.String())
			}
		})
	}
	_, err := NewNotifier(context.Background(), NotifierOptions{URLs: []string{"ftp://hooks.example/" + secret}, Secret: testWebhookSecret})
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a refused URL: %v", err)
	}
}

// outageChanges are the change ids from to to, each openai going into a
// major outage.
func outageChanges(from, to int64) []api.Change {
	var cs []api.Change
	for id := from; id <= to; id++ {
		cs = append(cs, api.Change{ID: id, Type: api.ChangeStatus, Service: "openai", Time: t0, NewStatus: api.MajorOutage})
	}
	return cs
}

// TestWebhookRecovery builds through an outage of OpenAI and its end: the
// build in which the page comes back logs one service.recovered, after the
// status change, and a receiver gets it once, as a CloudEvent whose type
// and subject a client waiting to resume can match; the builds around it
// log none.
func TestWebhookRecovery(t *testing.T) {
	t.Parallel()
	rcv := newWebhookReceiver(t)
	h := newHarnessWith(t, scheduleCatalog(t, "openai"))
	ctx := context.Background()
	n, err := NewNotifier(ctx, NotifierOptions{
		URLs: []string{rcv.URL}, Secret: testWebhookSecret, BaseURL: "https://aistatus.example",
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

	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.bad) > 0 {
		t.Errorf("receiver refused %d deliveries: %s", len(rcv.bad), rcv.bad[0])
	}
	var recovered []api.CloudEvent
	for _, ev := range rcv.events {
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
