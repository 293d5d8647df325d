package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/fallback"
	"github.com/aistatus/aistatus/fallback/fallbacktest"
	"github.com/aistatus/aistatus/snapshot"
)

// keyLike matches what a credential looks like: an OpenAI, Anthropic,
// OpenRouter, Google or Portkey key, an AWS access key id, a bearer token,
// or a long run of base64 (not a URL's path).
var keyLike = regexp.MustCompile(`sk-[A-Za-z0-9_-]{8,}|sk-ant-|AKIA[0-9A-Z]{12,}|AIza[0-9A-Za-z_-]{20,}|(?i:bearer\s+\S)|[A-Za-z0-9+=_-]{40,}`)

// TestFallbacks is the case over HTTP, validated against the
// contract: Claude Sonnet 4.5 at 60 % on Anthropic and 99.9 % on Bedrock
// at the gateway. The plan puts Bedrock first; the LiteLLM form parses as
// YAML with LiteLLM's documented keys, Bedrock first; the OpenRouter,
// Vercel and Portkey forms are the served plan as fallback.Planner.Render
// writes it, whose forms of this case the fallback package's TestSDKTypes
// compiles against the SDKs' types (a second TypeScript compile here cost
// 7 s of CPU and proved nothing more); none holds a key.
func TestFallbacks(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	get := func(query, wantType string) []byte {
		t.Helper()
		resp := ts.do(t, http.MethodGet, snapshot.PathFallbacks+"?"+query, nil)
		data := body(t, resp)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wantType || resp.Header.Get("ETag") == "" {
			t.Fatalf("%s: %d %s %q\n%s", query, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("ETag"), data)
		}
		if m := keyLike.Find(data); m != nil {
			t.Errorf("%s: %q looks like a key", query, m)
		}
		return data
	}
	model := "model=" + url.QueryEscape("anthropic/claude-sonnet-4.5")

	var plan api.FallbackPlan
	if err := json.Unmarshal(get(model, snapshot.ContentJSON), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Targets) < 2 || plan.Targets[0].Provider != "Amazon Bedrock" || plan.Targets[1].Provider != "Anthropic" ||
		plan.Targets[1].Status != api.PartialOutage || len(plan.Targets[0].Evidence) == 0 {
		t.Errorf("targets %+v: want Bedrock, then Anthropic in a partial outage", plan.Targets)
	}

	deps, fallbacks := fallbacktest.CheckLiteLLM(t, get(model+"&format=litellm", snapshot.ContentYAML))
	if deps[0].ModelName != "claude-sonnet-4.5" || !strings.HasPrefix(deps[0].Params["model"], "bedrock/anthropic.claude-sonnet-4-5") ||
		len(fallbacks) == 0 || fallbacks[0] != "claude-sonnet-4.5@anthropic" {
		t.Errorf("deployments %+v, fallbacks %v: want Bedrock first, then Anthropic", deps, fallbacks)
	}

	forms := map[string][]byte{}
	for _, f := range []string{api.FallbackOpenRouter, api.FallbackVercel, api.FallbackPortkey} {
		forms[f] = get(model+"&format="+f, snapshot.ContentJSON)
	}
	var portkey map[string]any
	if err := json.Unmarshal(forms[api.FallbackPortkey], &portkey); err != nil {
		t.Fatal(err)
	}
	fallbacktest.CheckPortkey(t, portkey)
	if !strings.Contains(string(forms[api.FallbackOpenRouter]), `"order": [
      "amazon-bedrock",`) {
		t.Errorf("openrouter: %s: want Bedrock first", forms[api.FallbackOpenRouter])
	}
	planner := fallback.New(ts.cat)
	for f, served := range forms {
		want, _, err := planner.Render(plan, f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(served, want) {
			t.Errorf("%s: served\n%s\nwant the plan as fallback renders it\n%s", f, served, want)
		}
	}
}

// TestFallbacksRefusals: a bad request is a 400 naming the parameter
// (validated against the contract), never a plan of nothing nor a 500.
func TestFallbacksRefusals(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, tc := range []struct{ query, param string }{
		{"", "model"},
		{"model=", "model"},
		{"model=anthropic%2Fclaude-sonnet-9", "model"},
		{"model=" + strings.Repeat("a", 300), "model"},
		{"q=", "q"},
		{"q=nothing+tracked+by+this+name", "q"},
		{"q=anthropic&model=anthropic%2Fclaude-sonnet-4.5", "q"},
		{"model=anthropic%2Fclaude-sonnet-4.5&format=", "format"},
		{"model=anthropic%2Fclaude-sonnet-4.5&format=yaml", "format"},
		{"q=anthropic&format=litellm", "format"},
		// GPT-5: the gateway could not be read, and the catalog names it
		// at no provider LiteLLM takes.
		{"model=openai%2Fgpt-5&format=litellm", "format"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			if p, ok := problemAt(t, ts, snapshot.PathFallbacks+"?"+tc.query, http.StatusBadRequest); ok && p.Param != tc.param {
				t.Errorf("param %q, want %q (%s)", p.Param, tc.param, p.Detail)
			}
		})
	}
	// q naming a service plans by service.
	resp := ts.do(t, http.MethodGet, snapshot.PathFallbacks+"?q=claude", nil)
	var plan api.FallbackPlan
	if err := json.Unmarshal(body(t, resp), &plan); err != nil || resp.StatusCode != http.StatusOK || plan.Service == nil || plan.Service.Slug != "anthropic" {
		t.Errorf("q=claude: %d %+v %v", resp.StatusCode, plan.Service, err)
	}
}
