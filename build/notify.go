package build

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// Webhook delivery defaults. Delivery state lives in memory only: a change
// still queued or being retried when the process ends is not delivered
// (receivers that must not miss one can catch up from /changes by id).
const (
	DefaultNotifyQueue    = 1000
	DefaultNotifyAttempts = 5
	DefaultNotifyBackoff  = 2 * time.Second
	// DefaultNotifyReportEvery is how often the changes dropped from a full
	// queue, and those a receiver rejected, are logged: one line of each per
	// receiver that had any, with their count, however many there were.
	DefaultNotifyReportEvery = 10 * time.Second
	// notifyAttemptTimeout bounds one POST, so that a receiver that never
	// answers costs a retry, not the queue.
	notifyAttemptTimeout = 10 * time.Second
)

// NotifierOptions configure webhook delivery. Every dependency is passed in.
type NotifierOptions struct {
	// URLs receive every change, each as one CloudEvent POST.
	URLs []string
	// Secret is the Standard Webhooks signing secret, "whsec_<base64>".
	Secret string
	// BaseURL is the site's address, for the CloudEvents' source.
	BaseURL string
	// Client posts the webhooks; nil means the program's outbound client
	// (outbound.NewClient) allowing URLs and following no redirect: a
	// receiver is configuration and may be on an internal address; where it
	// redirects to is not, and a signed POST must not be turned into a GET
	// (302) or re-posted elsewhere (307). A Client of one's own should
	// follow no redirect either: a 3xx it returns is a failed delivery.
	Client *http.Client
	Log    zerolog.Logger
	Now    func() time.Time
	// QueueSize bounds the changes waiting per URL; past it new ones are
	// dropped, counted, and logged at each ReportTick and when the notifier
	// closes, as are the changes a receiver rejected. Attempts and Backoff
	// (doubled after each failed attempt) govern retries.
	QueueSize int
	Attempts  int
	Backoff   time.Duration
	// ReportTick paces the log of dropped and rejected changes; nil means a
	// ticker of DefaultNotifyReportEvery, stopped when the notifier closes.
	ReportTick <-chan time.Time
}

// Notifier posts changes to webhook receivers from a bounded background
// queue per URL, so that a slow or failing receiver delays neither the build
// nor the other receivers.
type Notifier struct {
	opts      NotifierOptions
	key       []byte
	receivers []*receiver
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	mu        sync.Mutex
	closed    bool
	// closing ends the drop reports; stopTick stops their ticker.
	closing  chan struct{}
	stopTick func()
}

// receiver is one URL's queue, drained by its own worker.
type receiver struct {
	url string
	// name is what logs and errors say of url (redactURL).
	name  string
	queue chan api.Change
	// gone is set, for the life of the process, once the receiver has
	// answered 410 Gone: it is posted nothing more.
	gone atomic.Bool
	// dropped are the changes that found the queue full since the last
	// report; guarded by Notifier.mu. A flood of changes is one log line
	// per interval, not one per change.
	dropped changeCount
	// rejected are the changes given up on at the receiver's word (a 3xx,
	// most 4xx) since the last report, rejectStatus and rejectErr the last
	// answer; guarded by Notifier.mu. A rejection costs no retry, so a
	// receiver that rejects everything would otherwise log a line per
	// change as fast as it answers (hundreds in one build).
	rejected     changeCount
	rejectStatus int
	rejectErr    error
}

// changeCount counts changes between two reports, with the first and last
// of their ids (a receiver can fetch what it missed from /changes).
type changeCount struct {
	n           int
	first, last int64
}

func (cc *changeCount) add(id int64) {
	if cc.n == 0 {
		cc.first = id
	}
	cc.n++
	cc.last = id
}

// NewNotifier validates opts and starts one delivery worker per URL. Its
// workers stop when ctx ends or Close is called.
func NewNotifier(ctx context.Context, opts NotifierOptions) (*Notifier, error) {
	key, err := ParseWebhookSecret(opts.Secret)
	if err != nil {
		return nil, err
	}
	for i, u := range opts.URLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			// Not echoed: a webhook URL often carries its secret in the path.
			return nil, fmt.Errorf("notify URL #%d (%s) is not an absolute http(s) URL", i+1, redactURL(u))
		}
	}
	if opts.Client == nil {
		opts.Client = outbound.NewClient(outbound.Options{AllowedURLs: opts.URLs, NoRedirects: true})
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultNotifyQueue
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultNotifyAttempts
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultNotifyBackoff
	}
	n := &Notifier{opts: opts, key: key, closing: make(chan struct{}), stopTick: func() {}}
	if n.opts.ReportTick == nil {
		t := time.NewTicker(DefaultNotifyReportEvery)
		n.opts.ReportTick, n.stopTick = t.C, t.Stop
	}
	n.ctx, n.cancel = context.WithCancel(ctx)
	for _, u := range opts.URLs {
		r := &receiver{url: u, name: redactURL(u), queue: make(chan api.Change, opts.QueueSize)}
		n.receivers = append(n.receivers, r)
		n.wg.Go(func() { n.work(r) })
	}
	n.wg.Go(n.reportCounts)
	return n, nil
}

// ParseWebhookSecret decodes a Standard Webhooks secret, "whsec_" followed
// by the base64 of at least 24 random bytes.
func ParseWebhookSecret(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, errors.New(`notify secret must start with "whsec_" (Standard Webhooks)`)
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("notify secret: %w", err)
	}
	if len(key) < 24 {
		return nil, fmt.Errorf("notify secret has %d bytes, want at least 24", len(key))
	}
	return key, nil
}

// SignWebhook is the Standard Webhooks signature of a message:
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)).
func SignWebhook(key []byte, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, timestamp)
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Notify queues changes for every receiver without waiting, except those
// that answered 410 Gone; a change that finds a queue full is dropped for
// that receiver and counted for the next report.
func (n *Notifier) Notify(changes []api.Change) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	for _, r := range n.receivers {
		if r.gone.Load() {
			continue
		}
		for _, c := range changes {
			select {
			case r.queue <- c:
			default:
				r.dropped.add(c.ID)
			}
		}
	}
}

// Close stops taking changes and waits for the queued ones to be delivered
// until ctx ends; then it abandons the rest.
func (n *Notifier) Close(ctx context.Context) {
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		for _, r := range n.receivers {
			close(r.queue)
		}
		close(n.closing)
	}
	n.mu.Unlock()
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		n.cancel()
		<-done
	}
	n.cancel()
	n.logCounts() // those of the last interval
}

// reportCounts logs the dropped and rejected changes at each tick until the
// notifier closes.
func (n *Notifier) reportCounts() {
	defer n.stopTick()
	for {
		select {
		case <-n.closing:
			return
		case <-n.ctx.Done():
			return
		case <-n.opts.ReportTick:
			n.logCounts()
		}
	}
}

// logCounts logs, for each receiver that dropped or rejected changes since
// the last time, how many and the first and last of their ids (a receiver
// can fetch what it missed from /changes), with the last rejection's
// answer, and starts counting again.
func (n *Notifier) logCounts() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, r := range n.receivers {
		if d := r.dropped; d.n > 0 {
			n.opts.Log.Error().Str("url", r.name).Int("dropped", d.n).
				Int64("firstChange", d.first).Int64("lastChange", d.last).
				Msg("webhook queue full: changes dropped for this receiver")
			r.dropped = changeCount{}
		}
		if j := r.rejected; j.n > 0 {
			n.opts.Log.Error().Err(r.rejectErr).Str("url", r.name).Int("status", r.rejectStatus).Int("rejected", j.n).
				Int64("firstChange", j.first).Int64("lastChange", j.last).
				Msg("webhook rejected: giving up on these changes without retrying")
			r.rejected = changeCount{}
		}
	}
}

// countRejected counts c as given up on at the receiver's word, for the next
// report.
func (n *Notifier) countRejected(r *receiver, c api.Change, status int, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	r.rejected.add(c.ID)
	r.rejectStatus, r.rejectErr = status, err
}

// work delivers one receiver's queue in order.
func (n *Notifier) work(r *receiver) {
	for c := range r.queue {
		if n.ctx.Err() != nil || r.gone.Load() {
			continue // shutting down, or the receiver left: drain without delivering
		}
		n.deliver(r, c)
	}
}

// deliver posts one change, retrying with exponential backoff.
func (n *Notifier) deliver(r *receiver, c api.Change) {
	u := r.name // what the log may say of r.url
	body, err := json.Marshal(snapshot.NewCloudEvent(c, n.opts.BaseURL))
	if err != nil {
		n.opts.Log.Error().Err(err).Int64("change", c.ID).Msg("webhook: change not encodable")
		return
	}
	// webhook-id stays the same across retries, so receivers can drop
	// duplicates; it is the change id, also the CloudEvent's id.
	id := api.ChangeIDString(c.ID)
	wait := n.opts.Backoff
	for attempt := 1; ; attempt++ {
		status, err := n.post(r, id, body)
		if err == nil {
			return
		}
		if status == http.StatusGone {
			// The Standard Webhooks convention: a receiver answering 410
			// wants no more webhooks from this sender. Honoured until the
			// process restarts, as nothing here is persisted.
			r.gone.Store(true)
			n.opts.Log.Warn().Str("url", u).Int64("change", c.ID).Int("discarded", len(r.queue)).
				Msg("webhook receiver answered 410 Gone: it is posted nothing more until the process restarts (remove it from --notify, or restart once it wants webhooks again)")
			return
		}
		if status != 0 && !retryable(status) {
			n.countRejected(r, c, status, err)
			return
		}
		if attempt >= n.opts.Attempts {
			n.opts.Log.Error().Err(err).Str("url", u).Int64("change", c.ID).Int("attempts", attempt).
				Msg("webhook delivery failed; giving up on this change")
			return
		}
		n.opts.Log.Warn().Err(err).Str("url", u).Int64("change", c.ID).Int("attempt", attempt).
			Dur("retryIn", wait).Msg("webhook delivery failed; retrying")
		t := time.NewTimer(wait)
		select {
		case <-n.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait *= 2
	}
}

// retryable reports whether an answer is worth another attempt. A change
// is posted again only when a later attempt may succeed: when no answer
// came at all (a refused or reset connection, a timeout), and on 408
// Request Timeout, 429 Too Many Requests and every 5xx. Any other answer
// is the receiver's word on this message and asking again would get the
// same: a 3xx (webhooks follow no redirect, so the URL is wrong), and a
// 4xx such as 400, 401 or 403 (a wrong secret), 404 or 413. Those give up
// on the change at once, logged with the status. 410 Gone gives up on the
// receiver itself (see deliver).
func retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

// post makes one attempt. It returns the receiver's status, or 0 when no
// answer came, and an error unless the status is 2xx.
func (n *Notifier) post(r *receiver, id string, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(n.ctx, notifyAttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	ts := n.opts.Now().Unix()
	req.Header.Set("Content-Type", "application/cloudevents+json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", SignWebhook(n.key, id, ts, body))
	resp, err := n.opts.Client.Do(req)
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		ue.URL = r.name // net/http names the whole URL, secret and all
	}
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		return resp.StatusCode, fmt.Errorf("receiver answered %s (Location: %s): webhooks follow no redirect; configure the final URL",
			resp.Status, location(resp))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("receiver answered %s", resp.Status)
	}
	return resp.StatusCode, nil
}

// redactURL is what a log or an error may say of a webhook URL: its scheme
// and host. Receivers (Slack, Discord, most hook services) carry their
// secret in the path or the query, so neither is ever written out.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "an unparsable URL"
	}
	out := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		out += "/…"
	}
	return out
}

// location is where a redirect points, resolved against the request and
// named as a receiver is (redactURL): a Location may carry a token in its
// userinfo, path or query as a webhook URL does, and the receiver chose it.
// "none" when there is no Location.
func location(resp *http.Response) string {
	if resp.Header.Get("Location") == "" {
		return "none"
	}
	u, err := resp.Location()
	if err != nil {
		return "an unparsable URL"
	}
	return redactURL(u.String())
}
