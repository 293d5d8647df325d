package notify

import (
	"net/url"
	"slices"
	"strings"
)

// Kind is the payload format a notify destination takes.
type Kind string

// The kinds of destination. A Standard Webhook gets one signed CloudEvent
// per change; the others are chat and push services, which get one message
// per build in their own documented format (docs/operations.md).
const (
	Webhook Kind = "webhook"
	Slack   Kind = "slack"
	Discord Kind = "discord"
	Teams   Kind = "teams"
	Ntfy    Kind = "ntfy"
)

// Kinds lists every kind, as a config file names them.
var Kinds = []Kind{Webhook, Slack, Discord, Teams, Ntfy}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// chat reports whether k gets one coalesced message per build rather than
// one signed event per change.
func (k Kind) chat() bool { return k != Webhook }

// DetectKind is the kind of a destination given by its URL alone:
// the hosts Slack, Discord, Microsoft Teams Workflows and ntfy.sh hand out
// webhook URLs on. Any other URL, a self-hosted ntfy server included, is a
// Standard Webhook unless a config file names its kind. An unparsable URL
// is a Standard Webhook too, refused later with the error that says why.
func DetectKind(raw string) Kind {
	u, err := url.Parse(raw)
	if err != nil {
		return Webhook
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "hooks.slack.com" || host == "hooks.slack-gov.com":
		return Slack
	case (host == "discord.com" || host == "discordapp.com" || strings.HasSuffix(host, ".discord.com")) &&
		strings.HasPrefix(u.Path, "/api/") && strings.Contains(u.Path, "/webhooks/"):
		return Discord
	case strings.HasSuffix(host, ".logic.azure.com") || strings.HasSuffix(host, ".api.powerplatform.com") ||
		strings.HasSuffix(host, ".webhook.office.com"):
		return Teams
	case host == "ntfy.sh":
		return Ntfy
	}
	return Webhook
}
