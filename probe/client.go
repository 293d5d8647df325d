package probe

import (
	"net"
	"net/http"
	"time"
)

// NewTransport returns the transport every outbound request of aistatus
// uses: bounded dials, handshakes and response headers, a few idle
// connections per host, gzip accepted (the transport's default).
func NewTransport() *http.Transport {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
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
}

// WithUserAgent sets the project's User-Agent on every request that has none.
func WithUserAgent(next http.RoundTripper) http.RoundTripper { return userAgent{next} }

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
