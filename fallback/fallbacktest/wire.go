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

// The program that sends the openrouter form through the SDKs
// (wire/openrouter.mjs says how).
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
	node, err := exec.LookPath("node")
	if err != nil {
		return OpenRouterWire{}, fmt.Errorf("%w: no node on PATH (the check needs Node.js; .ci/run installs the SDKs)", ErrNoSDK)
	}
	for _, pkg := range []string{"openai", "@openrouter/sdk"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			return OpenRouterWire{}, fmt.Errorf("%w: no %s in %s: .ci/run installs the pinned SDKs (.ci/fallbacks), or set AISTATUS_FALLBACKS_NODE_MODULES", ErrNoSDK, pkg, modules)
		}
	}
	var mu sync.Mutex
	got := OpenRouterWire{Bodies: map[string]map[string]any{}}
	recorder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			http.Error(w, "not JSON", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got.Bodies[strings.TrimSuffix(r.URL.Path, "/chat/completions")] = body
		mu.Unlock()
		// The least chat completion both SDKs accept as an answer.
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"gen-1","object":"chat.completion","created":1767225600,"model":"anthropic/claude-sonnet-4.5","system_fingerprint":"fp",`+
			`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"pong"}}],`+
			`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer recorder.Close()

	program, err := wirePrograms.ReadFile("wire/openrouter.mjs")
	if err != nil {
		return got, err
	}
	script, formFile := filepath.Join(dir, "openrouter.mjs"), filepath.Join(dir, "form.json")
	if err := os.WriteFile(script, program, 0o644); err != nil {
		return got, err
	}
	if err := os.WriteFile(formFile, form, 0o644); err != nil {
		return got, err
	}
	// Node resolves the packages from the script's folder up.
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		return got, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, recorder.URL, formFile)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return got, fmt.Errorf("node %s: %v\n%s", script, err, stderr.String())
	}
	if err := json.Unmarshal(out, &got.Slugs); err != nil {
		return got, fmt.Errorf("the SDK's slugs: %v\n%s", err, out)
	}
	return got, nil
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
