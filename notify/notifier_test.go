package notify

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/notify/notifytest"
	"github.com/aistatus/aistatus/outbound"
	"github.com/rs/zerolog"
)

// logLines is a log writer that hands each line to the test as written.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) { l <- string(p); return len(p), nil }

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
	unlisted, unlistedHits := notifytest.StatusServer(t, http.StatusNoContent)
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
			n, err := New(ctx, Options{
				URLs: []string{rcv.URL + "/"}, Secret: notifytest.Secret, BaseURL: "https://aistatus.example",
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
			rcv, posts := notifytest.StatusServer(t, tt.status)
			var logs strings.Builder // read once Close has waited for the worker
			ctx := context.Background()
			n, err := New(ctx, Options{
				URLs: []string{rcv.URL}, Secret: notifytest.Secret, BaseURL: "https://aistatus.example",
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
	gone, gonePosts := notifytest.StatusServer(t, http.StatusGone)
	good := notifytest.NewWebhookReceiver(t)
	var logs strings.Builder // read once Close has waited for the workers
	ctx := context.Background()
	n, err := New(ctx, Options{
		URLs: []string{gone.URL, good.URL}, Secret: notifytest.Secret, BaseURL: "https://aistatus.example",
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
	if got := len(good.Events()); got != 5 {
		t.Errorf("the other receiver got %d events, want 5", got)
	}
}

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
	n, err := New(ctx, Options{
		URLs: []string{rcv.URL}, Secret: notifytest.Secret, BaseURL: "https://aistatus.example",
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
	n, err := New(ctx, Options{
		URLs: []string{rcv.URL + "/hook?token=OWNSECRET"}, Secret: notifytest.Secret, BaseURL: "https://aistatus.example",
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
				rcv, _ := notifytest.StatusServer(t, status)
				base = rcv.URL
			}
			var logs strings.Builder
			n, err := New(context.Background(), Options{
				URLs: []string{base + "/services/" + secret + "?token=" + secret}, Secret: notifytest.Secret,
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
	_, err := New(context.Background(), Options{URLs: []string{"ftp://hooks.example/" + secret}, Secret: notifytest.Secret})
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

// TestChatURLStaysSecret: a chat webhook URL is a secret in its path (an
// ntfy topic too); no log line of a chat receiver's failures writes it,
// whatever the answer.
func TestChatURLStaysSecret(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, kind := range []Kind{Slack, Discord, Teams, Ntfy} {
		for _, status := range []int{http.StatusInternalServerError, http.StatusForbidden, http.StatusFound, http.StatusGone, 0} {
			t.Run(string(kind)+"/"+strconv.Itoa(status), func(t *testing.T) {
				t.Parallel()
				base := closed.URL
				if status != 0 {
					rcv, _ := notifytest.StatusServer(t, status)
					base = rcv.URL
				}
				var logs syncLog
				n, err := New(context.Background(), Options{
					Destinations: []Destination{{URL: base + "/hooks/T0SECRET/B0SECRET?sig=SIGSECRET", Kind: kind}},
					BaseURL:      "https://aistatus.example", Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond,
				})
				if err != nil {
					t.Fatal(err)
				}
				n.Notify([]api.Change{{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: t0, OldStatus: api.Operational, NewStatus: api.MajorOutage}})
				drain, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				n.Close(drain)
				if logs.String() == "" || strings.Contains(logs.String(), "SECRET") {
					t.Errorf("logs: %s", logs.String())
				}
			})
		}
	}
}

// TestDeliversEveryKind: one change, and a loopback receiver for a
// destination of every kind. Each receiver gets one POST, at its URL
// (query and all; ntfy's at the server's root, the topic in the body), of
// its kind's content type, whose body is its kind's format: a Standard
// Webhook's a CloudEvent signed as the spec says (verified without
// SignWebhook), the others' the chat format of their service. No log line
// names a URL's token.
func TestDeliversEveryKind(t *testing.T) {
	t.Parallel()
	key, err := ParseWebhookSecret(notifytest.Secret)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind Kind
		// path is the destination's, below its receiver's root; want
		// where the POST arrives.
		path, want, contentType string
	}{
		{Webhook, "/hooks/WEBHOOKTOKEN", "POST /hooks/WEBHOOKTOKEN", "application/cloudevents+json"},
		{Slack, "/services/T000/B000/SLACKTOKEN", "POST /services/T000/B000/SLACKTOKEN", "application/json"},
		{Discord, "/api/webhooks/123/DISCORDTOKEN", "POST /api/webhooks/123/DISCORDTOKEN", "application/json"},
		{Teams, "/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=TEAMSTOKEN",
			"POST /workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=TEAMSTOKEN", "application/json"},
		{Ntfy, "/base/NTFYTOKEN", "POST /base/", "application/json"},
	}
	receivers := map[Kind]*notifytest.ChatReceiver{}
	var dests []Destination
	for _, tt := range tests {
		receivers[tt.kind] = notifytest.NewChatReceiver(t, 0)
		dests = append(dests, Destination{URL: receivers[tt.kind].URL + tt.path, Kind: tt.kind})
	}
	var logs syncLog
	n, err := New(context.Background(), Options{
		Destinations: dests, Secret: notifytest.Secret, BaseURL: "https://aistatus.example", Names: defaultNames(t),
		Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	down := api.Change{ID: 7, Type: api.ChangeStatus, Service: "openai", Time: t0, OldStatus: api.Operational, NewStatus: api.MajorOutage}
	n.NotifyCycle([]api.Change{down}, Facts{Basis: map[string]api.Basis{"openai": api.BasisOfficial}})
	drain, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n.Close(drain)
	for _, tt := range tests {
		posts := receivers[tt.kind].Received()
		if len(posts) != 1 {
			t.Errorf("%s: %d posts, want 1", tt.kind, len(posts))
			continue
		}
		p := posts[0]
		if p.Path != tt.want || p.ContentType != tt.contentType {
			t.Errorf("%s: %s with %s, want %s with %s", tt.kind, p.Path, p.ContentType, tt.want, tt.contentType)
		}
		if tt.kind == Webhook {
			ev, err := notifytest.VerifyWebhook(key, p.Header, p.Body)
			if err != nil {
				t.Errorf("webhook: %v", err)
			}
			if ev.ID != "7" || ev.Type != api.CloudEventTypePrefix+string(api.ChangeStatus) || ev.Data.NewStatus != api.MajorOutage {
				t.Errorf("webhook: event %+v, want change 7, OpenAI's status.changed to major_outage", ev)
			}
			continue
		}
		if err := checkPayload(tt.kind, p.Body); err != nil {
			t.Errorf("%s: %v: %s", tt.kind, err, p.Body)
		}
		for _, want := range []string{"OpenAI", "up → major outage", "https://aistatus.example/services/openai"} {
			if !strings.Contains(string(p.Body), want) {
				t.Errorf("%s: no %q in %s", tt.kind, want, p.Body)
			}
		}
	}
	if p := receivers[Ntfy].Received(); len(p) == 1 && !strings.Contains(string(p[0].Body), `"topic":"NTFYTOKEN"`) {
		t.Errorf("ntfy: no topic in %s", p[0].Body)
	}
	if log := logs.String(); strings.Contains(log, "TOKEN") {
		t.Errorf("a log line names a URL's token: %s", log)
	}
}
