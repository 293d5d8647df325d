// Package notify tells receivers of the changes each build logs: a Standard
// Webhook each change as a signed CloudEvent, Slack, Discord, Microsoft
// Teams (Workflows) and ntfy each build's changes as one message in their
// own format. Delivery is from a bounded queue per receiver, in memory, so
// that a slow or failing receiver delays neither the build nor the others.
package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/outbound"
	"github.com/rs/zerolog"
)

// Webhook delivery defaults. Delivery state lives in memory only: a change
// still queued or being retried when the process ends is not delivered
// (receivers that must not miss one can catch up from /changes by id).
const (
	DefaultQueue    = 1000
	DefaultAttempts = 5
	DefaultBackoff  = 2 * time.Second
	// DefaultReportEvery is how often the changes dropped from a full
	// queue, and those a receiver rejected, are logged: one line of each per
	// receiver that had any, with their count, however many there were.
	DefaultReportEvery = 10 * time.Second
	// AttemptTimeout bounds one POST, so that a receiver that never
	// answers costs a retry, not the queue.
	AttemptTimeout = 10 * time.Second
)

// Options configure webhook delivery. Every dependency is passed in.
type Options struct {
	// URLs receive every change, each of the kind its URL shows
	// (DetectKind): a Standard Webhook is posted each change as one
	// CloudEvent; Slack, Discord, Teams and ntfy each build's changes as
	// one message.
	URLs []string
	// Destinations are more receivers, with their kind (or "" to detect
	// it) and filter: those of a --notify-config file.
	Destinations []Destination
	// Secret is the Standard Webhooks signing secret, "whsec_<base64>";
	// needed only when a receiver is a Standard Webhook.
	Secret string
	// BaseURL is the site's address, for the CloudEvents' source and the
	// chat messages' links.
	BaseURL string
	// Names are the names chat messages give subjects
	// (SubjectNames); a subject without one is named by its id.
	Names map[string]string
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
	// ticker of DefaultReportEvery, stopped when the notifier closes.
	ReportTick <-chan time.Time
}

// Notifier posts changes to webhook receivers from a bounded background
// queue per URL, so that a slow or failing receiver delays neither the build
// nor the other receivers.
type Notifier struct {
	opts      Options
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

// Destination is one receiver of changes.
type Destination struct {
	URL string
	// Kind is its payload format; "" detects it from URL.
	Kind   Kind
	Filter Filter
}

// DefaultChatQueue bounds the builds' messages waiting per chat
// receiver: an hour of builds a minute apart.
const DefaultChatQueue = 60

// receiver is one URL's queue, drained by its own worker.
type receiver struct {
	url string
	// name is what logs and errors say of url (redactURL); index its place
	// among the receivers, from 1, which tells apart two on one host.
	name   string
	index  int
	kind   Kind
	filter Filter
	// queue holds a Standard Webhook's changes; cycles a chat receiver's
	// builds, each told in one message.
	queue  chan api.Change
	cycles chan cycle
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

// cycle is one build's changes for a chat receiver, with what the
// build knew beside them.
type cycle struct {
	changes []api.Change
	facts   Facts
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

// New validates opts and starts one delivery worker per URL. Its
// workers stop when ctx ends or Close is called.
func New(ctx context.Context, opts Options) (*Notifier, error) {
	var dests []Destination
	for _, u := range opts.URLs {
		dests = append(dests, Destination{URL: u})
	}
	dests = append(dests, opts.Destinations...)
	var key []byte
	var allowed []string
	for i := range dests {
		d := &dests[i]
		if d.Kind == "" {
			d.Kind = DetectKind(d.URL)
		}
		if err := checkDestination(*d); err != nil {
			// The URL is not echoed: a webhook URL often carries its
			// secret in the path.
			return nil, fmt.Errorf("notify URL #%d (%s): %w", i+1, redactURL(d.URL), err)
		}
		if d.Kind == Webhook && key == nil {
			k, err := ParseWebhookSecret(opts.Secret)
			if err != nil {
				return nil, err
			}
			key = k
		}
		allowed = append(allowed, d.URL)
	}
	if opts.Client == nil {
		opts.Client = outbound.NewClient(outbound.Options{AllowedURLs: allowed, NoRedirects: true})
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultQueue
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	n := &Notifier{opts: opts, key: key, closing: make(chan struct{}), stopTick: func() {}}
	if n.opts.ReportTick == nil {
		t := time.NewTicker(DefaultReportEvery)
		n.opts.ReportTick, n.stopTick = t.C, t.Stop
	}
	n.ctx, n.cancel = context.WithCancel(ctx)
	for i, d := range dests {
		r := &receiver{url: d.URL, name: redactURL(d.URL), index: i + 1, kind: d.Kind, filter: d.Filter}
		if d.Kind.chat() {
			r.cycles = make(chan cycle, min(opts.QueueSize, DefaultChatQueue))
			n.wg.Go(func() { n.workChat(r) })
		} else {
			r.queue = make(chan api.Change, opts.QueueSize)
			n.wg.Go(func() { n.work(r) })
		}
		n.receivers = append(n.receivers, r)
	}
	n.wg.Go(n.reportCounts)
	return n, nil
}

// Notify queues changes for every receiver, as NotifyCycle does, with no
// facts to tell beside them.
func (n *Notifier) Notify(changes []api.Change) { n.NotifyCycle(changes, Facts{}) }

// NotifyCycle queues one build's changes for every receiver without
// waiting, except those that answered 410 Gone: each change its filter
// lets through for a Standard Webhook, the build's as one message for a
// chat receiver, told with facts. A change that finds a queue full is
// dropped for that receiver and counted for the next report.
func (n *Notifier) NotifyCycle(changes []api.Change, facts Facts) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	for _, r := range n.receivers {
		if r.gone.Load() {
			continue
		}
		if r.kind.chat() {
			var kept []api.Change
			for _, c := range changes {
				if r.filter.passes(c, true) {
					kept = append(kept, c)
				}
			}
			if len(kept) == 0 {
				continue
			}
			select {
			case r.cycles <- cycle{changes: kept, facts: facts}:
			default:
				for _, c := range kept {
					r.dropped.add(c.ID)
				}
			}
			continue
		}
		for _, c := range changes {
			if !r.filter.passes(c, false) {
				continue
			}
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
			if r.cycles != nil {
				close(r.cycles)
			} else {
				close(r.queue)
			}
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
			n.opts.Log.Error().Str("url", r.name).Int("receiver", r.index).Str("kind", string(r.kind)).Int("dropped", d.n).
				Int64("firstChange", d.first).Int64("lastChange", d.last).
				Msg("webhook queue full: changes dropped for this receiver")
			r.dropped = changeCount{}
		}
		if j := r.rejected; j.n > 0 {
			n.opts.Log.Error().Err(r.rejectErr).Str("url", r.name).Int("receiver", r.index).Str("kind", string(r.kind)).
				Int("status", r.rejectStatus).Int("rejected", j.n).
				Int64("firstChange", j.first).Int64("lastChange", j.last).
				Msg("webhook rejected: giving up on these changes without retrying")
			r.rejected = changeCount{}
		}
	}
}

// countRejected counts the changes of ids as given up on at the receiver's word, for the next
// report.
func (n *Notifier) countRejected(r *receiver, ids []int64, status int, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, id := range ids {
		r.rejected.add(id)
	}
	r.rejectStatus, r.rejectErr = status, err
}

// workChat delivers one chat receiver's builds in order, one message each.
func (n *Notifier) workChat(r *receiver) {
	for cy := range r.cycles {
		if n.ctx.Err() != nil || r.gone.Load() {
			continue
		}
		ids := make([]int64, len(cy.changes))
		for i, c := range cy.changes {
			ids[i] = c.ID
		}
		msg, err := newAlert(cy.changes, cy.facts, n.opts.Names, n.opts.BaseURL).render(r.kind, r.url)
		if err != nil {
			n.opts.Log.Error().Err(err).Str("url", r.name).Int("receiver", r.index).Str("kind", string(r.kind)).
				Int64("firstChange", ids[0]).Int64("lastChange", ids[len(ids)-1]).Msg("notification not encodable")
			continue
		}
		n.deliver(r, outgoing{ids: ids, body: msg.body, contentType: msg.contentType, target: msg.target})
	}
}

// outgoing is one POST to make to a receiver, retried as deliver says.
type outgoing struct {
	// ids are the changes it carries: one for a Standard Webhook, a
	// build's for a chat message.
	ids         []int64
	body        []byte
	contentType string
	// target is where it is posted: the receiver's URL, or for ntfy's
	// JSON form the server's root. Never logged.
	target string
	// webhookID, for a Standard Webhook, is its webhook-id; it is signed.
	webhookID string
}

// logged adds to a log line the receiver, named as redactURL has it, and
// the changes m carries.
func (r *receiver) logged(e *zerolog.Event, m outgoing) *zerolog.Event {
	e = e.Str("url", r.name).Int("receiver", r.index).Str("kind", string(r.kind))
	if len(m.ids) == 1 {
		return e.Int64("change", m.ids[0])
	}
	return e.Int64("firstChange", m.ids[0]).Int64("lastChange", m.ids[len(m.ids)-1]).Int("changes", len(m.ids))
}

// deliver posts one message, retrying with exponential backoff.
func (n *Notifier) deliver(r *receiver, m outgoing) {
	wait := n.opts.Backoff
	for attempt := 1; ; attempt++ {
		status, err := n.post(r, m)
		if err == nil {
			return
		}
		if status == http.StatusGone {
			// The Standard Webhooks convention: a receiver answering 410
			// wants no more webhooks from this sender. Honoured until the
			// process restarts, as nothing here is persisted.
			r.gone.Store(true)
			r.logged(n.opts.Log.Warn(), m).Int("discarded", len(r.queue)+len(r.cycles)).
				Msg("webhook receiver answered 410 Gone: it is posted nothing more until the process restarts (remove it from --notify, or restart once it wants webhooks again)")
			return
		}
		if status != 0 && !retryable(status) {
			n.countRejected(r, m.ids, status, err)
			return
		}
		if attempt >= n.opts.Attempts {
			r.logged(n.opts.Log.Error().Err(err), m).Int("attempts", attempt).
				Msg("webhook delivery failed; giving up on this change")
			return
		}
		r.logged(n.opts.Log.Warn().Err(err), m).Int("attempt", attempt).
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
func (n *Notifier) post(r *receiver, m outgoing) (int, error) {
	ctx, cancel := context.WithTimeout(n.ctx, AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.target, bytes.NewReader(m.body))
	if err != nil {
		return 0, errors.New("request not made") // err would name the URL
	}
	req.Header.Set("Content-Type", m.contentType)
	if m.webhookID != "" {
		ts := n.opts.Now().Unix()
		req.Header.Set("webhook-id", m.webhookID)
		req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
		req.Header.Set("webhook-signature", SignWebhook(n.key, m.webhookID, ts, m.body))
	}
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
