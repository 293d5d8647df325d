package limits

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ipMaxForwardedHops bounds the X-Forwarded-For entries examined per
// request, so a long forged header costs no more than a short one.
const ipMaxForwardedHops = 32

// ClientAddr returns the address a request is rate-limited by.
//
// It is the TCP peer (r.RemoteAddr), unless the peer is inside one of trusted
// (configured reverse proxies or CDN), in which case X-Forwarded-For is
// walked from the right, skipping trusted addresses, and the first untrusted
// one is the client. Entries left of it were supplied by the client and can
// be forged, so they are never used. If every hop is trusted, the leftmost is
// used. A malformed entry stops the walk and the last trusted hop before it
// is used. Multiple X-Forwarded-For headers are treated as one comma-joined
// list, and at most the last 32 entries are examined.
//
// Entries may carry spaces, IPv6 in brackets and ports ("1.2.3.4:5678",
// "[2001:db8::1]:443"). IPv4-mapped IPv6 addresses are unmapped. A
// RemoteAddr that cannot be parsed yields the zero netip.Addr{}, which
// callers treat as one shared key.
func ClientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	client, ok := peerAddr(r)
	if !ok {
		return netip.Addr{}
	}
	if !ipTrusted(client, trusted) {
		return client
	}

	// Later headers were appended by later proxies, so walk them from the
	// last one backwards, and each one from its right end.
	values := r.Header.Values("X-Forwarded-For")
	seen := 0
	for i := len(values) - 1; i >= 0; i-- {
		v := values[i]
		for {
			if seen == ipMaxForwardedHops {
				return client
			}
			seen++
			entry := v
			comma := strings.LastIndexByte(v, ',')
			if comma >= 0 {
				entry, v = v[comma+1:], v[:comma]
			}
			a, ok := ipParseHost(strings.TrimSpace(entry))
			if !ok {
				return client // the last trusted hop
			}
			client = a
			if !ipTrusted(a, trusted) {
				return a
			}
			if comma < 0 {
				break
			}
		}
	}
	return client
}

// peerKey is the context key of a connection's TCP peer.
type peerKey struct{}

// PeerContext is the server's ConnContext: it keeps the peer's address,
// taken once per connection from the socket's own, so that the requests of
// a keep-alive connection need not parse RemoteAddr each (the access log
// and the rate limit both start from it).
func PeerContext(ctx context.Context, c net.Conn) context.Context {
	if a, ok := connPeer(c); ok {
		return context.WithValue(ctx, peerKey{}, a)
	}
	return ctx
}

// connPeer is a connection's peer address: a TCP socket's own, without a
// round trip through its string, or else RemoteAddr's string parsed. The
// connection caps and PeerContext both start from it.
func connPeer(c net.Conn) (netip.Addr, bool) {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		ap := a.AddrPort()
		return ap.Addr().Unmap(), ap.Addr().IsValid()
	}
	return ipParseHost(c.RemoteAddr().String())
}

// peerAddr is the TCP peer of r: the one kept for its connection, or
// RemoteAddr parsed (a request not from a connection the server accepted).
func peerAddr(r *http.Request) (netip.Addr, bool) {
	if a, ok := r.Context().Value(peerKey{}).(netip.Addr); ok {
		return a, true
	}
	return ipParseHost(r.RemoteAddr)
}

// LimitKey groups clients for limiting: IPv6 addresses by their /64 prefix,
// because a single household or server is routinely given a whole /64 and
// could otherwise rotate through addresses to get fresh allowances. IPv4
// addresses (including IPv4-mapped IPv6) are returned as is. It returns the
// masked address, without any zone.
func LimitKey(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if !a.Is6() {
		return a // IPv4 or the zero Addr
	}
	p, _ := a.Prefix(64) // cannot fail: 64 is within an IPv6 address
	return p.Addr()
}

// ParseTrustedProxies parses CIDR prefixes or single addresses
// ("10.0.0.0/8", "127.0.0.1", "::1") into prefixes for ClientAddr. Blank
// entries are skipped. Host bits in a prefix are cleared, and IPv4-mapped
// IPv6 entries are converted to IPv4 because ClientAddr unmaps addresses
// before matching them.
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, raw := range list {
		s := strings.TrimSpace(raw)
		if s == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(s, "/") {
			var err error
			if p, err = netip.ParsePrefix(s); err != nil {
				return nil, fmt.Errorf("trusted proxy %q: not a valid CIDR prefix: %w", raw, err)
			}
		} else {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: not a valid IP address or CIDR prefix: %w", raw, err)
			}
			if a.Zone() != "" {
				return nil, fmt.Errorf("trusted proxy %q: IPv6 zones are not supported", raw)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// ipParseHost parses an address with an optional port: "1.2.3.4",
// "1.2.3.4:80", "2001:db8::1", "[2001:db8::1]" or "[2001:db8::1]:443".
// IPv4-mapped IPv6 addresses are unmapped so that a client has one key
// whichever way its proxy or listener spells its address.
func ipParseHost(s string) (netip.Addr, bool) {
	// An address with a port (a RemoteAddr, always) is "1.2.3.4:5678" or
	// "[::1]:5678": parsed as one first, so the common case costs no failed
	// parse (and no error allocated).
	if strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1 {
		if ap, err := netip.ParseAddrPort(s); err == nil {
			return ap.Addr().Unmap(), true
		}
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil && a.Is6() {
			return a.Unmap(), true
		}
	}
	return netip.Addr{}, false
}

// ipTrusted reports whether a is inside one of trusted.
func ipTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.WithZone("") // Prefix.Contains never matches a zoned address
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
