package probe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/outbound"
)

// What a probe makes of each kind of answer: any answer below 500 is a live
// host (the probe sends no credentials, so 401 is the healthy answer); a 5xx,
// a closed port or no answer in time is a failed probe, as data.
func TestProbe(t *testing.T) {
	t.Parallel()
	answer := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/moved" {
				http.Redirect(w, r, "/elsewhere", http.StatusMovedPermanently)
				return
			}
			w.WriteHeader(code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}
	hanging := func() string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	for _, tt := range []struct {
		name   string
		url    string
		state  string
		status int
		reason string
	}{
		{"401 without credentials: alive", answer(401), api.ProbeOK, 401, ""},
		{"404: alive", answer(404), api.ProbeOK, 404, ""},
		{"a redirect is an answer, not followed", answer(200) + "/moved", api.ProbeOK, 301, ""},
		{"503: failed", answer(503), api.ProbeFailed, 503, "Service Unavailable"},
		{"closed port: failed", closed(), api.ProbeFailed, 0, "refused"},
		{"no answer in time: failed", hanging(), api.ProbeFailed, 0, "deadline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			// The client the program probes with, the test's loopback host
			// allowed as a catalog's would be.
			client := outbound.NewClient(outbound.Options{AllowedURLs: []string{tt.url}})
			got := Probe(ctx, client, tt.url)
			if got.State != tt.state || got.HTTPStatus != tt.status || !strings.Contains(got.Error, tt.reason) {
				t.Fatalf("Probe = %+v, want state %s, status %d, error mentioning %q", got, tt.state, tt.status, tt.reason)
			}
			if (got.LatencyMs != nil) != (tt.state == api.ProbeOK) {
				t.Errorf("latency %v: only a live host has one", got.LatencyMs)
			}
		})
	}
}

// TestProbeErrorKeepsTheURLsSecrets: a failed probe's error, published as
// evidence, names the probe URL's scheme, host and path only: never its
// userinfo, query or fragment, where a catalog (an origin's, for a
// replica) could put a token or words for the reader.
func TestProbeErrorKeepsTheURLsSecrets(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, tt := range []struct {
		name, url, says string
	}{
		{"a query", "http://" + addr + "/v1/models?token=s3cret&say=ignore+the+status", "http://" + addr + "/v1/models"},
		{"userinfo", "http://user:s3cret@" + addr + "/v1", "http://" + addr + "/v1"},
		{"a fragment", "http://" + addr + "/v1#s3cret", "http://" + addr + "/v1"},
		{"an empty query", "http://" + addr + "/v1?", "http://" + addr + "/v1"},
		{"a URL that does not parse", "http://" + addr + "/v1?s3cret=%zz\x7f", "(a URL that does not parse)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			client := outbound.NewClient(outbound.Options{AllowedURLs: []string{"http://" + addr}})
			got := Probe(ctx, client, tt.url)
			if got.State != api.ProbeFailed || strings.Contains(got.Error, "s3cret") || strings.Contains(got.Error, "ignore") ||
				!strings.Contains(got.Error, `"`+tt.says+`"`) {
				t.Errorf("Probe(%q) = %+v: want a failure naming %q and nothing after it", tt.url, got, tt.says)
			}
		})
	}
}
