package completion

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/outbound"
)

const testKey = "sk-test-7Hq2VfX9pLmN4rT8wZ1cB6yD3kJ5sG0a"

// fixture reads a file of testdata, or of check's real provider error
// bodies (README.md beside each says where they come from).
func fixture(t *testing.T, name string) string {
	t.Helper()
	path := "testdata/" + name
	if strings.HasPrefix(name, "errors/") {
		path = "../check/testdata/" + name
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// cut is a real stream stopped before its end marker.
func cut(t *testing.T, name, before string) string {
	s := fixture(t, name)
	i := strings.Index(s, before)
	if i < 0 {
		t.Fatalf("%s has no %q", name, before)
	}
	return s[:i]
}

// fakeAPI answers every request with status and body, streaming the body
// in pieces as a real API does, and keeps the last request.
type fakeAPI struct {
	*httptest.Server
	status int
	body   string
	delay  time.Duration
	got    chan *http.Request
	bodies chan string
}

func newFakeAPI(t *testing.T, status int, body string) *fakeAPI {
	f := &fakeAPI{status: status, body: body, got: make(chan *http.Request, 16), bodies: make(chan string, 16)}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		f.got <- r
		f.bodies <- string(data)
		if f.delay > 0 {
			select {
			case <-time.After(f.delay):
			case <-r.Context().Done():
				return
			}
		}
		if f.status == http.StatusOK {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(f.status)
		for part := range strings.SplitAfterSeq(f.body, "\n\n") {
			_, _ = io.WriteString(w, part)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// withTable sets req's error table to the default catalog's for slug, as
// the build does.
func withTable(t *testing.T, slug string, req Request) Request {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, ok := cat.Lookup(slug)
	if !ok {
		t.Fatalf("no service %s", slug)
	}
	req.Codes = func(code string, status int) (catalog.ErrorCode, bool) { return cat.ErrorCode(svc, code, status) }
	return req
}

func TestMeasure(t *testing.T) {
	t.Parallel()
	openai := catalog.CompletionProbe{Style: catalog.StyleOpenAI, KeyEnv: "OPENAI_API_KEY"}
	anthropic := catalog.CompletionProbe{Style: catalog.StyleAnthropic, KeyEnv: "ANTHROPIC_API_KEY"}
	gemini := catalog.CompletionProbe{Style: catalog.StyleGemini, KeyEnv: "GEMINI_API_KEY"}
	tests := []struct {
		name     string
		probe    catalog.CompletionProbe
		codes    string // the catalog service whose error table reads codes
		status   int
		body     string
		want     api.CompletionOutcome
		wantCode string
	}{
		{"openai stream", openai, "openai", 200, fixture(t, "openai-stream.txt"), api.OutcomeOK, ""},
		{"anthropic stream", anthropic, "anthropic", 200, fixture(t, "anthropic-stream.txt"), api.OutcomeOK, ""},
		{"gemini sse stream", gemini, "google-gemini", 200, fixture(t, "gemini-stream.txt"), api.OutcomeOK, ""},

		{"openai cut before [DONE]", openai, "openai", 200, cut(t, "openai-stream.txt", "data: [DONE]"), api.OutcomeStreamCut, ""},
		{"anthropic cut before message_stop", anthropic, "anthropic", 200, cut(t, "anthropic-stream.txt", "event: message_stop"), api.OutcomeStreamCut, ""},
		{"gemini cut before its first event", gemini, "google-gemini", 200, "", api.OutcomeStreamCut, ""},
		{"anthropic overloaded mid-stream", anthropic, "anthropic", 200,
			cut(t, "anthropic-stream.txt", "event: content_block_delta") + "event: error\ndata: " + strings.TrimSpace(fixture(t, "errors/anthropic-overloaded_error.json")) + "\n\n",
			api.OutcomeOverloaded, "overloaded_error"},
		{"openai empty answer", openai, "openai", 200,
			cut(t, "openai-stream.txt", `data: {"id":"chatcmpl-CedWYrywQV4mbHiiyebdY17UdXZRY","object":"chat.completion.chunk","created":1763801086,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_560af6e559","choices":[{"index":0,"delta":{"content":"1"}`) + "data: [DONE]\n\n",
			api.OutcomeEmpty, ""},
		{"not a stream", openai, "openai", 200, "<html>hello</html>", api.OutcomeStreamCut, ""},

		{"anthropic 529 overloaded", anthropic, "anthropic", 529, fixture(t, "errors/anthropic-overloaded_error.json"), api.OutcomeOverloaded, "overloaded_error"},
		{"anthropic 429 rate limit", anthropic, "anthropic", 429, fixture(t, "errors/anthropic-rate_limit_error.json"), api.OutcomeRateLimited, "rate_limit_error"},
		{"anthropic 500 api_error", anthropic, "anthropic", 500, fixture(t, "errors/anthropic-api_error.json"), api.OutcomeServerError, "api_error"},
		{"openai 429 rate limit", openai, "openai", 429, fixture(t, "errors/openai-rate_limit_exceeded.json"), api.OutcomeRateLimited, "rate_limit_exceeded"},
		{"openai 429 our quota", openai, "openai", 429, fixture(t, "errors/openai-insufficient_quota.json"), api.OutcomeQuota, "insufficient_quota"},
		{"openai 401 refused key", openai, "openai", 401, fixture(t, "errors/openai-invalid_api_key.json"), api.OutcomeKeyRefused, "invalid_api_key"},
		{"openai 404 model gone", openai, "openai", 404, fixture(t, "errors/openai-model_not_found.json"), api.OutcomeRequestRefused, "model_not_found"},
		{"openai 500", openai, "openai", 500, fixture(t, "errors/openai-server_error-direct.json"), api.OutcomeServerError, "server_error"},
		{"gemini 503 UNAVAILABLE", gemini, "google-gemini", 503, fixture(t, "errors/google-UNAVAILABLE.json"), api.OutcomeOverloaded, "UNAVAILABLE"},
		{"gemini 429 per-minute quota", gemini, "google-gemini", 429, fixture(t, "errors/google-RESOURCE_EXHAUSTED-429-per_minute_quota.json"), api.OutcomeRateLimited, "RESOURCE_EXHAUSTED"},
		{"gemini 402 prepay depleted", gemini, "google-gemini", 402, fixture(t, "errors/google-RESOURCE_EXHAUSTED-402-prepay_depleted.json"), api.OutcomeQuota, "RESOURCE_EXHAUSTED"},
		{"a redirect is not followed", openai, "openai", 307, "", api.OutcomeRequestRefused, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeAPI(t, tt.status, tt.body)
			p := tt.probe
			p.URL = fake.URL + "/v1/chat"
			p.Models = []catalog.MeasuredModelRef{{ID: "x/model-a", Model: "model-a"}}
			got := Measure(t.Context(), withTable(t, tt.codes, Request{Client: client(fake.URL), Probe: p, Model: p.Models[0], Key: testKey}))
			if got.Outcome != tt.want || got.Code != tt.wantCode {
				t.Fatalf("outcome %q code %q, want %q %q", got.Outcome, got.Code, tt.want, tt.wantCode)
			}
			if tt.status == 200 || tt.status == 0 {
				// The times are set exactly when the completion succeeded.
				if (got.TTFTMs != nil) != (tt.want == api.OutcomeOK) || (got.TotalMs != nil) != (tt.want == api.OutcomeOK) {
					t.Fatalf("ttft %v total %v for outcome %s", got.TTFTMs, got.TotalMs, got.Outcome)
				}
				if got.TTFTMs != nil && (*got.TTFTMs <= 0 || *got.TTFTMs > *got.TotalMs) {
					t.Fatalf("ttft %v total %v: the first token comes before the end", *got.TTFTMs, *got.TotalMs)
				}
			} else if got.HTTPStatus != tt.status {
				t.Fatalf("httpStatus %d, want %d", got.HTTPStatus, tt.status)
			}
			if s := mustJSON(t, got); strings.Contains(s, testKey) || strings.Contains(s, "sk-") {
				t.Fatalf("sample carries the key or a quote of it: %s", s)
			}
		})
	}
}

// TestKeyEchoedAsCode: a provider may put anything shaped like a code where
// its error code goes, the key included. Each way it can reach a sample (a
// 401's or a 500's error.code, the type of an Anthropic error event, an
// error chunk inside a 200 stream, Gemini's error.status) publishes
// "other", never the key; a code the service's table lists is kept, any
// other is "other"; the outcome is classified as before.
func TestKeyEchoedAsCode(t *testing.T) {
	t.Parallel()
	openai := catalog.CompletionProbe{Style: catalog.StyleOpenAI, KeyEnv: "OPENAI_API_KEY"}
	anthropic := catalog.CompletionProbe{Style: catalog.StyleAnthropic, KeyEnv: "ANTHROPIC_API_KEY"}
	gemini := catalog.CompletionProbe{Style: catalog.StyleGemini, KeyEnv: "GEMINI_API_KEY"}
	echo := `{"error":{"message":"Incorrect API key provided: ` + testKey + `","type":"invalid_request_error","param":null,"code":"` + testKey + `"}}`
	// A key holding "t_exceed", an 8-character piece of a listed code.
	pieceKey := "sk-live-9fQ2t_exceedXw3Lm0Tn5Ky7Rb2Hc"
	tests := []struct {
		name     string
		probe    catalog.CompletionProbe
		table    string // the catalog service whose error table is used
		key      string
		status   int
		body     string
		want     api.CompletionOutcome
		wantCode string
	}{
		{"401 whose code is the key", openai, "openai", testKey, 401, echo, api.OutcomeKeyRefused, "other"},
		{"500 whose code is the key", openai, "openai", testKey, 500, echo, api.OutcomeServerError, "other"},
		{"anthropic error event whose type is the key", anthropic, "anthropic", testKey, 200,
			cut(t, "anthropic-stream.txt", "event: content_block_delta") +
				"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"" + testKey + "\",\"message\":\"" + testKey + "\"}}\n\n",
			api.OutcomeStreamCut, "other"},
		{"error chunk in a 200 stream whose code is the key", openai, "openai", testKey, 200,
			cut(t, "openai-stream.txt", "data: [DONE]") + "data: " + echo + "\n\n",
			api.OutcomeStreamCut, "other"},
		{"gemini error event whose status is the key", gemini, "google-gemini", testKey, 200,
			`data: {"error":{"code":500,"message":"` + testKey + `","status":"` + testKey + `"}}` + "\r\n\r\n",
			api.OutcomeStreamCut, "other"},

		{"a listed code is kept", openai, "openai", testKey, 429, fixture(t, "errors/openai-rate_limit_exceeded.json"), api.OutcomeRateLimited, "rate_limit_exceeded"},
		{"a listed code in a stream is kept", openai, "openai", testKey, 200,
			"data: " + strings.TrimSpace(fixture(t, "errors/openai-server_is_overloaded-stream_event.json")) + "\n\n",
			api.OutcomeOverloaded, "server_is_overloaded"},
		{"a code the table does not list", openai, "openai", testKey, 500, `{"error":{"message":"x","type":"brand_new_failure","code":"brand_new_failure"}}`,
			api.OutcomeServerError, "other"},
		{"a service without a table", openai, "deepseek", testKey, 429, fixture(t, "errors/openai-rate_limit_exceeded.json"), api.OutcomeRateLimited, "other"},
		{"a listed code holding a piece of the key", openai, "openai", pieceKey, 429, fixture(t, "errors/openai-rate_limit_exceeded.json"),
			api.OutcomeRateLimited, "other"},
		{"no code: none published", openai, "openai", testKey, 502, "<html>Bad gateway " + testKey + "</html>", api.OutcomeServerError, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(t, tt.status, tt.body)
			p := tt.probe
			p.URL = api.URL + "/v1/chat"
			p.Models = []catalog.MeasuredModelRef{{ID: "x/model-a", Model: "model-a"}}
			got := Measure(t.Context(), withTable(t, tt.table, Request{Client: client(api.URL), Probe: p, Model: p.Models[0], Key: tt.key}))
			if got.Outcome != tt.want || got.Code != tt.wantCode {
				t.Errorf("outcome %q code %q, want %q %q", got.Outcome, got.Code, tt.want, tt.wantCode)
			}
			if piece := heldPiece(mustJSON(t, got), tt.key); piece != "" {
				t.Errorf("the sample holds %q of the key", piece)
			}
		})
	}
}

// heldPiece returns the first 8-character piece of key that s holds; "" if
// none does.
func heldPiece(s, key string) string {
	for i := 0; i+8 <= len(key); i++ {
		if strings.Contains(s, key[i:i+8]) {
			return key[i : i+8]
		}
	}
	return ""
}

func TestLeaksKey(t *testing.T) {
	t.Parallel()
	key := "sk-proj-Zq81xWv3Lm0Tn5Ky7Rb2Hc9Jd4Fg6Pa1"
	tests := []struct {
		s, key string
		want   bool
	}{
		{key, key, true},
		{"code-" + key[:8], key, true},           // its first 8 characters
		{key[len(key)-8:] + "_error", key, true}, // its last 8
		{"x" + key[13:21] + "y", key, true},      // 8 from the middle
		{strings.ToUpper(key[13:21]), key, true}, // in another case
		{key[13:20], key, false},                 // 7 are not enough
		{"rate_limit_exceeded", key, false},      // a code that is not the key
		{"", key, false},                         // nothing
		{"rate_limit_exceeded", "", false},       // no key
		{"an-abc123-code", "abc123", true},       // a key shorter than 8: whole
		{"an-abc12-code", "abc123", false},
	}
	for _, tt := range tests {
		if got := LeaksKey(tt.s, tt.key); got != tt.want {
			t.Errorf("LeaksKey(%q, %q) = %v, want %v", tt.s, tt.key, got, tt.want)
		}
	}
}

func client(allowed string) *http.Client {
	return outbound.NewClient(outbound.Options{AllowedURLs: []string{allowed}})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestKeyPlacement checks each style sends the key in the header its API
// reads, and nowhere else: not in the URL, not in the body.
func TestKeyPlacement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		style        catalog.CompletionStyle
		header, want string
		path         string
	}{
		{catalog.StyleOpenAI, "Authorization", "Bearer " + testKey, "/v1/chat/completions"},
		{catalog.StyleAnthropic, "X-Api-Key", testKey, "/v1/messages"},
		{catalog.StyleGemini, "X-Goog-Api-Key", testKey, "/v1beta/models/gemini-2.5-flash-lite:streamGenerateContent"},
	}
	for _, tt := range tests {
		t.Run(string(tt.style), func(t *testing.T) {
			api := newFakeAPI(t, 401, `{"error":{"type":"authentication_error"}}`)
			base := api.URL + tt.path
			if tt.style == catalog.StyleGemini {
				base = api.URL + "/v1beta/models"
			}
			p := catalog.CompletionProbe{Style: tt.style, URL: base, KeyEnv: "K",
				Models: []catalog.MeasuredModelRef{{ID: "x/gemini-2.5-flash-lite", Model: "gemini-2.5-flash-lite"}}}
			Measure(t.Context(), Request{Client: client(api.URL), Probe: p, Model: p.Models[0], Key: testKey})
			r, body := <-api.got, <-api.bodies
			if got := r.Header.Get(tt.header); got != tt.want {
				t.Fatalf("%s = %q, want %q", tt.header, got, tt.want)
			}
			if r.URL.Path != tt.path {
				t.Fatalf("path %s, want %s", r.URL.Path, tt.path)
			}
			if strings.Contains(r.URL.String(), testKey) || strings.Contains(body, testKey) {
				t.Fatal("the key is in the URL or the body")
			}
			for name, values := range r.Header {
				if name != tt.header && strings.Contains(strings.Join(values, " "), testKey) {
					t.Fatalf("the key is in header %s too", name)
				}
			}
			if !strings.Contains(body, `"model-a"`) && !strings.Contains(body, Prompt) {
				t.Fatalf("body %s does not carry the prompt", body)
			}
			if tt.style != catalog.StyleGemini && !strings.Contains(body, `"stream":true`) {
				t.Fatalf("body %s does not ask for a stream", body)
			}
		})
	}
}

// TestKeyDestination: a key is never sent over plain http to a host that is
// not loopback, nor when the URL carries a query.
func TestKeyDestination(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"http://api.example.com/v1/chat/completions", "ftp://api.example.com/x", "https://user:pw@api.example.com/x", "/relative"} {
		if catalog.KeyDestinationOK(raw) == nil {
			t.Errorf("%s accepted", raw)
		}
	}
	for _, raw := range []string{"https://api.openai.com/v1/chat/completions", "http://127.0.0.1:8080/v1", "http://[::1]:9/v1", "http://localhost:1/v1"} {
		if err := catalog.KeyDestinationOK(raw); err != nil {
			t.Errorf("%s refused: %v", raw, err)
		}
	}
	// Refused before anything is sent.
	sent := false
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { sent = true }))
	defer srv.Close()
	p := catalog.CompletionProbe{Style: catalog.StyleOpenAI, URL: strings.Replace(srv.URL, "127.0.0.1", "api.example.invalid", 1), KeyEnv: "K"}
	got := Measure(t.Context(), Request{Client: client(srv.URL), Probe: p, Model: catalog.MeasuredModelRef{ID: "a/b", Model: "b"}, Key: testKey})
	if sent || got.Outcome != api.OutcomeRequestRefused {
		t.Fatalf("sent %v, outcome %s", sent, got.Outcome)
	}
}

// TestTimeout: a completion that does not answer within the cycle's bound
// is a timeout, measured once and not retried.
func TestTimeout(t *testing.T) {
	t.Parallel()
	fake := newFakeAPI(t, 200, fixture(t, "openai-stream.txt"))
	fake.delay = 5 * time.Second
	p := catalog.CompletionProbe{Style: catalog.StyleOpenAI, URL: fake.URL + "/v1/chat/completions", KeyEnv: "K",
		Models: []catalog.MeasuredModelRef{{ID: "openai/a", Model: "a"}, {ID: "openai/b", Model: "b"}}}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	got := MeasureAll(ctx, Request{Client: client(fake.URL), Probe: p, Key: testKey})
	if len(got) != 2 || got["openai/a"].Outcome != api.OutcomeTimeout || got["openai/b"].Outcome != api.OutcomeTimeout {
		t.Fatalf("got %+v", got)
	}
	if n := len(fake.got); n != 2 {
		t.Fatalf("%d requests, want one per model", n)
	}
}

// TestNetwork: no answer at all is the network's failure.
func TestNetwork(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	p := catalog.CompletionProbe{Style: catalog.StyleAnthropic, URL: url + "/v1/messages", KeyEnv: "K"}
	got := Measure(t.Context(), Request{Client: client(url), Probe: p, Model: catalog.MeasuredModelRef{ID: "a/b", Model: "b"}, Key: testKey})
	if got.Outcome != api.OutcomeNetwork {
		t.Fatalf("outcome %s", got.Outcome)
	}
}
