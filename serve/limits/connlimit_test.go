package limits

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
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
// trusted proxies counted only in the total, a slot given back (once)
// when a connection closes, and at the total cap an idle connection of the
// heaviest client closed to admit a lighter one.
func TestConnLimitListener(t *testing.T) {
	t.Parallel()
	type step struct {
		// addr: a new connection from addr; "close N" closes the N-th
		// admitted, "idle N" and "active N" report it so (ConnState).
		addr  string
		admit bool
	}
	tests := []struct {
		name             string
		perClient, total int
		steps            []step
		evicted          []int // the admitted the listener closed
	}{
		{"per client", 2, 100, []step{
			{"192.0.2.1:1", true}, {"192.0.2.1:2", true}, {"192.0.2.1:3", false},
			{"192.0.2.2:1", true}, {"close 0", true}, {"close 0", true}, {"192.0.2.1:4", true}, {"192.0.2.1:5", false},
		}, nil},
		{"IPv6 by /64", 2, 100, []step{
			{"[2001:db8::1]:1", true}, {"[2001:db8::2]:1", true}, {"[2001:db8::ffff:1]:1", false},
			{"[2001:db8:0:1::1]:1", true},
		}, nil},
		{"IPv4-mapped is IPv4", 1, 100, []step{{"192.0.2.9:1", true}, {"[::ffff:192.0.2.9]:2", false}}, nil},
		{"total", 100, 3, []step{
			{"192.0.2.1:1", true}, {"192.0.2.2:1", true}, {"198.51.100.1:1", true}, {"192.0.2.3:1", false},
			{"close 1", true}, {"192.0.2.3:1", true},
		}, nil},
		{"trusted proxy", 1, 4, []step{
			{"10.0.0.1:1", true}, {"10.0.0.1:2", true}, {"10.0.0.1:3", true}, {"192.0.2.1:1", true}, {"10.0.0.1:4", false},
		}, nil},
		{"at the total, an idle connection of the heaviest gives way", 10, 4, []step{
			{"192.0.2.1:1", true}, {"192.0.2.1:2", true}, {"192.0.2.1:3", true}, {"192.0.2.2:1", true},
			{"idle 3", true}, {"idle 1", true}, {"192.0.2.3:1", true}, {"192.0.2.4:1", false},
		}, []int{1}},
		{"not a busy one", 10, 4, []step{
			{"192.0.2.1:1", true}, {"192.0.2.1:2", true}, {"192.0.2.1:3", true}, {"192.0.2.2:1", true},
			{"idle 0", true}, {"active 0", true}, {"192.0.2.3:1", false},
		}, nil},
		{"not for a client as heavy once admitted", 10, 3, []step{
			{"192.0.2.1:1", true}, {"192.0.2.1:2", true}, {"192.0.2.2:1", true},
			{"idle 0", true}, {"192.0.2.2:2", false}, {"192.0.2.1:3", false},
		}, nil},
		{"from the heaviest once others closed", 10, 5, []step{
			{"192.0.2.1:1", true}, {"192.0.2.1:2", true}, {"192.0.2.1:3", true}, {"192.0.2.2:1", true}, {"192.0.2.2:2", true},
			{"close 0", true}, {"close 1", true}, {"192.0.2.3:1", true}, {"192.0.2.3:2", true},
			{"idle 2", true}, {"idle 4", true}, {"192.0.2.4:1", true},
		}, []int{4}},
		{"a closed victim gives its slot back once", 10, 3, []step{
			{"192.0.2.1:1", true}, {"192.0.2.1:2", true}, {"192.0.2.2:1", true},
			{"idle 0", true}, {"192.0.2.3:1", true}, {"close 0", true}, {"idle 0", true}, {"192.0.2.4:1", false},
		}, []int{0}},
		{"a trusted proxy's connections are never closed", 10, 3, []step{
			{"10.0.0.1:1", true}, {"10.0.0.1:2", true}, {"192.0.2.1:1", true},
			{"idle 0", true}, {"idle 1", true}, {"192.0.2.2:1", false},
		}, nil},
		{"a trusted proxy's newcomer is admitted", 10, 2, []step{
			{"192.0.2.1:1", true}, {"192.0.2.1:2", true}, {"idle 1", true}, {"10.0.0.1:1", true},
		}, []int{1}},
	}
	trusted, _ := ParseTrustedProxies([]string{"10.0.0.0/8"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			inner := &fakeListener{conns: make(chan net.Conn, 1)}
			l := newListener(inner, tt.perClient, tt.total, trusted, zerolog.New(&logs), nil, func() {})
			var admitted []net.Conn
			var fakes []*fakeConn
			closed := map[int]bool{} // by the test, while open
			for i, s := range tt.steps {
				if verb, n, ok := strings.Cut(s.addr, " "); ok {
					var k int
					fmt.Sscan(n, &k)
					switch verb {
					case "close":
						if _, again := closed[k]; !again {
							closed[k] = !fakes[k].closed.Load()
						}
						admitted[k].Close()
					case "idle":
						l.ConnState(admitted[k], http.StateIdle)
					case "active":
						l.ConnState(admitted[k], http.StateActive)
					}
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
					admitted, fakes = append(admitted, c), append(fakes, fc)
				}
			}
			var evicted []int
			for k, fc := range fakes {
				if fc.closed.Load() && !closed[k] {
					evicted = append(evicted, k)
				}
			}
			if fmt.Sprint(evicted) != fmt.Sprint(tt.evicted) {
				t.Errorf("the listener closed connections %v, want %v", evicted, tt.evicted)
			}
			l.Close() // reports what it refused and closed
			if strings.Contains(tt.name, "per client") && !strings.Contains(logs.String(), `"reason":"per-client cap"`) {
				t.Errorf("refusal not logged: %q", logs.String())
			}
			if want := fmt.Sprintf(`"evicted":%d`, len(tt.evicted)); len(tt.evicted) > 0 && !strings.Contains(logs.String(), want) {
				t.Errorf("closing idle connections not logged with %s: %q", want, logs.String())
			}
		})
	}
}

// logLines is a log writer that hands each line to the test as written.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) { l <- string(p); return len(p), nil }

// TestConnLimitReports: refusals are counted per cap and logged at each
// tick, one line per cap that refused any, and what is left when the
// listener closes; nothing is logged between ticks, nor for a quiet
// interval.
func TestConnLimitReports(t *testing.T) {
	t.Parallel()
	type report struct {
		after []string // connections from these addresses, then a tick
		want  []string // the lines the tick logs, each by a part of it
	}
	tests := []struct {
		name             string
		perClient, total int
		reports          []report
		atClose          []string // the lines Close logs
	}{
		{"per-client refusals, reported at the tick", 1, 100, []report{
			{[]string{"192.0.2.1:1", "192.0.2.1:2", "192.0.2.1:3"}, []string{`"reason":"per-client cap","refused":2,"cap":1,"lastClient":"192.0.2.1"`}},
			{nil, nil},
			{[]string{"192.0.2.1:4"}, []string{`"reason":"per-client cap","refused":1`}},
		}, nil},
		{"total refusals, reported at the tick", 100, 2, []report{
			{[]string{"192.0.2.1:1", "192.0.2.2:1", "192.0.2.3:1", "192.0.2.4:1"}, []string{`"reason":"total cap","refused":2,"cap":2,"open":2`}},
		}, nil},
		{"both caps, reported apart", 1, 2, []report{
			{[]string{"192.0.2.1:1", "192.0.2.1:2", "192.0.2.2:1", "192.0.2.3:1", "192.0.2.1:3"},
				[]string{`"reason":"per-client cap","refused":2,"cap":1,"lastClient":"192.0.2.1"`, `"reason":"total cap","refused":1,"cap":2,"open":2`}},
		}, nil},
		{"what is left, reported at Close", 1, 100, []report{
			{[]string{"192.0.2.1:1", "192.0.2.1:2"}, []string{`"reason":"per-client cap","refused":1`}},
			{[]string{"192.0.2.1:3"}, nil}, // no tick: reported at Close
		}, []string{`"reason":"per-client cap","refused":1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs, tick := make(logLines, 100), make(chan time.Time)
			inner := &fakeListener{conns: make(chan net.Conn, 1)}
			l := newListener(inner, tt.perClient, tt.total, nil, zerolog.New(logs), tick, func() {})
			for i, r := range tt.reports {
				for _, addr := range r.after {
					inner.conns <- &fakeConn{addr: net.TCPAddrFromAddrPort(netip.MustParseAddrPort(addr))}
					l.Accept() // a refused one is closed; Accept then finds no more
				}
				select {
				case line := <-logs:
					t.Fatalf("report %d: logged between ticks: %s", i, line)
				default:
				}
				if i == len(tt.reports)-1 && tt.atClose != nil {
					break
				}
				tick <- time.Time{}
				for _, want := range r.want {
					if line := <-logs; !strings.Contains(line, want) {
						t.Errorf("report %d: logged %s, want a line with %s", i, line, want)
					}
				}
			}
			l.Close()
			for _, want := range tt.atClose {
				if line := <-logs; !strings.Contains(line, want) {
					t.Errorf("at Close: logged %s, want a line with %s", line, want)
				}
			}
			close(logs)
			for line := range logs {
				t.Errorf("logged more: %s", line)
			}
		})
	}
}
