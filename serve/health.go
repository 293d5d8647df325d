package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/serve/shared"
	"github.com/aistatus/aistatus/snapshot"
)

// SharedState is the hook for state that replicas share (a Redis-backed rate
// limiter or probe cache). Health only reports it: a shared store that is
// down makes a replica fall back to its own state, not stop serving, so it
// never decides readiness.
type SharedState interface {
	SharedStateHealth(ctx context.Context) SharedStateHealth
}

// SharedStateHealth is what /healthz and /readyz say about shared state.
type SharedStateHealth struct {
	// InUse is false when the replica keeps all its state to itself.
	InUse bool   `json:"inUse"`
	Kind  string `json:"kind,omitempty"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// SourceHealth says where the snapshot comes from and how the latest looks
// at it went.
type SourceHealth struct {
	// Kind is "dir" (a local folder) or "origin" (a published site).
	Kind     string `json:"kind"`
	Location string `json:"location"`
	// LastPoll is the latest look at the source; LastSuccess the latest that
	// found the snapshot served to be the source's current one (or loaded it);
	// LastChange the latest that swapped in a new snapshot.
	LastPoll    *time.Time `json:"lastPoll"`
	LastSuccess *time.Time `json:"lastSuccess"`
	LastChange  *time.Time `json:"lastChange"`
	// SecondsSinceSuccess is how long the copy may have lagged the source.
	SecondsSinceSuccess *int   `json:"secondsSinceSuccess"`
	ConsecutiveFailures int    `json:"consecutiveFailures"`
	LastError           string `json:"lastError,omitempty"`
}

// sourceTracker records the outcome of each look at the source. It is
// written by the polling goroutine and read by health requests.
type sourceTracker struct {
	mu sync.Mutex
	h  SourceHealth
}

func newSourceTracker(kind, location string) *sourceTracker {
	return &sourceTracker{h: SourceHealth{Kind: kind, Location: location}}
}

func (t *sourceTracker) polled(now time.Time, changed bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.h.LastPoll = &now
	if err != nil {
		t.h.ConsecutiveFailures++
		t.h.LastError = api.Truncate(err.Error(), 512)
		return
	}
	t.h.ConsecutiveFailures, t.h.LastError = 0, ""
	t.h.LastSuccess = &now
	if changed {
		t.h.LastChange = &now
	}
}

func (t *sourceTracker) health(now time.Time) SourceHealth {
	t.mu.Lock()
	h := t.h
	t.mu.Unlock()
	if h.LastSuccess != nil {
		s := max(0, int(now.Sub(*h.LastSuccess).Seconds()))
		h.SecondsSinceSuccess = &s
	}
	return h
}

// Health is the body of /healthz, and the extension members of /readyz's
// problem when the instance is not ready.
type Health struct {
	Ready bool `json:"ready"`
	// Reasons say why the instance is not ready.
	Reasons  []string        `json:"reasons,omitempty"`
	Draining bool            `json:"draining"`
	Snapshot *SnapshotHealth `json:"snapshot"`
	Source   SourceHealth    `json:"source"`
	// SharedState is the state shared between replicas, if any.
	SharedState SharedStateHealth `json:"sharedState"`
	Timestamp   time.Time         `json:"timestamp"`
}

// SnapshotHealth describes the snapshot being served; nil when none is.
type SnapshotHealth struct {
	GeneratedAt       time.Time `json:"generatedAt"`
	Generation        string    `json:"generation,omitempty"`
	AgeSeconds        int       `json:"ageSeconds"`
	StaleAfterSeconds int       `json:"staleAfterSeconds"`
	Stale             bool      `json:"stale"`
}

// Health reports the instance's state as /healthz and /readyz do.
func (s *Server) Health(ctx context.Context) Health {
	now := s.opts.Now()
	h := Health{Draining: s.draining.Load(), Timestamp: now.UTC()}
	if s.opts.Origin != nil {
		h.Source = s.opts.Origin.Health()
	} else {
		h.Source = s.dirSource.health(now)
	}
	if s.opts.SharedState != nil {
		h.SharedState = s.opts.SharedState.SharedStateHealth(ctx)
	}
	if h.Draining {
		h.Reasons = append(h.Reasons, "draining: the server is shutting down")
	}
	if snap := s.store.Current(); snap == nil {
		h.Reasons = append(h.Reasons, "no snapshot loaded yet")
	} else {
		age, stale := snap.Age(now)
		m := snap.Manifest
		h.Snapshot = &SnapshotHealth{GeneratedAt: m.GeneratedAt, Generation: m.Generation, AgeSeconds: int(age.Seconds()),
			StaleAfterSeconds: m.StaleAfterSeconds, Stale: stale}
		if stale {
			// A replica cut off from its origin serves its last good copy, and
			// says so here; the data turns stale by the manifest's own rule,
			// the one /check's verdict uses.
			h.Reasons = append(h.Reasons, fmt.Sprintf("snapshot stale: generated %d s ago, stale after %d s", int(age.Seconds()), m.StaleAfterSeconds))
		}
	}
	h.Ready = len(h.Reasons) == 0
	return h
}

// handleHealthz answers 200 while the process serves: liveness only, so
// that a stale snapshot or a lost origin never gets the process restarted
// (a restart would lose the last good copy).
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	writeHealth(w, http.StatusOK, s.Health(r.Context()))
}

// handleReadyz answers 200 when the instance should get traffic, and a 503
// problem saying why when it should not.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	h := s.Health(r.Context())
	if h.Ready {
		writeHealth(w, http.StatusOK, h)
		return
	}
	writeHealth(w, http.StatusServiceUnavailable, struct {
		api.Problem
		Health
	}{api.Problem{Type: "about:blank", Title: http.StatusText(http.StatusServiceUnavailable),
		Status: http.StatusServiceUnavailable, Detail: "not ready: " + strings.Join(h.Reasons, "; ")}, h})
}

func writeHealth(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		problem(w, http.StatusInternalServerError, "", "internal error")
		return
	}
	hd := w.Header()
	hd.Del("ETag")
	// The answer is this instance's, now: no cache may keep or share it.
	hd.Set("Cache-Control", "no-store")
	if status == http.StatusOK {
		hd.Set("Content-Type", snapshot.ContentJSON)
	} else {
		hd.Set("Content-Type", snapshot.ContentProblem)
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// redisHealth is the Redis state as a SharedState.
type redisHealth struct{ *shared.Redis }

// SharedStateHealth reports the Redis connection to /healthz and /readyz.
// A replica in fallback is still ready: it answers from its own state.
func (r redisHealth) SharedStateHealth(context.Context) SharedStateHealth {
	st := r.Status()
	h := SharedStateHealth{InUse: true, Kind: "redis", OK: st.OK}
	if !st.OK {
		h.Error = "redis unreachable since " + st.Since.UTC().Format(time.RFC3339) + ": rate limit and probe cache are local to this replica"
	}
	return h
}
