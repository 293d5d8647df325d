package fallbacktest

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The programs that send a form through a tool's SDKs
// (wire/openrouter.mjs and wire/vercel.mjs say how).
//
//go:embed wire
var wirePrograms embed.FS

// OpenRouterWire is what arrived at the recorder: the request body each
// client sent, by its path (/openai, /sdk, /sdk-as-body), and the
// provider slugs @openrouter/sdk lists.
type OpenRouterWire struct {
	Bodies map[string]map[string]any
	Slugs  []string
}

// SendOpenRouter sends form, the openrouter form, through the openai SDK
// and @openrouter/sdk in modules to a recorder on loopback, and returns
// what arrived. Without node or the SDKs it returns an error wrapping
// ErrNoSDK.
func SendOpenRouter(dir, modules string, form []byte) (OpenRouterWire, error) {
	got := OpenRouterWire{Bodies: map[string]map[string]any{}}
	out, err := sendThrough(dir, modules, "openrouter.mjs", []string{"openai", "@openrouter/sdk"}, form,
		func(r *http.Request, body map[string]any) string {
			got.Bodies[strings.TrimSuffix(r.URL.Path, "/chat/completions")] = body
			// The least chat completion both SDKs accept as an answer.
			return `{"id":"gen-1","object":"chat.completion","created":1767225600,"model":"anthropic/claude-sonnet-4.5","system_fingerprint":"fp",` +
				`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"pong"}}],` +
				`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
		})
	if err != nil {
		return got, err
	}
	if err := json.Unmarshal(out, &got.Slugs); err != nil {
		return got, fmt.Errorf("the SDK's slugs: %v\n%s", err, out)
	}
	return got, nil
}

// VercelWire is what arrived at the recorder standing in for the AI
// Gateway: each request's path, the model its ai-language-model-id header
// named, and its body.
type VercelWire struct {
	Path, Model string
	Body        map[string]any
	Requests    int
}

// SendVercel sends form, the vercel form, through the AI SDK's
// generateText and @ai-sdk/gateway in modules to a recorder on loopback,
// and returns what arrived. Without node or the SDKs it returns an error
// wrapping ErrNoSDK.
func SendVercel(dir, modules string, form []byte) (VercelWire, error) {
	var got VercelWire
	_, err := sendThrough(dir, modules, "vercel.mjs", []string{"ai", "@ai-sdk/gateway"}, form,
		func(r *http.Request, body map[string]any) string {
			got.Requests++
			got.Path, got.Model, got.Body = r.URL.Path, r.Header.Get("ai-language-model-id"), body
			return `{"content":[{"type":"text","text":"pong"}],"finishReason":"stop","usage":{"inputTokens":1,"outputTokens":1}}`
		})
	return got, err
}

// sendThrough runs the wire program name with node, form in a file and a
// recorder on loopback as its arguments, the packages pkgs resolved from
// modules; record is given each request's JSON body, under a lock, and
// returns the JSON answer. It returns what the program printed.
func sendThrough(dir, modules, name string, pkgs []string, form []byte, record func(r *http.Request, body map[string]any) string) ([]byte, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: no node on PATH (the check needs Node.js; .ci/run installs the SDKs)", ErrNoSDK)
	}
	for _, pkg := range pkgs {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			return nil, fmt.Errorf("%w: no %s in %s: .ci/run installs the pinned SDKs (.ci/fallbacks), or set AISTATUS_FALLBACKS_NODE_MODULES", ErrNoSDK, pkg, modules)
		}
	}
	var mu sync.Mutex
	recorder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			http.Error(w, "not JSON", http.StatusBadRequest)
			return
		}
		mu.Lock()
		answer := record(r, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, answer)
	}))
	defer recorder.Close()

	program, err := wirePrograms.ReadFile("wire/" + name)
	if err != nil {
		return nil, err
	}
	script, formFile := filepath.Join(dir, name), filepath.Join(dir, "form.json")
	if err := os.WriteFile(script, program, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(formFile, form, 0o644); err != nil {
		return nil, err
	}
	// Node resolves the packages from the script's folder up.
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, recorder.URL, formFile)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node %s: %v\n%s", script, err, stderr.String())
	}
	return out, nil
}

// OpenRouter's chat request members (https://openrouter.ai/docs/api-reference/chat-completion)
// that a routed request may carry, and the provider preferences'
// (https://openrouter.ai/docs/features/provider-routing): the wire's
// snake_case names.
var (
	openRouterRequest  = []string{"model", "models", "messages", "provider", "stream", "route"}
	openRouterProvider = []string{"order", "allow_fallbacks", "require_parameters", "data_collection", "zdr", "only", "ignore",
		"quantizations", "sort", "max_price"}
)

// CheckOpenRouterBody fails t unless body, a request body as it arrived,
// holds only OpenRouter's documented members, its models are models, and
// its provider.order is order, each one of slugs; allowFallbacks is
// whether provider.allow_fallbacks is there, true.
func CheckOpenRouterBody(t testing.TB, where string, body map[string]any, models, order, slugs []string, allowFallbacks bool) {
	t.Helper()
	onlyKeys(t, where, body, openRouterRequest)
	if got := strings.Join(stringsOf(body["models"]), ","); got != strings.Join(models, ",") {
		t.Errorf("%s: models %s, want %s", where, got, strings.Join(models, ","))
	}
	provider, _ := body["provider"].(map[string]any)
	onlyKeys(t, where+".provider", provider, openRouterProvider)
	got := stringsOf(provider["order"])
	if !slices.Equal(got, order) {
		t.Errorf("%s: provider.order %v, want %v", where, got, order)
	}
	for _, slug := range got {
		if !slices.Contains(slugs, slug) {
			t.Errorf("%s: provider.order names %q, not one of OpenRouter's provider slugs", where, slug)
		}
	}
	if v, ok := provider["allow_fallbacks"]; ok != allowFallbacks || (ok && v != true) {
		t.Errorf("%s: provider.allow_fallbacks = %v (sent: %v), want sent: %v, true", where, v, ok, allowFallbacks)
	}
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, s := range list {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}

// CheckOpenRouterWire sends form through the SDKs (SendOpenRouter) and
// holds each body that arrived to OpenRouter's documented request: the
// openai SDK's and @openrouter/sdk's given its own shape carry models,
// provider.order and allow_fallbacks; @openrouter/sdk given the HTTP
// body's shape drops allow_fallbacks (docs/api.md warns of it). It skips
// t, saying why, without node or the SDKs, and returns the SDK's slugs.
func CheckOpenRouterWire(t testing.TB, form []byte) []string {
	t.Helper()
	wire, err := SendOpenRouter(t.TempDir(), SDKModules(), form)
	if errors.Is(err, ErrNoSDK) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Models   []string `json:"models"`
		Provider struct {
			Order []string `json:"order"`
		} `json:"provider"`
	}
	if err := json.Unmarshal(form, &sent); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path           string
		allowFallbacks bool
	}{{"/openai", true}, {"/sdk", true}, {"/sdk-as-body", false}} {
		body, ok := wire.Bodies[tc.path]
		if !ok {
			t.Errorf("%s: nothing arrived (got %v)", tc.path, wire.Bodies)
			continue
		}
		CheckOpenRouterBody(t, tc.path, body, sent.Models, sent.Provider.Order, wire.Slugs, tc.allowFallbacks)
	}
	return wire.Slugs
}

// CheckVercelWire sends form, the vercel form, through the AI SDK and
// @ai-sdk/gateway (SendVercel) and holds what arrived to what was sent:
// one call to the gateway's language model, naming form's model, whose
// providerOptions.gateway are form's, member for member (the order, the
// fallback models, the providers' timeouts). It skips t, saying why,
// without node or the SDKs.
func CheckVercelWire(t testing.TB, form []byte) {
	t.Helper()
	wire, err := SendVercel(t.TempDir(), SDKModules(), form)
	if errors.Is(err, ErrNoSDK) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Model           string `json:"model"`
		ProviderOptions struct {
			Gateway map[string]any `json:"gateway"`
		} `json:"providerOptions"`
	}
	if err := json.Unmarshal(form, &sent); err != nil {
		t.Fatal(err)
	}
	if wire.Requests != 1 || wire.Path != "/language-model" || wire.Model != sent.Model {
		t.Fatalf("%d requests, the last to %q for model %q; want one to /language-model for %q", wire.Requests, wire.Path, wire.Model, sent.Model)
	}
	po, _ := wire.Body["providerOptions"].(map[string]any)
	got, _ := json.Marshal(po["gateway"])
	want, _ := json.Marshal(sent.ProviderOptions.Gateway)
	if string(got) != string(want) {
		t.Errorf("providerOptions.gateway on the wire %s, want the form's %s", got, want)
	}
}
