package feed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
)

// readOpenRouter reads the document the test server answers at path.
func readOpenRouter(t *testing.T, rep reply, modelID string) ([]GatewayEndpoint, error) {
	t.Helper()
	srv, _ := serve(t, jsonAccept, map[string]reply{"/endpoints": rep})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return ReadOpenRouter(ctx, &http.Client{}, srv.URL+"/endpoints", modelID)
}

func f64(v float64) *float64 { return &v }

// checkEndpoints fails t unless a read ended as a case wants: with a
// failure of kind fail, or else without error and with one endpoint per
// want, each checked against its own.
func checkEndpoints[W interface {
	check(t *testing.T, i int, got GatewayEndpoint)
}](t *testing.T, eps []GatewayEndpoint, err error, fail api.FailureKind, want []W) {
	t.Helper()
	if fail != "" {
		if err == nil || Kind(err) != fail {
			t.Fatalf("err = %v (kind %q), want a %q failure", err, Kind(err), fail)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != len(want) {
		t.Fatalf("got %d endpoints %+v, want %d", len(eps), eps, len(want))
	}
	for i, w := range want {
		w.check(t, i, eps[i])
	}
}

// openRouterWant is what must be read of one OpenRouter endpoint; nil
// figures are too little traffic.
type openRouterWant struct {
	provider, tag string
	up5, up30     *float64
}

func (w openRouterWant) check(t *testing.T, i int, got GatewayEndpoint) {
	t.Helper()
	if got.Provider != w.provider || got.Tag != w.tag || !sameFigure(got.Uptime["5m"], w.up5) || !sameFigure(got.Uptime["30m"], w.up30) {
		t.Errorf("endpoint %d = %s %s 5m=%v 30m=%v, want %+v", i, got.Provider, got.Tag, got.Uptime["5m"], got.Uptime["30m"], w)
	}
	if _, ok := got.Uptime["1d"]; !ok {
		t.Errorf("endpoint %d has no 1d window", i)
	}
}

func TestOpenRouter(t *testing.T) {
	t.Parallel()
	type want = openRouterWant
	for _, tc := range []struct {
		name, model string
		rep         reply
		want        []want
		fail        api.FailureKind
	}{
		{name: "real: OpenRouter's own example answer", model: "openai/gpt-4",
			rep:  reply{file: "real/openrouter-openapi-example-20260822.json"},
			want: []want{{"OpenAI", "openai", f64(100), f64(99.5)}}},
		{name: "real: the example with no endpoints proves nothing", model: "openai/gpt-4",
			rep: reply{file: "real/openrouter-openapi-example-empty-20260822.json"}, fail: api.FailureEmpty},
		{name: "one model, providers apart; untracked ones are kept here", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-split.json"},
			want: []want{
				{"Anthropic", "anthropic", f64(60), f64(71.25)},
				{"Amazon Bedrock", "amazon-bedrock", f64(99.9), f64(99.92766928170033)},
				{"Google", "google-vertex/us-east5", f64(95), f64(96.1)},
				{"Google", "google-vertex/europe", f64(94.99), f64(95.5)},
				{"Untracked Host", "untracked-host/fp8", f64(49.99), f64(80)},
			}},
		{name: "null figures are too little traffic, not an error", model: "anthropic/claude-sonnet-4.5",
			rep:  reply{file: "openrouter-quiet.json"},
			want: []want{{"Anthropic", "anthropic", nil, nil}, {"Amazon Bedrock", "amazon-bedrock", f64(50), nil}}},
		{name: "a figure that is no percentage drops its endpoint only", model: "anthropic/claude-sonnet-4.5",
			rep:  reply{file: "openrouter-bad-percentage.json"},
			want: []want{{"Amazon Bedrock", "amazon-bedrock", f64(99.9), f64(99.9)}}},
		{name: "another model's document", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-wrong-model.json"}, fail: api.FailureSchema},
		{name: "an endpoint without its uptime member", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-missing-uptime.json"}, fail: api.FailureSchema},
		{name: "an endpoint without its provider", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-no-provider.json"}, fail: api.FailureSchema},
		{name: "no endpoints", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-empty.json"}, fail: api.FailureEmpty},
		{name: "an error object with 200", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-no-data.json"}, fail: api.FailureSchema},
		{name: "rate-limited", model: "anthropic/claude-sonnet-4.5",
			rep: reply{code: http.StatusTooManyRequests, body: []byte(`{"error":{"code":429,"message":"Rate limit exceeded"}}`)}, fail: api.FailureHTTP},
		{name: "a challenge page", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "html-openrouter-challenge.html"}, fail: api.FailureChallenge},
		{name: "too large", model: "openai/gpt-4",
			rep: reply{body: oversized(fixture(t, "real/openrouter-openapi-example-20260822.json"))}, fail: api.FailureTooLarge},
		{name: "null", model: "openai/gpt-4", rep: reply{body: []byte("null")}, fail: api.FailureSchema},
		{name: "a list", model: "openai/gpt-4", rep: reply{body: []byte("[]")}, fail: api.FailureSchema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eps, err := readOpenRouter(t, tc.rep, tc.model)
			checkEndpoints(t, eps, err, tc.fail, tc.want)
		})
	}
}

// realEndpoints is OpenRouter's own example document with its endpoints
// replaced by n copies of its one endpoint, each passed through edit (nil
// keeps it whole).
func realEndpoints(t testing.TB, n int, edit func(i int, ep map[string]any)) []byte {
	t.Helper()
	return realEndpointsLike(t, n, nil, edit)
}

// realEndpointsLike is realEndpoints with same applied once, to the
// endpoint every copy starts from.
func realEndpointsLike(t testing.TB, n int, same func(ep map[string]any), edit func(i int, ep map[string]any)) []byte {
	t.Helper()
	var doc struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(fixture(t, "real/openrouter-openapi-example-20260822.json"), &doc); err != nil {
		t.Fatal(err)
	}
	first := doc.Data["endpoints"].([]any)[0].(map[string]any)
	if same != nil {
		same(first)
	}
	one, _ := json.Marshal(first)
	// The list is written as bytes, each endpoint decoded and encoded only
	// when edit changes it: tens of thousands of maps took most of a
	// minute under the race detector.
	eps := make([]json.RawMessage, n)
	for i := range eps {
		eps[i] = one
		if edit == nil {
			continue
		}
		var ep map[string]any
		if err := json.Unmarshal(one, &ep); err != nil {
			t.Fatal(err)
		}
		edit(i, ep)
		eps[i], _ = json.Marshal(ep)
	}
	doc.Data["endpoints"] = eps
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOpenRouterEndpointCap: a document may list at most
// MaxGatewayEndpoints endpoints. One that lists more, however many of
// them repeat one provider, fails as a document of the wrong shape instead
// of being kept whole (the 5 MiB document of some 58 000 endpoints
// became 34 MB of models.json) or cut without a word.
func TestOpenRouterEndpointCap(t *testing.T) {
	t.Parallel()
	// bare keeps only the members the reader needs, so that a body under
	// MaxBody holds as many endpoints as it can.
	bare := func(ep map[string]any) {
		for k := range ep {
			switch k {
			case "provider_name", "tag", "uptime_last_5m", "uptime_last_30m", "uptime_last_1d":
			default:
				delete(ep, k)
			}
		}
	}
	for _, tc := range []struct {
		name string
		body []byte
		fail bool
	}{
		{"one endpoint", realEndpoints(t, 1, nil), false},
		{"as many as the cap", realEndpoints(t, MaxGatewayEndpoints, nil), false},
		{"one more than the cap", realEndpoints(t, MaxGatewayEndpoints+1, nil), true},
		{"5000 copies of one provider", realEndpoints(t, 5000, nil), true},
		{"48 000 endpoints, just under the 5 MiB body cap", realEndpointsLike(t, 48_000, bare, nil), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.body) > MaxBody {
				t.Fatalf("the document is %d bytes: the body cap, not the endpoint cap, would refuse it", len(tc.body))
			}
			eps, err := readOpenRouter(t, reply{body: tc.body}, "openai/gpt-4")
			if tc.fail {
				if Kind(err) != api.FailureSchema || !strings.Contains(fmt.Sprint(err), fmt.Sprintf("more than the %d", MaxGatewayEndpoints)) {
					t.Fatalf("%d endpoints read, err = %v (kind %q), want a schema failure naming the cap", len(eps), err, Kind(err))
				}
				return
			}
			if err != nil || len(eps) == 0 {
				t.Fatalf("%d endpoints, err = %v", len(eps), err)
			}
		})
	}
}

// TestOpenRouterCleansText: a provider's name and an endpoint's tag are
// published (the name, the tag's region) and printed in /check's evidence,
// so they are cleaned as a status page's text is. Each case was seen on
// loopback reaching models.json and the evidence: a terminal title (OSC)
// and a screen clear, a header injected with CR LF, bidi overrides, and a
// name cut at 100 bytes inside a character.
func TestOpenRouterCleansText(t *testing.T) {
	t.Parallel()
	long := "A" + strings.Repeat("é", 150) // byte 100 falls inside an é
	for _, tc := range []struct {
		name, provider, tag   string
		wantProvider, wantTag string
	}{
		{"a terminal title", "OpenAI\x1b]0;pwned\x07", "openai/\x1b]0;pwned\x07", "OpenAI ]0;pwned", "openai/ ]0;pwned"},
		{"a screen clear", "\x1b[2J\x1b[HOpenAI", "openai/us\x1b[2J", "[2J [HOpenAI", "openai/us [2J"},
		{"CR LF", "OpenAI\r\nX-Injected: 1", "openai/eu\r\n\r\nbody", "OpenAI X-Injected: 1", "openai/eu body"},
		{"bidi and zero-width characters", "Open\u202eIA\u200b", "openai/\u2066eu\u2069", "OpenIA", "openai/eu"},
		{"a character cut at the cap", long, long, "A" + strings.Repeat("é", 98) + "…", "A" + strings.Repeat("é", 98) + "…"},
		{"bytes that are no UTF-8", "Open\xffAI", "openai/\xfe\xffeu", "OpenAI", "openai/eu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The raw bytes go in after encoding: json.Marshal would escape
			// them or replace what is no UTF-8.
			body := realEndpoints(t, 1, func(_ int, ep map[string]any) { ep["provider_name"], ep["tag"] = "@PROVIDER@", "@TAG@" })
			body = bytes.Replace(body, []byte("@PROVIDER@"), jsonText(tc.provider), 1)
			body = bytes.Replace(body, []byte("@TAG@"), jsonText(tc.tag), 1)
			eps, err := readOpenRouter(t, reply{body: body}, "openai/gpt-4")
			if err != nil || len(eps) != 1 {
				t.Fatalf("%d endpoints, err = %v", len(eps), err)
			}
			if got := eps[0]; got.Provider != tc.wantProvider || got.Tag != tc.wantTag {
				t.Errorf("provider %q tag %q, want %q %q", got.Provider, got.Tag, tc.wantProvider, tc.wantTag)
			}
			for _, s := range []string{eps[0].Provider, eps[0].Tag} {
				if !cleanGatewayText(s) {
					t.Errorf("%q is not clean", s)
				}
			}
		})
	}
	t.Run("a name of only control characters is no name", func(t *testing.T) {
		body := realEndpoints(t, 1, func(_ int, ep map[string]any) { ep["provider_name"] = "\x1b\x07\r\n\u202e" })
		if _, err := readOpenRouter(t, reply{body: body}, "openai/gpt-4"); Kind(err) != api.FailureSchema {
			t.Errorf("err = %v, want a schema failure", err)
		}
	})
}

// jsonText is s as the inside of a JSON string: escaped where JSON needs
// it, its other bytes (controls aside) left raw, valid UTF-8 or not.
func jsonText(s string) []byte {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

// cleanGatewayText reports whether s is as the reader may return it:
// valid UTF-8 of at most 100 characters, without control or invisible
// format characters.
func cleanGatewayText(s string) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > 100 {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return false
		}
	}
	return true
}

func sameFigure(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func TestOpenRouterCancelled(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonAccept, map[string]reply{"/endpoints": {file: "openrouter-split.json"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadOpenRouter(ctx, &http.Client{}, srv.URL+"/endpoints", "anthropic/claude-sonnet-4.5")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func FuzzOpenRouter(f *testing.F) {
	addFixtures(f, "openrouter-*.json")
	f.Add(fixture(f, "real/openrouter-openapi-example-20260822.json"))
	f.Add(fixture(f, "real/openrouter-openapi-example-empty-20260822.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, model := range []string{"anthropic/claude-sonnet-4.5", "openai/gpt-4"} {
			eps, err := ParseOpenRouter(data, model)
			if err != nil {
				continue
			}
			if len(eps) > MaxGatewayEndpoints {
				t.Fatalf("%d endpoints", len(eps))
			}
			for _, ep := range eps {
				if ep.Provider == "" || !cleanGatewayText(ep.Provider) || !cleanGatewayText(ep.Tag) {
					t.Fatalf("provider %q tag %q", ep.Provider, ep.Tag)
				}
				for w, v := range ep.Uptime {
					if v != nil && (*v < 0 || *v > 100 || *v != *v) {
						t.Fatalf("%s uptime %v is not a percentage", w, *v)
					}
				}
			}
		}
	})
}

// TestOpenRouterStatusAndQuantization: each endpoint's status and
// quantization are read from OpenRouter's own example answer, made to say
// what live answers say (a "fast" variant, a status of -2); a status that
// is absent or no integer is 0, left unread.
func TestOpenRouterStatusAndQuantization(t *testing.T) {
	t.Parallel()
	edits := []func(ep map[string]any){
		func(map[string]any) {}, // the example as it is: status 0, fp16
		func(ep map[string]any) { ep["tag"], ep["status"], ep["quantization"] = "fireworks/fast", -2, "fp4" },
		func(ep map[string]any) { ep["status"] = -10 },
		func(ep map[string]any) { delete(ep, "status"); delete(ep, "quantization") },
		func(ep map[string]any) { ep["status"], ep["quantization"] = "active", 8 },
		func(ep map[string]any) { ep["status"] = -2.5 },
	}
	body := realEndpoints(t, len(edits), func(i int, ep map[string]any) { edits[i](ep) })
	eps, err := readOpenRouter(t, reply{body: body}, "openai/gpt-4")
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		tag, quantization string
		status            int
	}
	want := []got{{"openai", "fp16", 0}, {"fireworks/fast", "fp4", -2}, {"openai", "fp16", -10}, {"openai", "", 0}, {"openai", "", 0}, {"openai", "fp16", 0}}
	if len(eps) != len(want) {
		t.Fatalf("%d endpoints, want %d: the status never drops an endpoint", len(eps), len(want))
	}
	for i, w := range want {
		if g := (got{eps[i].Tag, eps[i].Quantization, eps[i].Status}); g != w {
			t.Errorf("endpoint %d = %+v, want %+v", i, g, w)
		}
	}
}
