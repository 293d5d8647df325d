// Package probe measures whether a service's API host answers, and how fast.
// The generator probes every service each cycle; the thin server probes one
// catalog service for /check. Both use this package, so the server links
// neither the feed readers nor the site renderer.
package probe

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/aistatus/aistatus/api"
)

// drainBytes is how much of a probe's response body is read before the
// connection is closed, so that small bodies let the connection be reused.
const drainBytes = 64 << 10

// Probe requests url and measures the time until the response headers
// arrive. Any HTTP answer below 500, 401/403/404 included, means the host is
// alive: the probe sends no credentials, so an error status is the expected
// reply of a healthy API. A 5xx, a timeout, a refused connection and DNS or
// TLS failures fail. A failure is data (State "failed" with the reason), not
// a Go error.
//
// Latency is measured on the monotonic wall clock, not on any injected
// clock: it is a measurement, not a date.
//
// client is the program's outbound client (outbound.NewClient), the
// transport, User-Agent and dial guard of every other request; only its
// redirect policy is set aside.
func Probe(ctx context.Context, client *http.Client, url string) api.ProbeSource {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return failedRequest(err, url)
	}
	// A redirect is an answer too: the probe measures the first one and does
	// not follow it (a redirect loop must not count as a dead host).
	noFollow := *client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	start := time.Now()
	resp, err := noFollow.Do(req)
	if err != nil {
		return failedRequest(err, url)
	}
	latency := time.Since(start)
	io.Copy(io.Discard, io.LimitReader(resp.Body, drainBytes))
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return api.ProbeSource{State: api.ProbeFailed, HTTPStatus: resp.StatusCode, Error: "HTTP " + http.StatusText(resp.StatusCode)}
	}
	ms := float64(latency.Microseconds()) / 1000
	return api.ProbeSource{State: api.ProbeOK, LatencyMs: &ms, HTTPStatus: resp.StatusCode}
}

// failedRequest is a failure of the request to rawURL, its error naming
// the URL without userinfo, query or fragment. The error is published (a
// build's sources.json, /check's evidence), and a probe URL is the
// catalog's: a replica's is its origin's, whose query may carry a token or
// text meant for whoever reads the evidence. The host and path say which
// probe failed.
func failedRequest(err error, rawURL string) api.ProbeSource {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		ue.URL = bareURL(rawURL)
	}
	return failed(err.Error())
}

// bareURL is rawURL without userinfo, query or fragment.
func bareURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(a URL that does not parse)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

func failed(reason string) api.ProbeSource {
	return api.ProbeSource{State: api.ProbeFailed, Error: reason}
}
