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
	// closing ends the refusal reports; reported is closed once they have.
	closing, reported chan struct{}
	closeOnce         sync.Once

	mu    sync.Mutex
	open  map[netip.Addr]int // per client key; keys at zero are deleted
	count int
	// The connections refused since the last report, by the cap that
	// refused them: under a flood they are logged as one line per cap and
	// reportEvery, not one each.
	refusedPerClient, refusedTotal int
	lastRefusedClient              netip.Addr
}

// reportEvery is how often refused connections are logged.
const reportEvery = 10 * time.Second

// NewListener caps ln's connections: perClient per client, total in all,
// trusted proxies counting only towards the total. What it refuses is
// logged every reportEvery, and when it is closed.
func NewListener(ln net.Listener, perClient, total int, trusted []netip.Prefix, log zerolog.Logger) *connLimitListener {
	t := time.NewTicker(reportEvery)
	return newListener(ln, perClient, total, trusted, log, t.C, t.Stop)
}

// newListener is NewListener reporting at each tick; stop is called when
// the reports end.
func newListener(ln net.Listener, perClient, total int, trusted []netip.Prefix, log zerolog.Logger,
	tick <-chan time.Time, stop func()) *connLimitListener {
	l := &connLimitListener{Listener: ln, perClient: perClient, total: total, trusted: trusted,
		log: log, open: map[netip.Addr]int{}, closing: make(chan struct{}), reported: make(chan struct{})}
	go l.report(tick, stop)
	return l
}

// Close stops the reports, logs what was refused since the last one and
// closes the listener.
func (l *connLimitListener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closing)
		<-l.reported
		l.logRefusals()
	})
	return l.Listener.Close()
}

// report logs the refusals at each tick until the listener is closed.
func (l *connLimitListener) report(tick <-chan time.Time, stop func()) {
	defer close(l.reported)
	defer stop()
	for {
		select {
		case <-l.closing:
			return
		case <-tick:
			l.logRefusals()
		}
	}
}

// logRefusals logs the connections refused since the last time, one line
// per cap that refused any, and starts counting again.
func (l *connLimitListener) logRefusals() {
	l.mu.Lock()
	perClient, total, client, open := l.refusedPerClient, l.refusedTotal, l.lastRefusedClient, l.count
	l.refusedPerClient, l.refusedTotal = 0, 0
	l.mu.Unlock()
	if perClient > 0 {
		l.log.Warn().Str("reason", "per-client cap").Int("refused", perClient).Int("cap", l.perClient).
			Str("lastClient", client.String()).Msg("connections refused: over the connection cap")
	}
	if total > 0 {
		l.log.Warn().Str("reason", "total cap").Int("refused", total).Int("cap", l.total).Int("open", open).
			Msg("connections refused: over the connection cap")
	}
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

// admit takes a slot for a connection of key, or counts its refusal: by
// the per-client cap when the client is at it (whatever the total), else
// by the total cap.
func (l *connLimitListener) admit(key netip.Addr, perClient bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case perClient && l.open[key] >= l.perClient:
		l.refusedPerClient++
		l.lastRefusedClient = key
		return false
	case l.count >= l.total:
		l.refusedTotal++
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
