package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// ParseWebhookSecret decodes a Standard Webhooks secret, "whsec_" followed
// by the base64 of at least 24 random bytes.
func ParseWebhookSecret(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, errors.New(`notify secret must start with "whsec_" (Standard Webhooks)`)
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("notify secret: %w", err)
	}
	if len(key) < 24 {
		return nil, fmt.Errorf("notify secret has %d bytes, want at least 24", len(key))
	}
	return key, nil
}

// SignWebhook is the Standard Webhooks signature of a message:
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)).
func SignWebhook(key []byte, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, timestamp)
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// work delivers one Standard Webhook receiver's queue in order.
func (n *Notifier) work(r *receiver) {
	for c := range r.queue {
		if n.ctx.Err() != nil || r.gone.Load() {
			continue // shutting down, or the receiver left: drain without delivering
		}
		body, err := json.Marshal(snapshot.NewCloudEvent(c, n.opts.BaseURL))
		if err != nil {
			n.opts.Log.Error().Err(err).Int64("change", c.ID).Msg("webhook: change not encodable")
			continue
		}
		// webhook-id stays the same across retries, so receivers can drop
		// duplicates; it is the change id, also the CloudEvent's id.
		n.deliver(r, outgoing{ids: []int64{c.ID}, body: body, contentType: "application/cloudevents+json",
			target: r.url, webhookID: api.ChangeIDString(c.ID)})
	}
}
