package feed

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
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

func TestOpenRouter(t *testing.T) {
	type want struct {
		provider, tag string
		up5, up30     *float64
	}
	for _, tc := range []struct {
		name, model string
		rep         reply
		want        []want
		fail        snapshot.FailureKind
	}{
		{name: "real: OpenRouter's own example answer", model: "openai/gpt-4",
			rep:  reply{file: "real/openrouter-openapi-example-20260822.json"},
			want: []want{{"OpenAI", "openai", f64(100), f64(99.5)}}},
		{name: "real: the example with no endpoints proves nothing", model: "openai/gpt-4",
			rep: reply{file: "real/openrouter-openapi-example-empty-20260822.json"}, fail: snapshot.FailureEmpty},
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
			rep: reply{file: "openrouter-wrong-model.json"}, fail: snapshot.FailureSchema},
		{name: "an endpoint without its uptime member", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-missing-uptime.json"}, fail: snapshot.FailureSchema},
		{name: "an endpoint without its provider", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-no-provider.json"}, fail: snapshot.FailureSchema},
		{name: "no endpoints", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-empty.json"}, fail: snapshot.FailureEmpty},
		{name: "an error object with 200", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "openrouter-no-data.json"}, fail: snapshot.FailureSchema},
		{name: "rate-limited", model: "anthropic/claude-sonnet-4.5",
			rep: reply{code: http.StatusTooManyRequests, body: []byte(`{"error":{"code":429,"message":"Rate limit exceeded"}}`)}, fail: snapshot.FailureHTTP},
		{name: "a challenge page", model: "anthropic/claude-sonnet-4.5",
			rep: reply{file: "html-openrouter-challenge.html"}, fail: snapshot.FailureChallenge},
		{name: "too large", model: "openai/gpt-4",
			rep: reply{body: oversized(fixture(t, "real/openrouter-openapi-example-20260822.json"))}, fail: snapshot.FailureTooLarge},
		{name: "null", model: "openai/gpt-4", rep: reply{body: []byte("null")}, fail: snapshot.FailureSchema},
		{name: "a list", model: "openai/gpt-4", rep: reply{body: []byte("[]")}, fail: snapshot.FailureSchema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eps, err := readOpenRouter(t, tc.rep, tc.model)
			if tc.fail != "" {
				if err == nil || Kind(err) != tc.fail {
					t.Fatalf("err = %v (kind %q), want a %q failure", err, Kind(err), tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(eps) != len(tc.want) {
				t.Fatalf("got %d endpoints %+v, want %d", len(eps), eps, len(tc.want))
			}
			for i, w := range tc.want {
				got := eps[i]
				if got.Provider != w.provider || got.Tag != w.tag || !sameFigure(got.Uptime["5m"], w.up5) || !sameFigure(got.Uptime["30m"], w.up30) {
					t.Errorf("endpoint %d = %s %s 5m=%v 30m=%v, want %+v", i, got.Provider, got.Tag, got.Uptime["5m"], got.Uptime["30m"], w)
				}
				if _, ok := got.Uptime["1d"]; !ok {
					t.Errorf("endpoint %d has no 1d window", i)
				}
			}
		})
	}
}

func sameFigure(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func TestOpenRouterCancelled(t *testing.T) {
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
			for _, ep := range eps {
				if strings.TrimSpace(ep.Provider) == "" || len(ep.Provider) > 100 {
					t.Fatalf("provider %q", ep.Provider)
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
