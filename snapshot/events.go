package snapshot

import (
	"strings"

	"github.com/aistatus/aistatus/api"
)

// NewCloudEvent wraps c for the instance at baseURL (its site address).
func NewCloudEvent(c api.Change, baseURL string) api.CloudEvent {
	return api.CloudEvent{
		SpecVersion: "1.0", ID: api.ChangeIDString(c.ID), Source: strings.TrimRight(baseURL, "/") + APIBase,
		Type: api.CloudEventTypePrefix + string(c.Type), Subject: c.Subject(), Time: c.Time.UTC(),
		DataContentType: ContentJSON,
		Data:            api.EventData{Service: c.Service, Surface: c.Surface, OldStatus: c.OldStatus, NewStatus: c.NewStatus, Incident: c.Incident, Changed: c.Changed, Model: c.Model},
	}
}
