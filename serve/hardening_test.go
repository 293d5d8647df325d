package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
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
	t.Parallel()
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
		// /mcp charges per message, and a GET is free (TestMCPStatelessCost).
		if rt.RateLimited && rt.Path != snapshot.PathMCP {
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

// mcpContract checks the answer to a POST /mcp of body against the OpenAPI
// description.
func mcpContract(t *testing.T, body string, resp *http.Response, data []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, snapshot.PathMCP, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	assertContract(t, req, resp.StatusCode, resp.Header, data)
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
	t.Parallel()
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
			var p api.Problem
			if ct := resp.Header.Get("Content-Type"); ct != snapshot.ContentProblem || json.Unmarshal(data, &p) != nil {
				t.Fatalf("Content-Type %q, body %.200s: not a problem", ct, data)
			}
			if p.Status != tt.status || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("problem %+v, want status %d and %q in the detail", p, tt.status, tt.detail)
			}
			if resp.Header.Get("License") != api.License || resp.Header.Get("Cache-Control") != "no-store" {
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
	t.Parallel()
	ts := newTestServer(t, 2)
	hs := loopback(t, ts)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_status","arguments":{}}}`
	batch := "[" + strings.Repeat(msg+",", 49) + msg + "]"
	for i, tt := range []struct {
		body   string
		status int
	}{{batch, http.StatusBadRequest}, {msg, http.StatusOK}, {msg, http.StatusTooManyRequests}} {
		resp, data := mcpPost(t, hs, strings.NewReader(tt.body))
		if resp.StatusCode != tt.status {
			t.Fatalf("request %d: %d, want %d: %.200s", i+1, resp.StatusCode, tt.status, data)
		}
		mcpContract(t, tt.body, resp, data)
	}
}

// TestMCPStatelessCost: what the MCP Inspector's CLI sends for one tool
// call — initialize, notifications/initialized, a GET for a stream (which a
// stateless server refuses), tools/list, tools/call, then a DELETE — costs
// two requests of the budget; a tool call without initialize is answered,
// for one.
func TestMCPStatelessCost(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 3)
	hs := loopback(t, ts)
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initialized := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_status","arguments":{}}}`
	ping := `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	header := http.Header{"Accept": {"application/json, text/event-stream"}}
	steps := []struct {
		method, body string
		status       int
	}{
		{http.MethodPost, initialize, http.StatusOK},
		{http.MethodPost, initialized, http.StatusAccepted},
		{http.MethodGet, "", http.StatusMethodNotAllowed},
		{http.MethodPost, list, http.StatusOK},
		{http.MethodPost, call, http.StatusOK},
		{http.MethodDelete, "", http.StatusMethodNotAllowed},
		// One token is left: a tool call with no initialize before it.
		{http.MethodPost, call, http.StatusOK},
		{http.MethodPost, initialize, http.StatusOK},
		{http.MethodPost, ping, http.StatusOK},
		{http.MethodPost, call, http.StatusTooManyRequests},
		{http.MethodPost, list, http.StatusTooManyRequests},
	}
	for i, st := range steps {
		h := header.Clone()
		var body io.Reader
		if st.body != "" {
			h.Set("Content-Type", "application/json")
			body = strings.NewReader(st.body)
		}
		resp, data := send(t, hs, st.method, snapshot.PathMCP, body, h)
		if resp.StatusCode != st.status {
			t.Fatalf("step %d %s %.40s: %d, want %d: %.300s", i+1, st.method, st.body, resp.StatusCode, st.status, data)
		}
		if st.status == http.StatusOK && !strings.Contains(string(data), `"result"`) {
			t.Errorf("step %d: no result: %.300s", i+1, data)
		}
		if st.method == http.MethodPost {
			mcpContract(t, st.body, resp, data)
		}
	}
}

// rawClient is a client that leaves Accept-Encoding to the test.
func rawClient(t *testing.T) *http.Client {
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestAcceptEncodingQValues: gzip is sent only when the client accepts it,
// with q-values parsed as RFC 9110 §12.5.3 says, in any case.
func TestAcceptEncodingQValues(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	hs := loopback(t, ts)
	client := rawClient(t)
	tests := []struct {
		fields []string
		gzip   bool
	}{
		{nil, false},
		{[]string{"gzip"}, true},
		{[]string{"GZip"}, true},
		{[]string{"x-gzip"}, true},
		{[]string{"br, gzip;q=0.8"}, true},
		{[]string{"gzip;q=0.001"}, true},
		{[]string{"gzip;q=1.000"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"gzip;Q=0"}, false},
		{[]string{"GZIP;Q=0"}, false},
		{[]string{"gzip ; q=0"}, false},
		{[]string{"gzip;q=0.000"}, false},
		{[]string{"gzip;q=0."}, false},
		{[]string{"gzip;level=1;q=0"}, false},
		{[]string{"gzip;q=0, *"}, false},
		{[]string{"*"}, true},
		{[]string{"*;q=0"}, false},
		{[]string{"deflate, br"}, false},
		{[]string{"identity"}, false},
		{[]string{"deflate", "gzip"}, true},
		{[]string{"gzip", "gzip;q=0"}, true},
		// Malformed q-values are ignored, not read as acceptance.
		{[]string{"gzip;q=2"}, false},
		{[]string{"gzip;q=abc"}, false},
		{[]string{"gzip;q=0.0001"}, false},
		{[]string{"gzip;q=-1"}, false},
		{[]string{"gzip;q=NaN"}, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.fields, "|"), func(t *testing.T) {
			// A file, a page and a computed answer.
			for _, p := range []string{snapshot.PathStatus, "/", snapshot.PathIncidents + "?service=openai"} {
				req, _ := http.NewRequest(http.MethodGet, hs.URL+p, nil)
				req.Header["Accept-Encoding"] = tt.fields
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: status %d", p, resp.StatusCode)
				}
				if got := resp.Header.Get("Content-Encoding") == "gzip"; got != tt.gzip {
					t.Errorf("%s: gzip %v, want %v", p, got, tt.gzip)
				}
			}
		})
	}
}

// TestContentLengthWithTransferEncodingClosesConnection: a request carrying
// both Content-Length and Transfer-Encoding is answered, then its connection
// is closed (RFC 9112 §6.1), so a request pipelined behind it — possibly
// smuggled — is never read. Go's server alone answers it and keeps going.
func TestContentLengthWithTransferEncodingClosesConnection(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	hs := loopback(t, ts)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_status","arguments":{}}}`
	tests := []struct {
		name, head, body string
		status           int
	}{
		{"POST /mcp", "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", msg, http.StatusOK},
		{"GET with a body", "GET " + snapshot.PathStatus + " HTTP/1.1\r\n", "x", http.StatusOK},
		{"GET a page", "GET /llms.txt HTTP/1.1\r\n", "x", http.StatusOK},
		{"PUT (405)", "PUT " + snapshot.PathStatus + " HTTP/1.1\r\n", "x", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", hs.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(conn, "%sHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n"+
				"GET /api/v1/smuggled HTTP/1.1\r\nHost: x\r\n\r\n", tt.head, len(tt.body), tt.body)
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !resp.Close {
				t.Errorf("status %d (want %d), Connection %q: want the connection closed", resp.StatusCode, tt.status, resp.Header.Get("Connection"))
			}
			if next, err := http.ReadResponse(br, nil); err == nil {
				t.Errorf("the pipelined request was answered: %s", next.Status)
			}
		})
	}
	// A request with only a Content-Length keeps its connection.
	conn, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%sGET /llms.txt HTTP/1.1\r\nHost: x\r\n\r\n", len(msg), msg)
	br := bufio.NewReader(conn)
	for i := range 2 {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d on a kept-alive connection: %v", i+1, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// TestMultipleRangesAreIgnored: only a single range is served; a request
// for several is answered 200 with the whole body instead of a multipart
// answer many times larger than the document.
func TestMultipleRangesAreIgnored(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	hs := loopback(t, ts)
	client := rawClient(t)
	full, _ := send(t, hs, http.MethodGet, snapshot.PathOpenAPI, nil, http.Header{"Accept-Encoding": {"identity"}})
	size := full.ContentLength
	var many []string
	for i := range 1000 {
		many = append(many, fmt.Sprintf("%d-%d", i, i))
	}
	tests := []struct {
		rng    string
		status int
		length int64
	}{
		{"bytes=0-9", http.StatusPartialContent, 10},
		{"bytes=-5", http.StatusPartialContent, 5},
		{"bytes=0-0,2-2", http.StatusOK, size},
		{"bytes=0-9, 20-29", http.StatusOK, size},
		{"bytes=" + strings.Join(many, ","), http.StatusOK, size},
	}
	for _, tt := range tests {
		t.Run(tt.rng[:min(len(tt.rng), 20)], func(t *testing.T) {
			for _, extra := range []http.Header{nil, {"If-Modified-Since": {"Mon, 01 Jan 2001 00:00:00 GMT"}}} {
				req, _ := http.NewRequest(http.MethodGet, hs.URL+snapshot.PathOpenAPI, nil)
				req.Header.Set("Range", tt.rng)
				for k, v := range extra {
					req.Header[k] = v
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.status || n != tt.length || strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/") {
					t.Errorf("%d, %d bytes, %q; want %d, %d bytes", resp.StatusCode, n, resp.Header.Get("Content-Type"), tt.status, tt.length)
				}
			}
		})
	}
}
