package mcpserver_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/fallback/fallbacktest"
	"github.com/aistatus/aistatus/serve/mcpserver"
)

// keyLike matches what a credential looks like (see serve's fallbacks
// test).
var keyLike = regexp.MustCompile(`sk-[A-Za-z0-9_-]{8,}|sk-ant-|AKIA[0-9A-Z]{12,}|AIza[0-9A-Za-z_-]{20,}|(?i:bearer\s+\S)|[A-Za-z0-9+=_-]{40,}`)

// TestPlanFallback: an agent asking where to send Claude Sonnet 4.5 while
// it sits at 60 % on Anthropic and 99.9 % on Bedrock gets Bedrock first,
// and with a format the LiteLLM config.yaml, which parses with LiteLLM's
// documented keys and holds no key; a bad request is a tool error that
// says what is wrong.
func TestPlanFallback(t *testing.T) {
	t.Parallel()
	cs := connect(t, mcpserver.New(mcpserver.InProcess(newServer(t, 0).APIHandler()), "test"))
	for _, tc := range []struct {
		name   string
		args   map[string]any
		format string
	}{
		{"the plan", map[string]any{"model": "anthropic/claude-sonnet-4.5"}, ""},
		{"with LiteLLM's config", map[string]any{"model": "anthropic/claude-sonnet-4.5", "format": "litellm"}, api.FallbackLiteLLM},
		{"with Portkey's config, by query", map[string]any{"query": "anthropic/claude-sonnet-4.5", "format": "portkey"}, api.FallbackPortkey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out mcpserver.FallbackResult
			text := call(t, cs, "plan_fallback", tc.args, &out)
			if len(out.Targets) < 2 || out.Targets[0].Provider != "Amazon Bedrock" || !strings.Contains(text, "1. Claude Sonnet 4.5 at Amazon Bedrock") {
				t.Errorf("targets %+v, text %q: want Bedrock first", out.Targets, text)
			}
			if (out.Config != "") != (tc.format != "") || out.Format != tc.format || !strings.Contains(text, out.Config) {
				t.Errorf("format %q, config %q: want the %q configuration, in the text too", out.Format, out.Config, tc.format)
			}
			if tc.format == api.FallbackLiteLLM {
				if deps, _ := fallbacktest.CheckLiteLLM(t, []byte(out.Config)); !strings.HasPrefix(deps[0].Params["model"], "bedrock/") {
					t.Errorf("first deployment %+v, want Bedrock", deps[0])
				}
			}
			if m := keyLike.FindString(text); m != "" {
				t.Errorf("%q looks like a key", m)
			}
		})
	}
	assertToolError(t, cs, "plan_fallback", map[string]any{"model": "anthropic/claude-sonnet-9"}, "not a watched model")
	assertToolError(t, cs, "plan_fallback", map[string]any{"query": "anthropic", "format": "litellm"}, "routes a model")
}
