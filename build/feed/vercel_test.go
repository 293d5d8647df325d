package feed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// The captured endpoints documents (testdata/real/README.md).
const (
	vercelV32         = "real/vercel-endpoints-deepseek-v3.2-20260709.json"
	vercelV32Thinking = "real/vercel-endpoints-deepseek-v3.2-thinking-20260709.json"
	vercelV32ID       = "deepseek/deepseek-v3.2"
	vercelThinkingID  = "deepseek/deepseek-v3.2-thinking"
)

func readVercel(t *testing.T, rep reply, modelID string) ([]GatewayEndpoint, error) {
	t.Helper()
	srv, _ := serve(t, jsonAccept, map[string]reply{"/endpoints": rep})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return ReadVercel(ctx, &http.Client{}, srv.URL+"/endpoints", modelID)
}

// vercelDoc is a captured document with each endpoint passed through edit
// (nil keeps it whole), and its endpoints list through list (nil keeps
// it). Figures survive the round trip: encoding/json writes the shortest
// form that reads back as the same float64.
func vercelDoc(t testing.TB, file string, edit func(i int, ep map[string]any), list func(eps []any) []any) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(fixture(t, file), &doc); err != nil {
		t.Fatal(err)
	}
	data := doc["data"].(map[string]any)
	eps := data["endpoints"].([]any)
	if edit != nil {
		for i, ep := range eps {
			edit(i, ep.(map[string]any))
		}
	}
	if list != nil {
		eps = list(eps)
	}
	data["endpoints"] = eps
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// vercelWant is what must be read of one endpoint; nil figures are
// unknown.
type vercelWant struct {
	provider          string
	up15m, up1h, up1d *float64
	lat50, lat95      *float64
	thr50, thr95      *float64
	regions           []GatewayRegion
	status            int
}

func (w vercelWant) check(t *testing.T, i int, got GatewayEndpoint) {
	t.Helper()
	if got.Provider != w.provider || got.Tag != w.provider || got.Status != w.status || got.Quantization != "" {
		t.Errorf("endpoint %d = %q tag %q status %d quantization %q, want %q status %d", i, got.Provider, got.Tag, got.Status, got.Quantization, w.provider, w.status)
	}
	for _, f := range []struct {
		name      string
		got, want *float64
	}{
		{"15m", got.Uptime["15m"], w.up15m}, {"1h", got.Uptime["1h"], w.up1h}, {"1d", got.Uptime["1d"], w.up1d},
		{"latency p50", got.LatencyP50Ms, w.lat50}, {"latency p95", got.LatencyP95Ms, w.lat95},
		{"throughput p50", got.ThroughputP50, w.thr50}, {"throughput p95", got.ThroughputP95, w.thr95},
	} {
		if !sameFigure(f.got, f.want) {
			t.Errorf("endpoint %d (%s) %s = %v, want %v", i, got.Provider, f.name, show(f.got), show(f.want))
		}
	}
	for _, window := range []string{"15m", "1h", "1d"} {
		if _, ok := got.Uptime[window]; !ok {
			t.Errorf("endpoint %d (%s) has no %s window", i, got.Provider, window)
		}
	}
	if fmt.Sprint(got.Regions) != fmt.Sprint(w.regions) {
		t.Errorf("endpoint %d (%s) regions %+v, want %+v", i, got.Provider, got.Regions, w.regions)
	}
}

func show(f *float64) string {
	if f == nil {
		return "unknown"
	}
	return fmt.Sprint(*f)
}

func TestVercel(t *testing.T) {
	t.Parallel()
	// The figures of the two captures, as Vercel served them.
	v32 := []vercelWant{
		{provider: "bedrock", up15m: f64(99.8554), up1h: f64(99.9222), up1d: f64(99.8012), lat50: f64(675), lat95: f64(2716.95), thr50: f64(36), thr95: f64(67.69999999999999)},
		{provider: "deepinfra", up15m: f64(100), up1h: f64(100), up1d: f64(99.9367), lat50: f64(771), lat95: f64(3277.0499999999993), thr50: f64(23), thr95: f64(29.85)},
		{provider: "deepseek", up15m: f64(100), up1h: f64(100), up1d: f64(99.9755), lat50: f64(992), lat95: f64(1390.7499999999998), thr50: f64(81), thr95: f64(99)},
		{provider: "novita", up15m: f64(100), up1h: f64(100), up1d: f64(100), lat50: f64(1424), lat95: f64(2092.299999999999), thr50: f64(28), thr95: f64(30)},
	}
	thinking := []vercelWant{
		{provider: "bedrock", up15m: f64(100), up1h: f64(100), up1d: f64(99.7929), lat50: f64(5242), lat95: f64(9318.5), thr50: f64(42), thr95: f64(69.3)},
		{provider: "deepinfra", up15m: f64(100), up1h: f64(100), up1d: f64(97.3822), lat50: f64(817.5), lat95: f64(2743.199999999997), thr50: f64(18), thr95: f64(31.89999999999999)},
		// No recent traffic: every figure null, read unknown, never 0.
		{provider: "fireworks"},
		{provider: "novita", up15m: f64(100), up1h: f64(100), up1d: f64(100), lat50: f64(1371.5), lat95: f64(1781.1499999999999), thr50: f64(29), thr95: f64(29.85)},
	}
	// edited is v32 with the first endpoint changed by change.
	edited := func(change func(w *vercelWant)) []vercelWant {
		out := append([]vercelWant(nil), v32...)
		change(&out[0])
		return out
	}
	first := func(edit func(ep map[string]any)) []byte {
		return vercelDoc(t, vercelV32, func(i int, ep map[string]any) {
			if i == 0 {
				edit(ep)
			}
		}, nil)
	}
	for _, tc := range []struct {
		name, model string
		rep         reply
		want        []vercelWant
		fail        api.FailureKind
	}{
		{name: "real: four providers of DeepSeek V3.2", model: vercelV32ID, rep: reply{file: vercelV32}, want: v32},
		{name: "real: a provider with no recent traffic reads unknown", model: vercelThinkingID, rep: reply{file: vercelV32Thinking}, want: thinking},
		{name: "the model id is matched without case", model: "DeepSeek/DeepSeek-V3.2", rep: reply{file: vercelV32}, want: v32},
		{name: "another model's document", model: vercelThinkingID, rep: reply{file: vercelV32}, fail: api.FailureSchema},
		{name: "an uptime that is no percentage drops its endpoint only", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) { ep["uptime_last_1h"] = 100.5 })}, want: v32[1:]},
		{name: "an uptime of another kind drops its endpoint only", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) { ep["uptime_last_15m"] = "100" })}, want: v32[1:]},
		{name: "an endpoint without an uptime member", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) { delete(ep, "uptime_last_1d") })}, fail: api.FailureSchema},
		{name: "an endpoint without its provider", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) { delete(ep, "provider_name") })}, fail: api.FailureSchema},
		{name: "an endpoint that is no object", model: vercelV32ID,
			rep: reply{body: vercelDoc(t, vercelV32, nil, func(eps []any) []any { return append(eps, "bedrock") })}, fail: api.FailureSchema},
		{name: "no time to first token or throughput members: unknown", model: vercelV32ID,
			rep:  reply{body: first(func(ep map[string]any) { delete(ep, "latency_last_1h"); delete(ep, "throughput_last_1h") })},
			want: edited(func(w *vercelWant) { w.lat50, w.lat95, w.thr50, w.thr95 = nil, nil, nil, nil })},
		{name: "a p95 below its p50 is no pair", model: vercelV32ID,
			rep:  reply{body: first(func(ep map[string]any) { ep["latency_last_1h"] = map[string]any{"p50": 2716.95, "p95": 675} })},
			want: edited(func(w *vercelWant) { w.lat50, w.lat95 = nil, nil })},
		{name: "a negative figure, or one past the bound, is unknown", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) {
				ep["latency_last_1h"] = map[string]any{"p50": -1, "p95": 2716.95}
				ep["throughput_last_1h"] = map[string]any{"p50": 36, "p95": 1e9}
			})},
			want: edited(func(w *vercelWant) { w.lat50, w.lat95, w.thr50, w.thr95 = nil, nil, nil, nil })},
		{name: "a pair of another shape is unknown", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) {
				ep["latency_last_1h"] = 675
				ep["throughput_last_1h"] = map[string]any{"p50": 36}
			})},
			want: edited(func(w *vercelWant) { w.lat50, w.lat95, w.thr50, w.thr95 = nil, nil, nil, nil })},
		{name: "a status other than 0 is read", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) { ep["status"] = -1 })}, want: edited(func(w *vercelWant) { w.status = -1 })},
		{name: "inference regions, as Vercel's reference describes them", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) {
				ep["inference_regions"] = []any{
					map[string]any{"scope": "zone", "geo_region": "us"},
					map[string]any{"scope": "specific", "geo_region": "eu", "provider_region": "eu-central-1"},
					map[string]any{"scope": "specific", "geo_region": "us"},         // a specific scope names its region
					map[string]any{"scope": "planet", "geo_region": "us"},           // no scope of the reference
					map[string]any{"scope": "zone", "provider_region": "us-east-1"}, // no geography
					"us-east-1",
				}
			})},
			want: edited(func(w *vercelWant) {
				w.regions = []GatewayRegion{{Scope: RegionZone, Geo: "us"}, {Scope: RegionSpecific, Geo: "eu", ProviderRegion: "eu-central-1"}}
			})},
		{name: "regions of another kind name none", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) { ep["inference_regions"] = "us" })}, want: v32},
		{name: "an endpoint past the region cap drops only itself", model: vercelV32ID,
			rep: reply{body: first(func(ep map[string]any) {
				regions := make([]any, MaxGatewayRegions+1)
				for i := range regions {
					regions[i] = map[string]any{"scope": "zone", "geo_region": "us"}
				}
				ep["inference_regions"] = regions
			})}, want: v32[1:]},
		{name: "no endpoints", model: vercelV32ID,
			rep: reply{body: vercelDoc(t, vercelV32, nil, func([]any) []any { return []any{} })}, fail: api.FailureEmpty},
		{name: "no endpoints list", model: vercelV32ID, rep: reply{body: []byte(`{"data":{"id":"deepseek/deepseek-v3.2"}}`)}, fail: api.FailureSchema},
		{name: "the model list instead", model: vercelV32ID, rep: reply{file: "real/vercel-models-deepseek-20260709.json"}, fail: api.FailureSchema},
		{name: "an error object with 200", model: vercelV32ID, rep: reply{body: []byte(`{"error":{"message":"Model not found","type":"model_not_found"}}`)}, fail: api.FailureSchema},
		{name: "rate-limited", model: vercelV32ID, rep: reply{code: http.StatusTooManyRequests, body: []byte(`{"error":{"message":"Rate limit exceeded","type":"rate_limit_exceeded"}}`)}, fail: api.FailureHTTP},
		{name: "a challenge page", model: vercelV32ID, rep: reply{file: "html-openrouter-challenge.html"}, fail: api.FailureChallenge},
		{name: "too large", model: vercelV32ID, rep: reply{body: oversized(fixture(t, vercelV32))}, fail: api.FailureTooLarge},
		{name: "null", model: vercelV32ID, rep: reply{body: []byte("null")}, fail: api.FailureSchema},
		{name: "a list", model: vercelV32ID, rep: reply{body: []byte("[]")}, fail: api.FailureSchema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			eps, err := readVercel(t, tc.rep, tc.model)
			checkEndpoints(t, eps, err, tc.fail, tc.want)
		})
	}
}

// TestVercelEndpointCap: a document lists at most MaxGatewayEndpoints
// endpoints, as OpenRouter's does; more fails as a document of the wrong
// shape, never cut.
func TestVercelEndpointCap(t *testing.T) {
	t.Parallel()
	repeat := func(n int) []byte {
		return vercelDoc(t, vercelV32, nil, func(eps []any) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = eps[i%len(eps)]
			}
			return out
		})
	}
	if eps, err := readVercel(t, reply{body: repeat(MaxGatewayEndpoints)}, vercelV32ID); err != nil || len(eps) != MaxGatewayEndpoints {
		t.Errorf("as many as the cap: %d endpoints, err = %v", len(eps), err)
	}
	eps, err := readVercel(t, reply{body: repeat(MaxGatewayEndpoints + 1)}, vercelV32ID)
	if Kind(err) != api.FailureSchema || !strings.Contains(fmt.Sprint(err), fmt.Sprintf("more than the %d", MaxGatewayEndpoints)) {
		t.Errorf("one past the cap: %d endpoints, err = %v, want a schema failure naming the cap", len(eps), err)
	}
}

// TestVercelCleansText: a provider's id and a region's names are published
// and printed in /check's evidence, so they are cleaned as OpenRouter's
// provider names are.
func TestVercelCleansText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"a terminal title", "bedrock\x1b]0;pwned\x07", "bedrock ]0;pwned"},
		{"CR LF", "bedrock\r\nX-Injected: 1", "bedrock X-Injected: 1"},
		{"bidi and zero-width characters", "bed\u202erock\u200b", "bedrock"},
		{"bytes that are no UTF-8", "bed\xffrock", "bedrock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := vercelDoc(t, vercelV32, func(i int, ep map[string]any) {
				if i == 0 {
					ep["provider_name"] = "@TEXT@"
					ep["inference_regions"] = []any{map[string]any{"scope": "specific", "geo_region": "@TEXT@", "provider_region": "@TEXT@"}}
				}
			}, nil)
			body = bytes.ReplaceAll(body, []byte("@TEXT@"), jsonText(tc.in))
			eps, err := readVercel(t, reply{body: body}, vercelV32ID)
			if err != nil || len(eps) != 4 {
				t.Fatalf("%d endpoints, err = %v", len(eps), err)
			}
			got := eps[0]
			if got.Provider != tc.want || got.Tag != tc.want || len(got.Regions) != 1 || got.Regions[0].Geo != tc.want || got.Regions[0].ProviderRegion != tc.want {
				t.Errorf("provider %q tag %q regions %+v, want %q", got.Provider, got.Tag, got.Regions, tc.want)
			}
		})
	}
	t.Run("a provider of only control characters is none", func(t *testing.T) {
		t.Parallel()
		body := vercelDoc(t, vercelV32, func(i int, ep map[string]any) {
			if i == 0 {
				ep["provider_name"] = "\x1b\x07\r\n\u202e"
			}
		}, nil)
		if _, err := readVercel(t, reply{body: body}, vercelV32ID); Kind(err) != api.FailureSchema {
			t.Errorf("err = %v, want a schema failure", err)
		}
	})
}

func FuzzVercel(f *testing.F) {
	f.Add(fixture(f, vercelV32))
	f.Add(fixture(f, vercelV32Thinking))
	f.Add([]byte(`{"data":{"id":"deepseek/deepseek-v3.2","endpoints":[{"provider_name":"bedrock","uptime_last_15m":null,"uptime_last_1h":1,"uptime_last_1d":2,` +
		`"latency_last_1h":{"p50":1,"p95":2},"inference_regions":[{"scope":"specific","geo_region":"us","provider_region":"us-east-1"}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, model := range []string{vercelV32ID, vercelThinkingID} {
			eps, err := ParseVercel(data, model)
			if err != nil {
				continue
			}
			if len(eps) > MaxGatewayEndpoints {
				t.Fatalf("%d endpoints", len(eps))
			}
			for _, ep := range eps {
				if ep.Provider == "" || !cleanGatewayText(ep.Provider) || ep.Tag != ep.Provider {
					t.Fatalf("provider %q tag %q", ep.Provider, ep.Tag)
				}
				for w, v := range ep.Uptime {
					if v != nil && (*v < 0 || *v > 100 || *v != *v) {
						t.Fatalf("%s uptime %v is not a percentage", w, *v)
					}
				}
				for _, pair := range [][2]*float64{{ep.LatencyP50Ms, ep.LatencyP95Ms}, {ep.ThroughputP50, ep.ThroughputP95}} {
					if (pair[0] == nil) != (pair[1] == nil) || (pair[0] != nil && (*pair[0] < 0 || *pair[1] < *pair[0])) {
						t.Fatalf("pair %v %v", show(pair[0]), show(pair[1]))
					}
				}
				if len(ep.Regions) > MaxGatewayRegions {
					t.Fatalf("%d regions", len(ep.Regions))
				}
				for _, r := range ep.Regions {
					if r.Geo == "" || !cleanGatewayText(r.Geo) || !cleanGatewayText(r.ProviderRegion) ||
						(r.Scope == RegionZone) != (r.ProviderRegion == "") || (r.Scope != RegionZone && r.Scope != RegionSpecific) {
						t.Fatalf("region %+v", r)
					}
				}
			}
		}
	})
}
