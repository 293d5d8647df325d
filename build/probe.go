package build

import (
	"context"
	"io"
	"net/http"
	"time"
)

// ProbeResult is the outcome of one latency probe. A failure is data, not an
// error: Err says what went wrong.
type ProbeResult struct {
	OK         bool
	LatencyMs  float64
	HTTPStatus int
	Err        string
}

// probeDrainBytes is how much of a probe's response body is read before the
// connection is closed, so that small bodies let the connection be reused.
const probeDrainBytes = 64 << 10

// Probe requests url and measures the time until the response headers arrive.
// Any HTTP answer, 401/403/404 and 5xx included, means the host is alive: the
// probe sends no credentials, so an error status is the expected reply of a
// healthy API. Timeouts, refused connections and DNS or TLS failures fail.
//
// Latency is measured on the monotonic wall clock, not the injected clock the
// rest of the build uses for timestamps: it is a measurement, not a date.
func Probe(ctx context.Context, client *http.Client, url string) ProbeResult {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return ProbeResult{Err: err.Error()}
	}
	// A redirect is an answer too: the probe measures the first one and does
	// not follow it (a redirect loop must not count as a dead host).
	noFollow := *client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	start := time.Now()
	resp, err := noFollow.Do(req)
	if err != nil {
		return ProbeResult{Err: err.Error()}
	}
	latency := time.Since(start)
	io.Copy(io.Discard, io.LimitReader(resp.Body, probeDrainBytes))
	resp.Body.Close()
	ms := float64(latency.Microseconds()) / 1000
	return ProbeResult{OK: true, LatencyMs: ms, HTTPStatus: resp.StatusCode}
}
