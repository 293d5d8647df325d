package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/snapshot"
)

// loopback serves ts's public handler on a real loopback listener.
func loopback(t *testing.T, ts *testServer) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(ts.Handler())
	t.Cleanup(hs.Close)
	return hs
}

// send sends method target to hs with header and returns the response with
// its body read.
func send(t *testing.T, hs *httptest.Server, method, target string, body io.Reader, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+target, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// TestRateLimitScope: the limit covers the API and /mcp — every route the
// table marks as rate-limited, and unknown paths of the API namespace — and
// nothing else: the status page, badges, feeds, llms.txt, discovery and the
// snapshot's files are static content, served without the API's budget.
func TestRateLimitScope(t *testing.T) {
	const limit = 2
	ts := newTestServer(t, limit)
	hs := loopback(t, ts)

	static := []string{
		"/", "/index.html", "/services/openai", "/services/openai.json", "/badges/openai.svg",
		"/badges/openai-uptime.json", "/incidents.atom", "/services/openai.atom", "/llms.txt",
		"/.well-known/api-catalog", "/status.json", "/nothing",
	}
	for _, p := range static {
		for i := range 3 * limit {
			resp, _ := send(t, hs, http.MethodGet, p, nil, nil)
			if resp.StatusCode == http.StatusTooManyRequests || resp.Header.Get("RateLimit") != "" {
				t.Fatalf("GET %s #%d: %d, RateLimit %q: static content is rate-limited", p, i+1, resp.StatusCode, resp.Header.Get("RateLimit"))
			}
		}
	}

	// The API budget is untouched by all that static traffic.
	for i := range limit {
		if resp, _ := send(t, hs, http.MethodGet, snapshot.PathStatus, nil, nil); resp.StatusCode != http.StatusOK || resp.Header.Get("RateLimit") == "" {
			t.Fatalf("API request %d after static traffic: %d, RateLimit %q", i+1, resp.StatusCode, resp.Header.Get("RateLimit"))
		}
	}
	limited := []string{snapshot.APIBase + "/nothing", "/api/v2/status"}
	for _, rt := range snapshot.Routes() {
		if rt.RateLimited {
			limited = append(limited, strings.ReplaceAll(rt.Path, snapshot.SlugParam, "openai"))
		}
	}
	for _, p := range limited {
		resp, _ := send(t, hs, http.MethodGet, p, nil, nil)
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("GET %s past the budget: %d, want 429", p, resp.StatusCode)
		}
	}
	for _, p := range static[:3] {
		if resp, _ := send(t, hs, http.MethodGet, p, nil, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the API budget spent: %d, want 200", p, resp.StatusCode)
		}
	}
}
