package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/snapshot"
)

// The event stream's rules (also in docs/api.md and the OpenAPI description).
const (
	// DefaultMaxEventStreams caps the open event streams of a server: each
	// holds a connection and a goroutine for as long as the client likes.
	DefaultMaxEventStreams = 1000
	// DefaultMaxEventStreamsPerClient caps the open streams of one client
	// (keyed as the rate limit keys it: IPv6 by /64, the forwarded address
	// behind a trusted proxy), so that filling DefaultMaxEventStreams takes
	// 125 clients: the connection cap (64 per client) let 16 do it, or one
	// behind a trusted proxy, whose connections it does not count. A
	// browser holds at most 6 connections to a host over HTTP/1.1; the
	// rest is room for a script behind the same address.
	DefaultMaxEventStreamsPerClient = 8
	// eventRefusedRetry is the Retry-After, in seconds, of a stream refused
	// for a cap.
	eventRefusedRetry = 30
	// DefaultEventStreamLifetime ends a stream this long after it opened
	// (checked at each heartbeat and each build sent), so that a client
	// that never reads (15-byte heartbeats take days to fill its socket
	// buffers) gives its slot back. EventSource reconnects by itself and
	// resumes from Last-Event-ID: a reading client loses nothing, and pays
	// a request of its rate limit every 10 minutes.
	DefaultEventStreamLifetime = 10 * time.Minute
	// maxEventReplay bounds the events a stream sends in a row, for one
	// build or a resumed stream's catch-up: past it, a gap event points at
	// /changes?since=, which pages through the rest. A whole retained log
	// (50 000 changes, 24 MB) for one request of the rate limit is now at
	// most what one page of /changes costs (MaxChangeLimit).
	maxEventReplay = MaxChangeLimit
	// eventRetry is the reconnection delay the stream asks EventSource
	// clients to wait, in milliseconds.
	eventRetry = 5000
	// eventEndRetry is the delay a stream asks for when it ends at its
	// lifetime: the server ended it in good health, so come back soon.
	eventEndRetry = 1000
	// defaultHeartbeat keeps proxies from closing an idle stream and lets a
	// dead client be noticed by a failed write.
	defaultHeartbeat = 15 * time.Second
	// eventWriteTimeout bounds each write to a stream: a client that stops
	// reading is dropped, while a stream that keeps flowing lives on past
	// the server's WriteTimeout.
	eventWriteTimeout = 10 * time.Second
)

// eventHub wakes the open event streams when a new snapshot is swapped in.
// A wake-up carries nothing: each stream reads the current snapshot's log
// after the last id it sent, so a stream that was slow to wake misses no
// entry and a burst of swaps costs one read.
type eventHub struct {
	mu sync.Mutex
	// subs are the open streams, each with its client's key; perClient
	// counts them by key (a key at zero is deleted).
	subs      map[chan struct{}]netip.Addr
	perClient map[netip.Addr]int
	// max caps all streams, maxPerClient each client's (0 or less: no cap).
	max, maxPerClient int
	closed            bool
	// done is closed at shutdown, ending every stream.
	done chan struct{}
}

// Why subscribe refuses a stream.
var (
	errEventsClosed      = errors.New("the server is shutting down")
	errEventStreamsFull  = errors.New("too many open event streams")
	errClientStreamsFull = errors.New("too many open event streams from this client")
)

func newEventHub(max, maxPerClient int) *eventHub {
	return &eventHub{subs: map[chan struct{}]netip.Addr{}, perClient: map[netip.Addr]int{},
		max: max, maxPerClient: maxPerClient, done: make(chan struct{})}
}

// subscribe registers a stream of client (a limits.LimitKey), or says why
// not: the server is shutting down, or a cap is reached.
func (h *eventHub) subscribe(client netip.Addr) (chan struct{}, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, errEventsClosed
	case h.maxPerClient > 0 && h.perClient[client] >= h.maxPerClient:
		return nil, errClientStreamsFull
	case len(h.subs) >= h.max:
		return nil, errEventStreamsFull
	}
	ch := make(chan struct{}, 1)
	h.subs[ch] = client
	h.perClient[client]++
	return ch, nil
}

func (h *eventHub) unsubscribe(ch chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	client, ok := h.subs[ch]
	if !ok {
		return
	}
	delete(h.subs, ch)
	if h.perClient[client]--; h.perClient[client] <= 0 {
		delete(h.perClient, client)
	}
}

// wake tells every stream that a new snapshot is current. It never blocks:
// a stream already due to wake up needs no second signal.
func (h *eventHub) wake() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// shutdown ends every stream and refuses new ones: http.Server.Shutdown
// waits for idle connections, which a stream never becomes.
func (h *eventHub) shutdown() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

// eventFrames are a snapshot's changes as Server-Sent Events. Each is
// encoded the first time a stream sends it and shared by every stream
// after: one build's changes cost one encoding, however many streams are
// open, where each stream used to encode them all again.
type eventFrames struct {
	mu sync.Mutex
	// frames[i-base] is the frame of the change at index i, for every
	// index from base to the end of the log; nil until a stream first
	// sends it. Streams ask for the newest changes, so the slice starts
	// small and grows towards older ones only for a stream that resumes
	// from further back.
	base   int
	frames [][]byte
}

// eventFrames returns the frames of the change log's [from:to], encoding those that
// no stream has sent yet. Streams woken together by a build wait for the
// first of them to encode the build's changes instead of each encoding
// them; a frame once set never changes, so the slice returned is read
// without the lock.
func (s *Snapshot) eventFrames(from, to int) [][]byte {
	if from >= to {
		return nil
	}
	changes := s.changeLog().changes
	f := &s.frames
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.frames == nil || from < f.base {
		grown := make([][]byte, len(changes)-from)
		if f.frames != nil {
			copy(grown[f.base-from:], f.frames)
		}
		f.base, f.frames = from, grown
	}
	out := f.frames[from-f.base : to-f.base : to-f.base]
	for i := range out {
		if out[i] == nil {
			out[i] = eventFrame(changes[from+i], s.Manifest.BaseURL)
		}
	}
	return out
}

// eventFrame is one change as an event: its name, its id and its
// CloudEvent. The name is the CloudEvent's type
// (ai.aistatus.status.changed, ai.aistatus.incident.opened, …), so that a
// client dispatches on the SSE event as on the CloudEvent, and can listen
// for incidents alone; EventSource hands it to addEventListener(type), not
// to onmessage. A change that cannot be encoded (a time past year 9999) is
// an empty frame, which a stream skips.
func eventFrame(c api.Change, baseURL string) []byte {
	ce := snapshot.NewCloudEvent(c, baseURL)
	data, err := json.Marshal(ce)
	if err != nil {
		return []byte{}
	}
	return fmt.Appendf(nil, "event: %s\nid: %d\ndata: %s\n\n", ce.Type, c.ID, data)
}

// eventGap is the data of a gap event: the changes after After, up to and
// including Until, that the stream did not send. Retained says whether the
// log still holds them: then Changes is where to page through them
// (/changes?since=After, relative to the stream's address); else they
// were pruned before the client asked, and it must re-read the state. The
// event's id is Until, so that a reconnect goes on after the gap rather
// than asking for it again.
type eventGap struct {
	After    int64  `json:"after"`
	Until    int64  `json:"until"`
	Retained bool   `json:"retained"`
	Changes  string `json:"changes,omitempty"`
}

// gapFrame is the gap event that stands for the changes after after, up to
// until.
func gapFrame(after, until int64, retained bool) []byte {
	gap := eventGap{After: after, Until: until, Retained: retained}
	if retained {
		gap.Changes = fmt.Sprintf("%s?since=%d", snapshot.PathChanges, after)
	}
	data, err := json.Marshal(gap)
	if err != nil {
		panic(err) // integers, a bool and a string
	}
	return fmt.Appendf(nil, "event: gap\nid: %d\ndata: %s\n\n", until, data)
}

// handleEvents streams the change log as Server-Sent Events, each a
// CloudEvent whose SSE id is the change id. A client reconnecting with
// Last-Event-ID first gets the retained entries after it, then new ones as
// snapshots are swapped in; a new client gets only new ones. At most
// maxEventReplay go out in a row; a gap event stands for the rest.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	start := s.opts.Now()
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	last := history.LastChangeID(s.changeLog(snap).changes)
	// resumed: the client named the last change it has (0 asks for the
	// whole log), which the first send checks the log still reaches.
	resumed := false
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || id < 0 {
			problem(w, http.StatusBadRequest, "Last-Event-ID", fmt.Sprintf("Last-Event-ID %q is not a change id", api.Truncate(v, 64)))
			return
		}
		last, resumed = id, id > 0
	}
	// Subscribe before reading the log, so that a swap in between wakes
	// this stream rather than slipping past it.
	wake, err := s.events.subscribe(limits.LimitKey(limits.ClientAddr(r, s.opts.TrustedProxies)))
	if err != nil {
		w.Header().Set("Retry-After", strconv.Itoa(eventRefusedRetry))
		if errors.Is(err, errClientStreamsFull) {
			// The client's own doing, and undone by closing one of its
			// streams: a 4xx, not an outage of the server.
			problem(w, http.StatusTooManyRequests, "", fmt.Sprintf(
				"this client (IP address, IPv6 /64) already has %d open event streams, the most one client may have; close one, or poll %s",
				s.events.maxPerClient, snapshot.PathChanges))
			return
		}
		problem(w, http.StatusServiceUnavailable, "", err.Error()+"; retry later or poll "+snapshot.PathChanges)
		return
	}
	defer s.events.unsubscribe(wake)

	h := w.Header()
	h.Set("Content-Type", snapshot.ContentEventStream)
	// Each stream is one client's: never cached, never buffered by a proxy.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	rc := http.NewResponseController(w)
	// The server's read deadline, meant for reading the request, would
	// otherwise end the stream when it passes.
	_ = rc.SetReadDeadline(time.Time{})
	// write buffers data for the client, flush sends what is buffered: a
	// build's events go out together, not in a system call each.
	write := func(data []byte) bool {
		// Deadlines are wall-clock times of the connection, not the
		// injected clock. Not every writer supports them (tests' recorders).
		_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
		_, err := w.Write(data)
		return err == nil
	}
	flush := func() bool { return rc.Flush() == nil }
	if !write(fmt.Appendf(nil, "retry: %d\n\n", eventRetry)) || !flush() {
		return
	}
	send := func(snap *Snapshot) bool {
		log := s.changeLog(snap).changes
		from := len(log) - len(history.ChangesAfter(log, last))
		// Ids are consecutive within a log: a client whose last change is
		// older than the one before the first retained missed changes
		// that were pruned since, and is told so rather than handed the
		// log as if it were complete.
		if resumed && from == 0 && len(log) > 0 && log[0].ID-1 > last {
			if !write(gapFrame(last, log[0].ID-1, false)) {
				return false
			}
			last = log[0].ID - 1
		}
		resumed = false
		to := min(len(log), from+maxEventReplay)
		for i, frame := range snap.eventFrames(from, to) {
			if len(frame) > 0 && !write(frame) {
				return false
			}
			last = log[from+i].ID
		}
		if to < len(log) {
			// More than a stream sends in a row: the client pages
			// through the rest of them from /changes.
			until := history.LastChangeID(log)
			if !write(gapFrame(last, until, true)) {
				return false
			}
			last = until
		}
		return flush()
	}
	if !send(s.store.Current()) {
		return
	}
	// A stream ends at its lifetime by the injected clock, at the first
	// heartbeat or build after it: nothing is lost, the client resumes
	// from the last id it got.
	lifetime := s.opts.EventStreamLifetime
	ended := func() bool {
		if lifetime <= 0 || s.opts.Now().Sub(start) < lifetime {
			return false
		}
		write(fmt.Appendf(nil, ": this stream has been open %s, its most; reconnect with Last-Event-ID to go on\nretry: %d\n\n",
			lifetime, eventEndRetry))
		flush()
		return true
	}
	heartbeat := time.NewTicker(s.heartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.events.done:
			return
		case <-wake:
			if !send(s.store.Current()) || ended() {
				return
			}
		case <-heartbeat.C:
			if ended() || !write([]byte(": heartbeat\n\n")) || !flush() {
				return
			}
		}
	}
}
