// Package outbound builds the HTTP clients every request aistatus sends goes
// through: feed reads and probes, /check's live probes, webhooks, a
// replica's fetches from its origin and the MCP tools' calls to a remote
// instance. It owns their transport, the one User-Agent, the redirect policy
// and the dial guard that keeps outside input from steering a request to an
// internal address.
package outbound

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/aistatus/aistatus/catalog"
)

// UserAgent names the project to every server it sends a request to.
const UserAgent = "aistatus/1 (+https://github.com/aistatus/aistatus; public status API)"

// maxRedirects bounds how many redirects a request follows; the next
// redirect after them fails the request.
const maxRedirects = 3

// Options configure NewClient.
type Options struct {
	// AllowedURLs name the hosts (scheme, host and port; the path is
	// ignored) that may be reached even though they are on a loopback,
	// private, link-local or otherwise internal address: the ones the
	// operator configured (the catalog's feed and probe hosts, see
	// CatalogURLs; a webhook receiver; a replica's origin). Every other host
	// is refused on such an address, whoever names it — a redirect above all.
	AllowedURLs []string
	// NoRedirects makes the client follow no redirect at all: a 3xx answer
	// is returned to the caller as it came, Location included, and nothing
	// is sent where it points. For requests that must reach the URL they
	// were given and no other, such as a signed webhook, whose body a 307
	// would re-post elsewhere and whose POST a 302 would turn into a GET.
	NoRedirects bool
}

// CatalogURLs lists every feed, probe (a surface's too), completion and model gateway URL of
// cat, and every enabled maker's deprecation page: the hosts the program is told to read and probe, and so the ones it
// may reach on an internal address (tests point them at loopback servers; a
// private mirror may live on one).
func CatalogURLs(cat catalog.Catalog) []string {
	var urls []string
	for _, svc := range cat.Services {
		for _, u := range []string{svc.Feed.URL, svc.Feed.IncidentsURL, svc.Feed.ComponentsURL, svc.ProbeURL} {
			if u != "" {
				urls = append(urls, u)
			}
		}
		if svc.Completion != nil {
			urls = append(urls, svc.Completion.URL)
		}
		for _, sf := range svc.Surfaces {
			if sf.ProbeURL != "" {
				urls = append(urls, sf.ProbeURL)
			}
		}
	}
	for _, g := range cat.Models.Gateways {
		if g.Enabled {
			urls = append(urls, strings.ReplaceAll(g.URL, catalog.ModelParam, "author/model"))
			if g.ListURL != "" {
				urls = append(urls, g.ListURL)
			}
		}
	}
	for _, p := range cat.Models.Lifecycle {
		if p.Enabled {
			urls = append(urls, p.URL)
		}
	}
	return urls
}

// NewClient returns a client for outbound requests: bounded dials,
// handshakes and response headers, a few idle connections per host, gzip
// accepted (the transport's default), a few redirects at most (none with
// opts.NoRedirects), and a User-Agent naming the project. The overall
// deadline of each request comes from its context.
//
// Feeds and the hosts that answer are outside input, and a redirect is a
// host telling the program where to connect next: followed blindly, it
// would make it request internal addresses (cloud metadata at
// 169.254.169.254, an admin port on loopback) for anyone who controls a
// status page or its DNS. So the client never follows a redirect from https
// to http, and never connects to an internal address unless opts allows
// that host. The address check runs on the resolved IP at dial time, so a
// public-looking name that resolves to an internal address is refused too.
func NewClient(opts Options) *http.Client {
	g := newDialGuard(opts.AllowedURLs)
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	checked := *dialer
	checked.Control = refuseInternal
	transport := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if g.allowed(addr) {
				return dialer.DialContext(ctx, network, addr)
			}
			return checked.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: userAgent{transport},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if opts.NoRedirects {
				return http.ErrUseLastResponse
			}
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
					return fmt.Errorf("refusing a redirect to %s: %s address not allowed", req.URL.Redacted(), why)
				}
			}
			return nil
		},
	}
}

// userAgent sets the project's User-Agent on every request that has none.
type userAgent struct{ next http.RoundTripper }

func (u userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("User-Agent") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("User-Agent", UserAgent)
	}
	return u.next.RoundTrip(r)
}

// Unwrap returns the wrapped transport (to configure it, in tests).
func (u userAgent) Unwrap() http.RoundTripper { return u.next }

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transport through the wrapper.
func (u userAgent) CloseIdleConnections() {
	if c, ok := u.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
