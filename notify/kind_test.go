package notify

import (
	"testing"
)

// TestDetectKind: the kind follows from the hosts the services hand
// out webhook URLs on; anything else is a Standard Webhook.
func TestDetectKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want Kind
	}{
		{"https://hooks.slack.com/services/T0/B0/X", Slack},
		{"https://discord.com/api/webhooks/1/T", Discord},
		{"https://discordapp.com/api/webhooks/1/T", Discord},
		{"https://canary.discord.com/api/v10/webhooks/1/T", Discord},
		{"https://discord.com/channels/1/2", Webhook},
		{"https://prod-12.westeurope.logic.azure.com:443/workflows/x/triggers/manual/paths/invoke?sig=S", Teams},
		{"https://default0123.ab.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/x", Teams},
		{"https://example.webhook.office.com/webhookb2/x", Teams},
		{"https://ntfy.sh/alerts", Ntfy},
		{"https://ntfy.example/alerts", Webhook},
		{"https://hooks.example/slack", Webhook},
		{"://bad", Webhook},
	}
	for _, tt := range tests {
		if got := DetectKind(tt.url); got != tt.want {
			t.Errorf("DetectKind(%s) = %s, want %s", tt.url, got, tt.want)
		}
	}
}
