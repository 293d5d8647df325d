// Package fallbacktest checks the fallback plan's configurations the way
// each tool reads them: LiteLLM's config.yaml parsed back by a YAML parser
// and held to the keys LiteLLM documents, the JSON forms compiled against
// the TypeScript types of the tools' own npm packages (sdk.go), and the
// OpenRouter form sent through its SDKs to a recorder on loopback
// (wire.go).
// The fallback and serve tests both use it.
package fallbacktest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The keys of a LiteLLM proxy config.yaml this check allows, as LiteLLM
// documents them:
//   - https://docs.litellm.ai/docs/proxy/configs: the sections model_list,
//     router_settings, litellm_settings, general_settings and
//     environment_variables; a deployment's model_name and litellm_params
//     (model as provider/id, api_key, api_base) and model_info; credentials
//     as os.environ/NAME;
//   - https://docs.litellm.ai/docs/proxy/reliability: fallbacks, a list of
//     {model_name: [model_name, …]}, in router_settings or litellm_settings;
//   - https://docs.litellm.ai/docs/providers/bedrock: aws_access_key_id,
//     aws_secret_access_key, aws_region_name;
//   - https://docs.litellm.ai/docs/providers/vertex: vertex_project,
//     vertex_location;
//   - https://docs.litellm.ai/docs/providers: the provider prefixes of
//     litellm_params.model;
//   - https://docs.litellm.ai/docs/proxy/timeout: a deployment's timeout
//     and stream_timeout, in seconds;
//   - https://docs.litellm.ai/docs/routing: router_settings' allowed_fails
//     and cooldown_time (seconds), num_retries and timeout.
var (
	liteLLMSections   = []string{"model_list", "router_settings", "litellm_settings", "general_settings", "environment_variables"}
	liteLLMDeployment = []string{"model_name", "litellm_params", "model_info"}
	liteLLMParams     = []string{"model", "api_key", "api_base", "aws_access_key_id", "aws_secret_access_key", "aws_region_name",
		"vertex_project", "vertex_location", "timeout", "stream_timeout"}
	liteLLMRouter    = []string{"fallbacks", "allowed_fails", "cooldown_time", "num_retries", "timeout"}
	liteLLMProviders = []string{"anthropic", "bedrock", "vertex_ai", "gemini", "openai", "azure", "mistral", "deepseek", "groq", "xai"}
)

// environRef is LiteLLM's reference to an environment variable.
var environRef = regexp.MustCompile(`^os\.environ/[A-Z][A-Z0-9_]*$`)

// LiteLLMDeployment is one deployment of a parsed config.
type LiteLLMDeployment struct {
	ModelName string
	Params    map[string]string
}

// CheckLiteLLM parses body as YAML and fails t for any key LiteLLM does not
// document, a credential that is not an os.environ reference, a model that
// is not provider/id, or a fallback naming no deployment. It returns the
// deployments in order and the fallbacks of the first.
func CheckLiteLLM(t testing.TB, body []byte) (deployments []LiteLLMDeployment, fallbacks []string) {
	t.Helper()
	var cfg map[string]any
	if err := yaml.Unmarshal(body, &cfg); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, body)
	}
	onlyKeys(t, "the config", cfg, liteLLMSections)
	list, ok := cfg["model_list"].([]any)
	if !ok || len(list) == 0 {
		t.Fatalf("model_list is not a non-empty list: %v", cfg["model_list"])
	}
	names := map[string]bool{}
	for i, item := range list {
		d, ok := item.(map[string]any)
		if !ok {
			t.Fatalf("model_list[%d] is not a mapping", i)
		}
		onlyKeys(t, fmt.Sprintf("model_list[%d]", i), d, liteLLMDeployment)
		name, _ := d["model_name"].(string)
		params, _ := d["litellm_params"].(map[string]any)
		if name == "" || params == nil || names[name] {
			t.Fatalf("model_list[%d]: model_name %q (unique) and litellm_params are required", i, name)
		}
		names[name] = true
		onlyKeys(t, name+".litellm_params", params, liteLLMParams)
		dep := LiteLLMDeployment{ModelName: name, Params: map[string]string{}}
		for k, v := range params {
			s, _ := v.(string)
			switch n := v.(type) { // YAML's numbers: whole ones int, others float64
			case int:
				s = strconv.Itoa(n)
			case float64:
				s = strconv.FormatFloat(n, 'f', -1, 64)
			}
			dep.Params[k] = s
			switch {
			case k == "timeout" || k == "stream_timeout":
				if n, err := strconv.ParseFloat(s, 64); err != nil || n <= 0 {
					t.Errorf("%s: %s = %v, want seconds", name, k, v)
				}
			case k == "model":
				prefix, id, _ := strings.Cut(s, "/")
				if !slices.Contains(liteLLMProviders, prefix) || id == "" {
					t.Errorf("%s: model %q is not provider/id with one of LiteLLM's providers", name, s)
				}
			case k != "api_base" && !environRef.MatchString(s):
				t.Errorf("%s: %s = %q, want an os.environ/NAME reference, never a value", name, k, s)
			}
		}
		deployments = append(deployments, dep)
	}
	router, _ := cfg["router_settings"].(map[string]any)
	onlyKeys(t, "router_settings", router, liteLLMRouter)
	raw, ok := router["fallbacks"].([]any)
	if !ok {
		t.Fatalf("router_settings.fallbacks is not a list: %v", cfg["router_settings"])
	}
	for i, item := range raw {
		m, ok := item.(map[string]any)
		if !ok || len(m) != 1 {
			t.Fatalf("router_settings.fallbacks[%d] is not one {model_name: [...]}: %v", i, item)
		}
		for from, to := range m {
			list, _ := to.([]any)
			if !names[from] || len(list) == 0 {
				t.Errorf("fallbacks[%d]: %q is no deployment, or falls back to nothing", i, from)
			}
			for _, n := range list {
				s, _ := n.(string)
				if !names[s] {
					t.Errorf("fallbacks[%d]: %q is no deployment of model_list", i, s)
				}
				if from == deployments[0].ModelName {
					fallbacks = append(fallbacks, s)
				}
			}
		}
	}
	return deployments, fallbacks
}

func onlyKeys(t testing.TB, where string, m map[string]any, allowed []string) {
	t.Helper()
	for k := range m {
		if !slices.Contains(allowed, k) {
			t.Errorf("%s: key %q is not one the tool documents there (%s)", where, k, strings.Join(allowed, ", "))
		}
	}
}
