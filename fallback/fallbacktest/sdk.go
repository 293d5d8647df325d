package fallbacktest

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The programs that use each JSON form (sdk/<format>.ts, CONFIG standing
// for the form) and the compiler's settings.
//
//go:embed sdk
var programs embed.FS

// ErrNoSDK says the SDKs are not installed; its message says where they
// were looked for and how to install them.
var ErrNoSDK = errors.New("no SDKs")

// SDKModules is the node_modules folder holding the pinned SDKs and
// TypeScript (.ci/fallbacks/package.json): $AISTATUS_FALLBACKS_NODE_MODULES,
// else where .ci/run installs them.
func SDKModules() string {
	if dir := os.Getenv("AISTATUS_FALLBACKS_NODE_MODULES"); dir != "" {
		return dir
	}
	cache, _ := os.UserCacheDir()
	return filepath.Join(cache, "aistatus-ci", "fallbacks", "node_modules")
}

// CompileSDKs compiles, in one run of tsc --noEmit against the SDKs in
// modules, a program per form: forms maps a name, "<format>" or
// "<format>.<anything>", to the form's body, used by that format's program
// (sdk/<format>.ts). It returns the compiler's complaints per name, none
// for a form it accepts. Without node or the SDKs it returns an error
// wrapping ErrNoSDK.
func CompileSDKs(dir, modules string, forms map[string][]byte) (map[string]string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: no node on PATH (the check needs Node.js; .ci/run installs the SDKs)", ErrNoSDK)
	}
	tsc := filepath.Join(modules, "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		return nil, fmt.Errorf("%w: no TypeScript in %s: .ci/run installs the pinned SDKs (.ci/fallbacks), or set AISTATUS_FALLBACKS_NODE_MODULES", ErrNoSDK, modules)
	}
	tsconfig, err := programs.ReadFile("sdk/tsconfig.json")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), tsconfig, 0o644); err != nil {
		return nil, err
	}
	for name, body := range forms {
		format, _, _ := strings.Cut(name, ".")
		src, err := programs.ReadFile("sdk/" + format + ".ts")
		if err != nil {
			return nil, fmt.Errorf("no program for %s: %w", format, err)
		}
		program := strings.Replace(string(src), "CONFIG", strings.TrimSpace(string(body)), 1)
		if err := os.WriteFile(filepath.Join(dir, name+".ts"), []byte(program), 0o644); err != nil {
			return nil, err
		}
	}
	// The compiler resolves the packages from the programs' folder up.
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		return nil, err
	}
	cmd := exec.Command(node, tsc, "-p", dir, "--pretty", "false")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	complaints := map[string]string{}
	for line := range strings.SplitSeq(string(out), "\n") {
		if file, _, found := strings.Cut(line, ".ts("); found {
			if _, ok := forms[file]; ok {
				complaints[file] += line + "\n"
				continue
			}
		}
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, " ") {
			complaints[""] += line + "\n"
		}
	}
	if err != nil && len(complaints) == 0 {
		return nil, fmt.Errorf("tsc failed: %v\n%s", err, out)
	}
	return complaints, nil
}

// CheckSDKs fails t for each JSON form (by format) its SDK does not
// accept; it skips t, saying why, without node or the SDKs.
func CheckSDKs(t testing.TB, forms map[string][]byte) {
	t.Helper()
	complaints, err := CompileSDKs(t.TempDir(), SDKModules(), forms)
	if errors.Is(err, ErrNoSDK) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range complaints {
		t.Errorf("tsc refused the %s form:\n%s\n%s", name, c, forms[name])
	}
}

// The keys of a Portkey config this check allows, as Portkey documents
// them (https://portkey.ai/docs/api-reference/config-object): a strategy's
// mode, on_status_codes and cb_config
// (https://portkey.ai/docs/product/ai-gateway/circuit-breaker:
// failure_threshold, cooldown_interval, at least 30 s, and
// failure_status_codes); a target's provider, override_params.model,
// request_timeout in milliseconds
// (https://portkey.ai/docs/product/ai-gateway/request-timeouts) and its
// credentials: api_key, Bedrock's aws_access_key_id, aws_secret_access_key
// and aws_region, Vertex AI's vertex_project_id and vertex_region.
var (
	portkeyStrategy    = []string{"mode", "on_status_codes", "cb_config"}
	portkeyBreaker     = []string{"failure_threshold", "cooldown_interval", "failure_status_codes"}
	portkeyTarget      = []string{"provider", "override_params", "request_timeout", "api_key", "aws_access_key_id", "aws_secret_access_key", "aws_region", "vertex_project_id", "vertex_region"}
	portkeyCredentials = map[string][]string{
		"bedrock":   {"aws_access_key_id", "aws_secret_access_key", "aws_region"},
		"vertex-ai": {"vertex_project_id", "vertex_region", "api_key"},
	}
)

// envRef is the reference to an environment variable a Portkey target's
// credential is written as, for its sender to substitute.
var envRef = regexp.MustCompile(`^\$\{[A-Z][A-Z0-9_]*\}$`)

// CheckPortkey holds a Portkey config to the keys Portkey documents for a
// fallback (https://portkey.ai/docs/product/ai-gateway/fallbacks and the
// pages cited above): strategy.mode fallback with on_status_codes, which
// must hold 408 (the gateway's answer to a target past its
// request_timeout), 429, 503 and 529, and a circuit breaker; targets of a
// provider with override_params.model, a positive request_timeout, and
// the provider's credentials, each a ${NAME} reference, never a value. The
// Portkey SDK's own type of a config is an open record, which CheckSDK
// cannot hold to more.
func CheckPortkey(t testing.TB, cfg map[string]any) {
	t.Helper()
	onlyKeys(t, "the config", cfg, []string{"strategy", "targets"})
	strategy, _ := cfg["strategy"].(map[string]any)
	onlyKeys(t, "strategy", strategy, portkeyStrategy)
	if strategy["mode"] != "fallback" {
		t.Errorf("strategy.mode = %v, want fallback", strategy["mode"])
	}
	codes := numbers(strategy["on_status_codes"])
	for _, want := range []float64{408, 429, 503, 529} {
		if !slices.Contains(codes, want) {
			t.Errorf("on_status_codes %v lacks %v", codes, want)
		}
	}
	breaker, _ := strategy["cb_config"].(map[string]any)
	onlyKeys(t, "strategy.cb_config", breaker, portkeyBreaker)
	if n, _ := breaker["failure_threshold"].(float64); n < 1 {
		t.Errorf("cb_config.failure_threshold = %v, want a count", breaker["failure_threshold"])
	}
	if ms, _ := breaker["cooldown_interval"].(float64); ms < 30000 {
		t.Errorf("cb_config.cooldown_interval = %v, want at least Portkey's least, 30000 ms", breaker["cooldown_interval"])
	}
	targets, _ := cfg["targets"].([]any)
	if len(targets) == 0 {
		t.Fatal("no targets")
	}
	for i, raw := range targets {
		where := fmt.Sprintf("targets[%d]", i)
		target, _ := raw.(map[string]any)
		onlyKeys(t, where, target, portkeyTarget)
		params, _ := target["override_params"].(map[string]any)
		onlyKeys(t, where+".override_params", params, []string{"model"})
		provider, _ := target["provider"].(string)
		if provider == "" || params["model"] == "" {
			t.Errorf("%s = %v: a provider and a model are required", where, target)
		}
		if ms, _ := target["request_timeout"].(float64); ms <= 0 {
			t.Errorf("%s: request_timeout = %v, want milliseconds", where, target["request_timeout"])
		}
		want, ok := portkeyCredentials[provider]
		if !ok {
			want = []string{"api_key"}
		}
		for _, k := range want {
			if _, ok := target[k]; !ok {
				t.Errorf("%s (%s): no %s: the gateway cannot reach the provider without it", where, provider, k)
			}
		}
		for _, k := range portkeyTarget[3:] {
			if v, ok := target[k]; ok {
				if s, _ := v.(string); !envRef.MatchString(s) {
					t.Errorf("%s: %s = %q, want a ${NAME} reference, never a value", where, k, v)
				}
			}
		}
	}
}

func numbers(v any) []float64 {
	list, _ := v.([]any)
	var out []float64
	for _, n := range list {
		f, _ := n.(float64)
		out = append(out, f)
	}
	return out
}
