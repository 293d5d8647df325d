package notify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestParseConfig reads a config file; every mistake is reported,
// by the destination's place, never with its URL.
func TestParseConfig(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SLACK_URL": "https://hooks.slack.com/services/T0/B0/SECRET"}
	getenv := func(k string) string { return env[k] }
	good := `{"destinations": [
		{"urlEnv": "SLACK_URL", "services": ["openai", "anthropic"], "minStatus": "partial_outage"},
		{"url": "https://ntfy.example/SECRETTOPIC", "kind": "ntfy", "surfaces": ["anthropic/app"], "models": ["anthropic/claude-sonnet-4.5"], "minSeverity": "major"},
		{"url": "https://hooks.example/SECRET"}
	]}`
	dests, err := ParseConfig(strings.NewReader(good), cat, getenv)
	if err != nil {
		t.Fatal(err)
	}
	want := []Destination{
		{URL: env["SLACK_URL"], Kind: Slack, Filter: Filter{Services: []string{"openai", "anthropic"}, MinStatus: api.PartialOutage}},
		{URL: "https://ntfy.example/SECRETTOPIC", Kind: Ntfy, Filter: Filter{Surfaces: []string{"anthropic/app"},
			Models: []string{"anthropic/claude-sonnet-4.5"}, MinSeverity: api.Major}},
		{URL: "https://hooks.example/SECRET", Kind: Webhook},
	}
	if fmt.Sprint(dests) != fmt.Sprint(want) {
		t.Errorf("destinations\n%+v, want\n%+v", dests, want)
	}
	if !NeedsSecret(nil, dests) || NeedsSecret([]string{chatURLs[Slack]}, dests[:2]) {
		t.Errorf("NeedsSecret: a Standard Webhook needs the secret, chat destinations do not")
	}

	bad := []struct {
		name, config, want string
	}{
		{"not JSON", `{`, "notify config: unexpected EOF"},
		{"an unknown field", `{"destinations": [{"url": "https://hooks.slack.com/services/SECRET", "service": ["openai"]}]}`, `unknown field "service"`},
		{"two values", `{"destinations": [{"url": "https://ntfy.sh/SECRET"}]} {}`, "more than one JSON value"},
		{"no destination", `{"destinations": []}`, `no "destinations"`},
		{"neither url nor urlEnv", `{"destinations": [{"kind": "slack"}]}`, `destinations[0]: give one of "url" and "urlEnv"`},
		{"both", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "urlEnv": "SLACK_URL"}]}`, `give one of`},
		{"an unset variable", `{"destinations": [{"urlEnv": "NOPE"}]}`, "NOPE, its urlEnv, is not set"},
		{"not http(s)", `{"destinations": [{"url": "ftp://hooks.example/SECRET"}]}`, "destinations[0]: ftp://hooks.example/…: not an absolute http(s) URL"},
		{"an unknown kind", `{"destinations": [{"url": "https://hooks.example/SECRET", "kind": "telegram"}]}`, `kind "telegram" is not one of webhook, slack, discord, teams, ntfy`},
		{"ntfy without a topic", `{"destinations": [{"url": "https://ntfy.sh/", "kind": "ntfy"}]}`, "names its topic"},
		{"a misspelt service", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "services": ["opneai"]}]}`, `"opneai" is no tracked service`},
		{"a surface without its service", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "surfaces": ["app"]}]}`, `"app" is no surface`},
		{"not a model id", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "models": ["Claude Sonnet"]}]}`, `"Claude Sonnet" is not a model id`},
		{"a bad minStatus", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "minStatus": "down"}]}`, `minStatus: "down"`},
		{"unknown as minStatus", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "minStatus": "unknown"}]}`, `minStatus: "unknown"`},
		{"a bad minSeverity", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "minSeverity": "high"}]}`, `minSeverity: "high"`},
		{"every mistake at once", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "minSeverity": "high"}, {"kind": "x"}]}`, "destinations[1]"},
	}
	for _, tt := range bad {
		_, err := ParseConfig(strings.NewReader(tt.config), cat, getenv)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: error %v, want one saying %q and no secret", tt.name, err, tt.want)
		}
	}
}
