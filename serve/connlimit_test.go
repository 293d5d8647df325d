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
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// fakeConn is a connection from addr that records whether it was closed.
type fakeConn struct {
	net.Conn
	addr   net.Addr
	closed atomic.Bool
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.addr }
func (c *fakeConn) Close() error         { c.closed.Store(true); return nil }

// fakeListener hands out queued connections, then reports net.ErrClosed.
type fakeListener struct{ conns chan net.Conn }

func (l *fakeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	default:
		return nil, net.ErrClosed
	}
}
func (l *fakeListener) Close() error   { return nil }
func (l *fakeListener) Addr() net.Addr { return &net.TCPAddr{} }

// TestConnLimitListener: per-client and total caps, IPv6 grouped by /64,
// trusted proxies counted only in the total, and a slot given back (once)
// when a connection closes.
func TestConnLimitListener(t *testing.T) {
	type step struct {
		addr  string // a new connection from addr; "close N" closes the N-th admitted
		admit bool
	}
	tests := []struct {
		name             string
		perClient, total int
		steps            []step
	}{
		{"per client", 2, 100, []step{
			{"192.0.2.1:1", true}, {"192.0.2.1:2", true}, {"192.0.2.1:3", false},
			{"192.0.2.2:1", true}, {"close 0", true}, {"close 0", true}, {"192.0.2.1:4", true}, {"192.0.2.1:5", false},
		}},
		{"IPv6 by /64", 2, 100, []step{
			{"[2001:db8::1]:1", true}, {"[2001:db8::2]:1", true}, {"[2001:db8::ffff:1]:1", false},
			{"[2001:db8:0:1::1]:1", true},
		}},
		{"IPv4-mapped is IPv4", 1, 100, []step{{"192.0.2.9:1", true}, {"[::ffff:192.0.2.9]:2", false}}},
		{"total", 100, 3, []step{
			{"192.0.2.1:1", true}, {"192.0.2.2:1", true}, {"198.51.100.1:1", true}, {"192.0.2.3:1", false},
			{"close 1", true}, {"192.0.2.3:1", true},
		}},
		{"trusted proxy", 1, 4, []step{
			{"10.0.0.1:1", true}, {"10.0.0.1:2", true}, {"10.0.0.1:3", true}, {"192.0.2.1:1", true}, {"10.0.0.1:4", false},
		}},
	}
	trusted, _ := ParseTrustedProxies([]string{"10.0.0.0/8"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			inner := &fakeListener{conns: make(chan net.Conn, 1)}
			l := newConnLimitListener(inner, tt.perClient, tt.total, trusted, zerolog.New(&logs), time.Now)
			var admitted []net.Conn
			for i, s := range tt.steps {
				if n, ok := strings.CutPrefix(s.addr, "close "); ok {
					var k int
					fmt.Sscan(n, &k)
					admitted[k].Close()
					continue
				}
				fc := &fakeConn{addr: net.TCPAddrFromAddrPort(netip.MustParseAddrPort(s.addr))}
				inner.conns <- fc
				c, err := l.Accept()
				switch {
				case s.admit && err != nil:
					t.Fatalf("step %d (%s): refused, want admitted", i, s.addr)
				case !s.admit && err == nil:
					t.Fatalf("step %d (%s): admitted, want refused", i, s.addr)
				case !s.admit && !fc.closed.Load():
					t.Fatalf("step %d (%s): refused but left open", i, s.addr)
				}
				if err == nil {
					admitted = append(admitted, c)
				}
			}
			if strings.Contains(tt.name, "per client") && !strings.Contains(logs.String(), `"reason":"per-client cap"`) {
				t.Errorf("refusal not logged: %q", logs.String())
			}
		})
	}
}

// TestConnectionCaps: over a real listener, a client holding its share of
// idle keep-alive connections has the next one closed unanswered, while
// another client is still served; closing one frees a slot.
func TestConnectionCaps(t *testing.T) {
	ts := newTestServer(t, 0)
	opts := ts.opts
	opts.MaxConnsPerClient, opts.MaxConns = 3, 100
	srv := New(opts)
	srv.Store().Reload()
	base, _ := serveLoopback(t, srv)
	addr := strings.TrimPrefix(base, "http://")

	// get sends one request on conn and reports whether it was answered.
	get := func(conn net.Conn) bool {
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
	dial := func(local string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		conn, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	var held []net.Conn
	for i := range 3 {
		c := dial("127.0.0.1")
		if !get(c) {
			t.Fatalf("connection %d within the cap not answered", i+1)
		}
		held = append(held, c)
	}
	if get(dial("127.0.0.1")) {
		t.Fatal("a fourth connection from the same client was answered: no per-client cap")
	}
	// Another address of the loopback network is another client (where
	// the system lets a socket bind to one: Linux does).
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	if other, err := d.Dial("tcp", addr); err != nil {
		t.Logf("no second loopback address to test another client from: %v", err)
	} else {
		defer other.Close()
		if !get(other) {
			t.Error("another client was refused")
		}
	}
	held[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for !get(dial("127.0.0.1")) {
		if time.Now().After(deadline) {
			t.Fatal("a slot freed by closing a connection was never given back")
		}
		time.Sleep(20 * time.Millisecond)
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
