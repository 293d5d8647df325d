package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// dialGuard holds the hosts allowed on internal addresses, as host:port.
// It is built once and only read afterwards.
type dialGuard struct{ hosts map[string]bool }

func newDialGuard(urls []string) dialGuard {
	g := dialGuard{hosts: map[string]bool{}}
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			g.hosts[hostPort(u)] = true
		}
	}
	// An operator's proxy is dialled in place of the target: allow it, as it
	// is configuration, not outside input (the proxy then resolves the
	// target, which is why CheckRedirect checks literal addresses itself).
	for _, scheme := range []string{"http", "https"} {
		req := &http.Request{URL: &url.URL{Scheme: scheme, Host: "aistatus.invalid"}}
		if p, err := http.ProxyFromEnvironment(req); err == nil && p != nil {
			g.hosts[hostPort(p)] = true
		}
	}
	return g
}

// allowed reports whether addr (host:port, as the transport dials it) is an
// allowed host.
func (g dialGuard) allowed(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return g.hosts[net.JoinHostPort(strings.ToLower(host), port)]
}

// hostPort is u's host, lower-cased, and port, defaulted from the scheme.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// errInternalAddress marks a dial refused by refuseInternal.
var errInternalAddress = errors.New("internal address not allowed")

// refuseInternal is the dialer's Control hook: it runs on each resolved
// address before connecting, so it sees what a host name really resolves to.
func refuseInternal(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %s: %w", address, err)
	}
	if why := internal(ap.Addr()); why != "" {
		return fmt.Errorf("refusing to connect to %s (%s): %w", address, why, errInternalAddress)
	}
	return nil
}

// Address ranges that are internal but not named by netip's predicates.
var (
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")     // RFC 791 "this network"
	sharedCGNAT = netip.MustParsePrefix("100.64.0.0/10") // RFC 6598, some clouds' metadata
	broadcast   = netip.MustParseAddr("255.255.255.255")
)

// internal names the kind of internal address ip is, or "" for a public one.
func internal(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsUnspecified(), thisNetwork.Contains(ip):
		return "unspecified"
	case ip.IsMulticast(), ip == broadcast:
		return "multicast or broadcast"
	case sharedCGNAT.Contains(ip):
		return "shared (carrier-grade NAT)"
	}
	return ""
}
