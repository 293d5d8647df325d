package serve

import (
	"encoding/json"
	"fmt"
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

// mcpPost POSTs an MCP body to hs's /mcp as a streamable HTTP client does.
func mcpPost(t *testing.T, hs *httptest.Server, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	return send(t, hs, http.MethodPost, snapshot.PathMCP, body, http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	})
}

// onlyReader hides a reader's type, so that the client cannot tell the
// length and sends the body chunked.
type onlyReader struct{ io.Reader }

// TestMCPRefusesBatchesAndLargeBodies: a JSON-RPC batch would cost one
// token of the rate limit for any number of tool calls, so it is refused;
// a body over 64 KiB is a 413, whether its length is declared or not. Both
// are problem details, as are the SDK's own errors. A single message, even
// a large one under the cap, is answered.
func TestMCPRefusesBatchesAndLargeBodies(t *testing.T) {
	ts := newTestServer(t, 0)
	hs := loopback(t, ts)
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_status","arguments":{}}}`, id)
	}
	batch := "[" + call(1) + "," + call(2) + "," + call(3) + "]"
	padded := func(n int) string { return call(1) + strings.Repeat(" ", n-len(call(1))) }
	tests := []struct {
		name   string
		body   io.Reader
		status int
		detail string
	}{
		{"one message", strings.NewReader(call(1)), http.StatusOK, ""},
		{"one message, 60 KiB", strings.NewReader(padded(60 << 10)), http.StatusOK, ""},
		{"batch", strings.NewReader(batch), http.StatusBadRequest, "batches are not supported"},
		{"batch after whitespace", strings.NewReader("\r\n\t " + batch), http.StatusBadRequest, "batches are not supported"},
		{"1 MiB", strings.NewReader(padded(1 << 20)), http.StatusRequestEntityTooLarge, "at most 65536 bytes"},
		{"1 MiB chunked", onlyReader{strings.NewReader(padded(1 << 20))}, http.StatusRequestEntityTooLarge, "at most 65536 bytes"},
		{"64 KiB + 1", strings.NewReader(padded(64<<10 + 1)), http.StatusRequestEntityTooLarge, "at most 65536 bytes"},
		{"empty (the SDK's error)", strings.NewReader(""), http.StatusBadRequest, "non-empty body"},
		{"not JSON (the SDK's error)", strings.NewReader("{nope"), http.StatusBadRequest, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := mcpPost(t, hs, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %.200s", resp.StatusCode, tt.status, data)
			}
			if tt.status == http.StatusOK {
				if !strings.Contains(string(data), `"result"`) || strings.HasPrefix(string(data), "[") {
					t.Errorf("answer %.200s", data)
				}
				return
			}
			var p snapshot.Problem
			if ct := resp.Header.Get("Content-Type"); ct != snapshot.ContentProblem || json.Unmarshal(data, &p) != nil {
				t.Fatalf("Content-Type %q, body %.200s: not a problem", ct, data)
			}
			if p.Status != tt.status || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("problem %+v, want status %d and %q in the detail", p, tt.status, tt.detail)
			}
			if resp.Header.Get("License") != snapshot.License || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("headers %v", resp.Header)
			}
		})
	}
	// GET has no stream to offer a stateless client: the SDK's 405, as a problem.
	resp, data := send(t, hs, http.MethodGet, snapshot.PathMCP, nil, http.Header{"Accept": {"text/event-stream"}})
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Content-Type") != snapshot.ContentProblem {
		t.Errorf("GET /mcp: %d %q %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
}

// TestMCPRateLimitPerMessage: with a budget of 2, the third MCP message is
// refused, and a batch cannot carry more messages for the price of one.
func TestMCPRateLimitPerMessage(t *testing.T) {
	ts := newTestServer(t, 2)
	hs := loopback(t, ts)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_status","arguments":{}}}`
	batch := "[" + strings.Repeat(msg+",", 49) + msg + "]"
	for i, tt := range []struct {
		body   string
		status int
	}{{batch, http.StatusBadRequest}, {msg, http.StatusOK}, {msg, http.StatusTooManyRequests}} {
		if resp, data := mcpPost(t, hs, strings.NewReader(tt.body)); resp.StatusCode != tt.status {
			t.Fatalf("request %d: %d, want %d: %.200s", i+1, resp.StatusCode, tt.status, data)
		}
	}
}
