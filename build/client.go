package build

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/aistatus/aistatus/probe"
	"github.com/aistatus/aistatus/snapshot"
)

// maxRedirects bounds how many redirects a feed or probe request follows;
// the next redirect after them fails the request.
const maxRedirects = 3

// ClientOptions configure NewClient.
type ClientOptions struct {
	// AllowedURLs name the hosts (scheme, host and port; the path is
	// ignored) that may be reached even though they are on a loopback,
	// private, link-local or otherwise internal address: the catalog's own
	// feed and probe hosts (CatalogURLs). Every other host is refused on such
	// an address, whoever names it — a feed's redirect above all.
	AllowedURLs []string
}

// CatalogURLs lists every feed and probe URL of cat: the hosts the generator
// is told to read, and so the ones it may reach on an internal address
// (tests point them at loopback servers; a private mirror may live on one).
func CatalogURLs(cat snapshot.Catalog) []string {
	var urls []string
	for _, svc := range cat.Services {
		for _, u := range []string{svc.Feed.URL, svc.Feed.IncidentsURL, svc.Feed.ComponentsURL, svc.ProbeURL} {
			if u != "" {
				urls = append(urls, u)
			}
		}
	}
	return urls
}

// NewClient returns the one HTTP client the generator shares across all
// services: bounded dials and handshakes, a few redirects at most, gzip
// accepted (the transport's default), and a User-Agent naming the project.
// The overall deadline of each request comes from its context.
//
// Feeds are outside input, and a redirect is the feed telling the generator
// where to connect next: followed blindly, it would make the generator
// request internal addresses (cloud metadata at 169.254.169.254, an admin
// port on loopback) for anyone who controls a status page or its DNS. So
// the client never follows a redirect from https to http, and never
// connects to an internal address unless opts allows that host. The address
// check runs on the resolved IP at dial time, so a public-looking name that
// resolves to an internal address is refused too.
func NewClient(opts ClientOptions) *http.Client {
	g := newDialGuard(opts.AllowedURLs)
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	checked := *dialer
	checked.Control = refuseInternal
	// The shared transport, with the dial guarded.
	transport := probe.NewTransport()
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if g.allowed(addr) {
			return dialer.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
	return &http.Client{
		Transport: probe.WithUserAgent(transport),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			// via holds the requests already sent: the first and one per
			// redirect followed so far.
			if len(via) > maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			prev := via[len(via)-1].URL
			if prev.Scheme == "https" && req.URL.Scheme != "https" {
				return fmt.Errorf("refusing a redirect from https to %s (%s)", req.URL.Scheme, req.URL.Redacted())
			}
			// A literal internal address is refused here already, with the
			// clearer error, and also when a proxy does the dialling.
			if ip, err := netip.ParseAddr(req.URL.Hostname()); err == nil && !g.allowed(hostPort(req.URL)) {
				if why := internal(ip); why != "" {
					return fmt.Errorf("refusing a redirect to %s: %s address not in the catalog", req.URL.Redacted(), why)
				}
			}
			return nil
		},
	}
}

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
var errInternalAddress = errors.New("internal address not in the catalog")

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
