package build

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// UserAgent names the project to the servers it probes.
const UserAgent = "aistatus/1 (+https://github.com/aistatus/aistatus; public status API)"

// maxRedirects bounds how many redirects a feed or probe request follows;
// the next redirect after them fails the request.
const maxRedirects = 3

// NewClient returns the one HTTP client the generator shares across all
// services: bounded dials and handshakes, a few redirects at most, gzip
// accepted (the transport's default), and a User-Agent naming the project.
// The overall deadline of each request comes from its context.
func NewClient() *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
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
			// via holds the requests already sent: the first and one per
			// redirect followed so far.
			if len(via) > maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return nil
		},
	}
}

// userAgent sets the User-Agent header on every request.
type userAgent struct{ next http.RoundTripper }

func (u userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("User-Agent") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("User-Agent", UserAgent)
	}
	return u.next.RoundTrip(r)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transport through the wrapper.
func (u userAgent) CloseIdleConnections() {
	if c, ok := u.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
