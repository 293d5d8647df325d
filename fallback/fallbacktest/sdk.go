package fallbacktest

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// CompileSDK compiles format's program using body with tsc --noEmit
// against the SDKs in modules, and returns the compiler's complaints (nil
// when it accepts it). Without node or the SDKs it returns an error
// wrapping ErrNoSDK.
func CompileSDK(dir, modules, format string, body []byte) error {
	src, err := programs.ReadFile("sdk/" + format + ".ts")
	if err != nil {
		return fmt.Errorf("no program for %s: %w", format, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("%w: no node on PATH (the check needs Node.js; .ci/run installs the SDKs)", ErrNoSDK)
	}
	tsc := filepath.Join(modules, "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		return fmt.Errorf("%w: no TypeScript in %s: .ci/run installs the pinned SDKs (.ci/fallbacks), or set AISTATUS_FALLBACKS_NODE_MODULES", ErrNoSDK, modules)
	}
	tsconfig, err := programs.ReadFile("sdk/tsconfig.json")
	if err != nil {
		return err
	}
	program := strings.Replace(string(src), "CONFIG", strings.TrimSpace(string(body)), 1)
	for name, data := range map[string][]byte{"program.ts": []byte(program), "tsconfig.json": tsconfig} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	// The compiler resolves the packages from the program's folder up.
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	cmd := exec.Command(node, tsc, "-p", dir)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tsc refused the %s form: %v\n%s\n%s", format, err, out, program)
	}
	return nil
}

// CheckSDK fails t when the SDK of format does not accept body; it skips
// t, saying why, without node or the SDKs.
func CheckSDK(t testing.TB, format string, body []byte) {
	t.Helper()
	err := CompileSDK(t.TempDir(), SDKModules(), format, body)
	if errors.Is(err, ErrNoSDK) {
		t.Skip(err)
	}
	if err != nil {
		t.Error(err)
	}
}

// CheckPortkey holds a Portkey config to the keys Portkey documents for a
// fallback (https://portkey.ai/docs/product/ai-gateway/fallbacks and
// https://portkey.ai/docs/api-reference/config-object): strategy.mode
// fallback with on_status_codes, and targets of a provider with
// override_params.model; and it must fall back on 429, 503 and 529. The
// Portkey SDK's own type of a config is an open record, which CheckSDK
// cannot hold to more.
func CheckPortkey(t testing.TB, cfg map[string]any) {
	t.Helper()
	onlyKeys(t, "the config", cfg, []string{"strategy", "targets"})
	strategy, _ := cfg["strategy"].(map[string]any)
	onlyKeys(t, "strategy", strategy, []string{"mode", "on_status_codes"})
	if strategy["mode"] != "fallback" {
		t.Errorf("strategy.mode = %v, want fallback", strategy["mode"])
	}
	var codes []float64
	for _, c := range strategy["on_status_codes"].([]any) {
		codes = append(codes, c.(float64))
	}
	for _, want := range []float64{429, 503, 529} {
		if !slices.Contains(codes, want) {
			t.Errorf("on_status_codes %v lacks %v", codes, want)
		}
	}
	targets, _ := cfg["targets"].([]any)
	if len(targets) == 0 {
		t.Fatal("no targets")
	}
	for i, raw := range targets {
		target, _ := raw.(map[string]any)
		onlyKeys(t, fmt.Sprintf("targets[%d]", i), target, []string{"provider", "override_params"})
		params, _ := target["override_params"].(map[string]any)
		onlyKeys(t, fmt.Sprintf("targets[%d].override_params", i), params, []string{"model"})
		if p, _ := target["provider"].(string); p == "" || params["model"] == "" {
			t.Errorf("targets[%d] = %v: a provider and a model are required", i, target)
		}
	}
}
