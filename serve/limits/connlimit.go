package limits

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// The connection caps' defaults (Options.MaxConnsPerClient, MaxConns).
const (
	// DefaultMaxConnsPerClient is generous for a browser (6 per host), a
	// bot pool or a NAT, and small next to the file descriptors a single
	// client could otherwise hold open (22 000 idle connections exhausted
	// them).
	DefaultMaxConnsPerClient = 64
	// DefaultMaxConns bounds all connections together; the server lowers it
	// to what the process can afford (Affordable).
	DefaultMaxConns = 10_000
)

// Affordable lowers a cap on all connections to three quarters of the
// process's file-descriptor limit when that is smaller, leaving descriptors
// for snapshot files and live probes.
func Affordable(maxConns int) int {
	if fds := fdLimit(); fds > 0 && fds*3/4 < uint64(maxConns) {
		return max(1, int(fds*3/4))
	}
	return maxConns
}

// connLimitListener caps concurrent connections per client and in all. A
// connection over a cap is closed as soon as it is accepted, before a byte
// is read: a client holding its share of idle connections cannot starve
// others, nor the process of file descriptors. The client is the TCP peer,
// IPv6 grouped by /64 as the rate limit groups it (LimitKey); a trusted
// proxy carries many clients and counts only towards the total.
type connLimitListener struct {
	net.Listener
	perClient, total int
	trusted          []netip.Prefix
	log              zerolog.Logger
	now              func() time.Time

	mu    sync.Mutex
	open  map[netip.Addr]int // per client key; keys at zero are deleted
	count int
	// refused counts the connections refused since lastReport: under a
	// flood they are logged as one line per reportEvery, not one each.
	refused    int
	lastReport time.Time
}

// reportEvery is how often refused connections are logged, at most.
const reportEvery = 10 * time.Second

func NewListener(ln net.Listener, perClient, total int, trusted []netip.Prefix, log zerolog.Logger, now func() time.Time) *connLimitListener {
	return &connLimitListener{Listener: ln, perClient: perClient, total: total, trusted: trusted,
		log: log, now: now, open: map[netip.Addr]int{}}
}

// Accept returns the next connection within the caps, closing those over.
func (l *connLimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key, perClient := l.key(c)
		if l.admit(key, perClient) {
			return &limitedConn{Conn: c, release: func() { l.release(key, perClient) }}, nil
		}
		c.Close()
	}
}

// key returns the client key of a connection and whether the per-client
// cap applies to it (not for a trusted proxy or a peer that is not IP).
func (l *connLimitListener) key(c net.Conn) (netip.Addr, bool) {
	a, ok := connPeer(c)
	if !ok || ipTrusted(a, l.trusted) {
		return netip.Addr{}, false
	}
	return LimitKey(a), true
}

func (l *connLimitListener) admit(key netip.Addr, perClient bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count >= l.total || (perClient && l.open[key] >= l.perClient) {
		l.refused++
		if now := l.now(); now.Sub(l.lastReport) >= reportEvery {
			ev := l.log.Warn().Int("refused", l.refused).Int("open", l.count)
			if l.count >= l.total {
				ev = ev.Str("reason", "total cap")
			} else {
				ev = ev.Str("reason", "per-client cap").Str("lastClient", key.String())
			}
			ev.Msg("connections refused: over the connection cap")
			l.refused, l.lastReport = 0, now
		}
		return false
	}
	l.count++
	if perClient {
		l.open[key]++
	}
	return true
}

func (l *connLimitListener) release(key netip.Addr, perClient bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count--
	if perClient {
		if l.open[key]--; l.open[key] <= 0 {
			delete(l.open, key)
		}
	}
}

// limitedConn gives its slot back when closed, once however often Close
// is called.
type limitedConn struct {
	net.Conn
	closed  atomic.Bool
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	if c.closed.CompareAndSwap(false, true) {
		c.release()
	}
	return err
}

// CloseWrite keeps the half-close net/http uses to let a client read an
// error answer before the connection goes.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
