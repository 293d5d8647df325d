package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// answered sends one request on conn and reports whether it was answered.
func answered(conn net.Conn) bool {
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET /llms.txt HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// dialFrom connects to addr from the local address local; the connection
// is closed with the test.
func dialFrom(t *testing.T, addr, local string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	conn, err := d.Dial("tcp", addr)
	if err == nil {
		t.Cleanup(func() { conn.Close() })
	}
	return conn, err
}

// cappedServer serves with the connection caps and returns its address.
func cappedServer(t *testing.T, perClient, total int) string {
	ts := newTestServer(t, 0)
	opts := ts.opts
	opts.MaxConnsPerClient, opts.MaxConns = perClient, total
	srv := New(opts)
	srv.Store().Reload()
	base, _ := serveLoopback(t, srv)
	return strings.TrimPrefix(base, "http://")
}

// TestConnectionCaps: over a real listener, a client holding its share of
// idle keep-alive connections has the next one closed unanswered, while
// another client is still served; closing one frees a slot.
func TestConnectionCaps(t *testing.T) {
	t.Parallel()
	addr := cappedServer(t, 3, 100)
	dial := func(local string) net.Conn {
		conn, err := dialFrom(t, addr, local)
		if err != nil {
			t.Fatal(err)
		}
		return conn
	}
	var held []net.Conn
	for i := range 3 {
		c := dial("127.0.0.1")
		if !answered(c) {
			t.Fatalf("connection %d within the cap not answered", i+1)
		}
		held = append(held, c)
	}
	if answered(dial("127.0.0.1")) {
		t.Fatal("a fourth connection from the same client was answered: no per-client cap")
	}
	// Another address of the loopback network is another client (where
	// the system lets a socket bind to one: Linux does).
	if other, err := dialFrom(t, addr, "127.0.0.2"); err != nil {
		t.Logf("no second loopback address to test another client from: %v", err)
	} else if !answered(other) {
		t.Error("another client was refused")
	}
	held[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for !answered(dial("127.0.0.1")) {
		if time.Now().After(deadline) {
			t.Fatal("a slot freed by closing a connection was never given back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConnectionCapClosesIdle: over a real listener, when one client's
// idle keep-alive connections fill the total cap, another client is still
// served: one of the idle connections is closed to admit it, and the
// others go on serving.
func TestConnectionCapClosesIdle(t *testing.T) {
	t.Parallel()
	addr := cappedServer(t, 3, 3)
	var held []net.Conn
	for i := range 3 {
		c, err := dialFrom(t, addr, "127.0.0.1")
		if err != nil || !answered(c) {
			t.Fatalf("connection %d within the caps not answered (%v)", i+1, err)
		}
		held = append(held, c)
	}
	// The server marks a connection idle just after answering on it: until
	// it has, another client's connection is refused; try until admitted.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		other, err := dialFrom(t, addr, "127.0.0.2")
		if err != nil {
			t.Skipf("no second loopback address to test another client from: %v", err)
		}
		if answered(other) {
			break
		}
		other.Close()
		if time.Now().After(deadline) {
			t.Fatal("another client was refused while the total was held by idle connections")
		}
	}
	alive := 0
	for _, c := range held {
		if answered(c) {
			alive++
		}
	}
	if alive != 2 {
		t.Errorf("%d of the first client's 3 idle connections still answer, want 2", alive)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// temporaryError is an accept error net/http retries (and logs).
type temporaryError struct{}

func (temporaryError) Error() string   { return "too many open files" }
func (temporaryError) Timeout() bool   { return false }
func (temporaryError) Temporary() bool { return true }

// failOnce fails its first Accept with a temporary error.
type failOnce struct {
	net.Listener
	failed atomic.Bool
}

func (l *failOnce) Accept() (net.Conn, error) {
	if l.failed.CompareAndSwap(false, true) {
		return nil, temporaryError{}
	}
	return l.Listener.Accept()
}

// TestHTTPErrorLogIsJSON: net/http's own messages (here an accept error)
// arrive in the JSON log as a structured line, not as plain text.
func TestHTTPErrorLogIsJSON(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	var logs syncBuffer
	opts := ts.opts
	opts.Log = zerolog.New(&logs)
	srv := New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, &failOnce{Listener: ln}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "Accept error") {
		if time.Now().After(deadline) {
			t.Fatalf("the accept error never reached the log: %q", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var fields map[string]any
		if err := json.Unmarshal([]byte(line), &fields); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if msg, _ := fields["message"].(string); strings.Contains(msg, "Accept error") &&
			(fields["level"] != "warn" || fields["component"] != "net/http" || !strings.HasPrefix(msg, "Accept error: too many open files")) {
			t.Errorf("accept error logged as %v", fields)
		}
	}
}
