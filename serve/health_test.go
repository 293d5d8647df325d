package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// sharedStub stands in for the shared state another component provides.
type sharedStub struct{}

func (sharedStub) SharedStateHealth(context.Context) SharedStateHealth {
	return SharedStateHealth{InUse: true, Kind: "stub", OK: true}
}

// TestHealthEndpoints checks /healthz and /readyz on a folder-backed server:
// not rate limited, not cached, ready with a fresh snapshot, a 503 problem
// saying why without one or with a stale one, and the shared-state hook.
func TestHealthEndpoints(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 1)
	ts.opts.SharedState = sharedStub{}
	ts.Watch(canceled(), time.Hour) // one look at the folder, for the source's health
	for i := range 5 {
		resp := ts.do(t, http.MethodGet, snapshot.PathReadyz, nil)
		var h Health
		if err := json.Unmarshal(body(t, resp), &h); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || !h.Ready || resp.Header.Get("RateLimit") != "" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("/readyz #%d: %d %+v, headers %v", i+1, resp.StatusCode, h, resp.Header)
		}
		if h.Source.Kind != "dir" || h.Source.Location != ts.dir || h.Source.LastSuccess == nil || h.Snapshot.AgeSeconds != 60 ||
			!h.SharedState.InUse || h.SharedState.Kind != "stub" {
			t.Fatalf("/readyz body: %+v", h)
		}
	}
	ts.clock.Set(genTime.Add(16 * time.Minute))
	resp := ts.do(t, http.MethodGet, snapshot.PathReadyz, nil)
	if p := decodeProblem(t, resp); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(p.Detail, "stale") {
		t.Errorf("/readyz with a stale snapshot: %d %+v", resp.StatusCode, p)
	}
	if resp := ts.do(t, http.MethodGet, snapshot.PathHealthz, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz with a stale snapshot: %d", resp.StatusCode)
	}

	empty := New(Options{Dir: filepath.Join(t.TempDir(), "none"), Log: zerolog.Nop()})
	rec := &testServer{Server: empty}
	resp = rec.do(t, http.MethodGet, snapshot.PathReadyz, nil)
	if p := decodeProblem(t, resp); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(p.Detail, "no snapshot") {
		t.Errorf("/readyz without a snapshot: %d %+v", resp.StatusCode, p)
	}
	if resp := rec.do(t, http.MethodGet, snapshot.PathHealthz, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz without a snapshot: %d", resp.StatusCode)
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestDrainOnShutdown runs a server on a real listener and ends its context,
// as SIGTERM does: for the drain period it still serves but reports
// not-ready; then it shuts down, letting a request in flight finish.
func TestDrainOnShutdown(t *testing.T) {
	t.Parallel()
	const drain = 600 * time.Millisecond
	ts := newTestServer(t, 0)
	ts.opts.Drain = drain
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- ts.Serve(ctx, ln) }()
	get := func(path string) int {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(snapshot.PathReadyz); code != http.StatusOK {
		t.Fatalf("/readyz before shutdown: %d", code)
	}

	// A request in flight: an MCP message whose body is still being sent.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, base+snapshot.PathMCP, pr)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	inflight := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("request in flight: %v", err)
			inflight <- 0
			return
		}
		resp.Body.Close()
		inflight <- resp.StatusCode
	}()
	if _, err := pw.Write([]byte(`{"jsonrpc":"2.0",`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)

	stop := time.Now()
	cancel()
	time.Sleep(50 * time.Millisecond)
	if code := get(snapshot.PathReadyz); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while draining: %d, want 503", code)
	}
	if code := get(snapshot.PathHealthz); code != http.StatusOK {
		t.Errorf("/healthz while draining: %d, want 200", code)
	}
	if code := get(snapshot.PathStatus); code != http.StatusOK {
		t.Errorf("%s while draining: %d, want 200 (still serving)", snapshot.PathStatus, code)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v during the drain", err)
	default:
	}

	// Past the drain the server shuts down, but waits for the request.
	time.Sleep(drain)
	if _, err := pw.Write([]byte(`"id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if code := <-inflight; code != http.StatusOK {
		t.Errorf("the request in flight at shutdown: %d, want 200", code)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the drain")
	}
	if took := time.Since(stop); took < drain {
		t.Errorf("shut down %v after the signal, before the %v drain", took, drain)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the listener still accepts after shutdown (%v)", err)
	}
}
