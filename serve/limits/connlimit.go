package limits

import (
	"net"
	"net/http"
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
//
// The per-client cap alone leaves the total to a few clients: 157
// addresses of 64 connections each fill 10 000. So at the total cap a new
// connection is not refused while one of the heaviest clients holds an
// idle keep-alive connection and at least two more connections than the
// newcomer's client would: that idle connection is closed instead, and the
// newcomer admitted. HTTP lets a server close an idle connection at any
// time: a request that crosses the close is retried by the client, as when
// an idle timeout closes one, and net/http's own Shutdown closes idle
// connections alike. The server's ConnState hook tells the listener which
// connections are idle. Only idle ones are closed: a connection serving a
// request is never cut, and a new one that sends nothing is closed by the
// server's header timeout anyway. Clients are indexed by how many
// connections they hold, so finding a victim costs the same however many
// clients there are.
type connLimitListener struct {
	net.Listener
	perClient, total int
	trusted          []netip.Prefix
	log              zerolog.Logger
	// closing ends the refusal reports; reported is closed once they have.
	closing, reported chan struct{}
	closeOnce         sync.Once

	mu      sync.Mutex
	clients map[netip.Addr]*client // by key; a client holding none is deleted
	count   int
	// holding counts the clients by how many connections they hold, and
	// heaviest is the most any holds; idleAt[n] are the clients holding n
	// of which at least one is idle (an empty or missing map: none).
	holding  map[int]int
	heaviest int
	idleAt   map[int]map[netip.Addr]*client
	// The connections refused since the last report, by the cap that
	// refused them, and the idle ones closed to admit others: under a flood
	// they are logged as one line per cap and reportEvery, not one each.
	refusedPerClient, refusedTotal, evicted int
	lastRefusedClient                       netip.Addr
}

// client is what the listener knows of one client's connections.
type client struct {
	key  netip.Addr
	open int
	idle map[*limitedConn]struct{} // held idle by the server between requests
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
		log: log, clients: map[netip.Addr]*client{}, holding: map[int]int{}, idleAt: map[int]map[netip.Addr]*client{},
		closing: make(chan struct{}), reported: make(chan struct{})}
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
	perClient, total, evicted := l.refusedPerClient, l.refusedTotal, l.evicted
	client, open := l.lastRefusedClient, l.count
	l.refusedPerClient, l.refusedTotal, l.evicted = 0, 0, 0
	l.mu.Unlock()
	if perClient > 0 {
		l.log.Warn().Str("reason", "per-client cap").Int("refused", perClient).Int("cap", l.perClient).
			Str("lastClient", client.String()).Msg("connections refused: over the connection cap")
	}
	if total > 0 {
		l.log.Warn().Str("reason", "total cap").Int("refused", total).Int("cap", l.total).Int("open", open).
			Msg("connections refused: over the connection cap")
	}
	if evicted > 0 {
		l.log.Warn().Str("reason", "total cap").Int("evicted", evicted).Int("cap", l.total).
			Msg("idle connections of the heaviest clients closed to admit others at the connection cap")
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
		lc := &limitedConn{Conn: c, key: key, perClient: perClient, l: l}
		ok, victim := l.admit(lc)
		if victim != nil {
			victim.Conn.Close() // its slot is lc's already
		}
		if ok {
			return lc, nil
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

// admit takes a slot for lc, or counts its refusal: by the per-client cap
// when its client is at it (whatever the total), else by the total cap.
// At the total cap it may take the slot of an idle connection instead,
// returned as victim for the caller to close; its slot is already lc's.
func (l *connLimitListener) admit(lc *limitedConn) (ok bool, victim *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.clients[lc.key]
	mine := 0
	if lc.perClient && c != nil {
		mine = c.open
	}
	switch {
	case lc.perClient && mine >= l.perClient:
		l.refusedPerClient++
		l.lastRefusedClient = lc.key
		return false, nil
	case l.count >= l.total:
		if victim = l.idleOfHeaviest(mine); victim == nil || !victim.closed.CompareAndSwap(false, true) {
			// A victim whose Close won that race is giving its slot back,
			// but not before this refusal.
			l.refusedTotal++
			return false, nil
		}
		l.releaseLocked(victim)
		l.evicted++
	}
	l.count++
	if lc.perClient {
		if c == nil {
			c = &client{key: lc.key, idle: map[*limitedConn]struct{}{}}
			l.clients[lc.key] = c
		}
		l.unindex(c)
		c.open++
		l.index(c)
	}
	return true, victim
}

// idleOfHeaviest returns an idle connection of a client holding the most
// connections, when it holds at least two more than a newcomer holding
// mine (so that neither ends with fewer than the other: closing one of a
// client's connections to admit another of its own, or one of a client as
// heavy, would only churn), or nil.
func (l *connLimitListener) idleOfHeaviest(mine int) *limitedConn {
	if l.heaviest < mine+2 {
		return nil
	}
	for _, c := range l.idleAt[l.heaviest] {
		for lc := range c.idle {
			return lc
		}
	}
	return nil
}

// ConnState is the server's ConnState hook: it tells the listener which of
// its connections are idle between requests, the ones it may close to
// admit another at the total cap.
func (l *connLimitListener) ConnState(nc net.Conn, state http.ConnState) {
	lc, ok := nc.(*limitedConn)
	if !ok || !lc.perClient || lc.l != l {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.clients[lc.key]
	if c == nil || lc.closed.Load() {
		return // released: neither counted nor closable any more
	}
	// Twice a request on a kept-alive connection, so only what changes is
	// touched: how many connections c holds does not (holding and heaviest
	// stay), only whether lc is idle and so whether c is in idleAt.
	if state == http.StateIdle {
		c.idle[lc] = struct{}{}
		at := l.idleAt[c.open]
		if at == nil {
			at = map[netip.Addr]*client{}
			l.idleAt[c.open] = at
		}
		at[c.key] = c
		return
	}
	if _, idle := c.idle[lc]; idle {
		delete(c.idle, lc)
		if len(c.idle) == 0 {
			delete(l.idleAt[c.open], c.key)
		}
	}
}

// release gives lc's slot back.
func (l *connLimitListener) release(lc *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(lc)
}

func (l *connLimitListener) releaseLocked(lc *limitedConn) {
	l.count--
	c := l.clients[lc.key]
	if !lc.perClient || c == nil {
		return
	}
	l.unindex(c)
	c.open--
	delete(c.idle, lc)
	if c.open <= 0 {
		delete(l.clients, lc.key)
	}
	l.index(c)
}

// unindex takes c out of holding and idleAt, before its counts change;
// index puts it back after, and brings heaviest up or down to date.
func (l *connLimitListener) unindex(c *client) {
	if l.holding[c.open]--; l.holding[c.open] <= 0 {
		delete(l.holding, c.open)
	}
	// An emptied idleAt[n] is kept for the next client idle at n: there
	// are at most as many as the per-client cap, and a map made and dropped
	// on every request was most of ConnState's cost.
	delete(l.idleAt[c.open], c.key)
}

func (l *connLimitListener) index(c *client) {
	if c.open > 0 {
		l.holding[c.open]++
		if len(c.idle) > 0 {
			if l.idleAt[c.open] == nil {
				l.idleAt[c.open] = map[netip.Addr]*client{}
			}
			l.idleAt[c.open][c.key] = c
		}
	}
	l.heaviest = max(l.heaviest, c.open)
	for l.heaviest > 0 && l.holding[l.heaviest] == 0 {
		l.heaviest--
	}
}

// limitedConn gives its slot back when closed, once however often Close
// is called (or when the listener closed it to admit another).
type limitedConn struct {
	net.Conn
	key       netip.Addr // its client's
	perClient bool       // whether the per-client cap applies (see key)
	l         *connLimitListener
	closed    atomic.Bool
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	if c.closed.CompareAndSwap(false, true) {
		c.l.release(c)
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
