package feed

// The fake documents of the model gateways (models.Gateways): for each
// gateway, the smallest document in its own shape, so that reading it
// back is the reader's real translation. The loopback world of the tests
// (build/buildtest) serves them, and the table's test reads them back.

import (
	"strings"
)

// FakeOpenRouter is OpenRouter's endpoints document of modelID, with one
// endpoint at each of providers (tagged with its name in lower case), each
// with an uptime of 100 % over every window.
func FakeOpenRouter(modelID string, providers []string) []byte {
	endpoints := []map[string]any{}
	for _, p := range providers {
		endpoints = append(endpoints, map[string]any{"name": p + " | " + modelID, "provider_name": p,
			"tag": strings.ToLower(strings.ReplaceAll(p, " ", "-")), "status": 0,
			"uptime_last_5m": 100, "uptime_last_30m": 100, "uptime_last_1d": 100})
	}
	body, _ := jsonBody(map[string]any{"data": map[string]any{"id": modelID, "name": modelID, "endpoints": endpoints}})
	return body
}

// FakeOpenRouterModels is OpenRouter's model list of models: each entry's
// id, name, creation time and expiration date.
func FakeOpenRouterModels(models []ListedModel) []byte {
	data := []map[string]any{}
	for _, m := range models {
		var expires any
		if m.Expires != "" {
			expires = m.Expires
		}
		data = append(data, map[string]any{"id": m.ID, "canonical_slug": m.ID, "name": m.Name,
			"created": m.Created.Unix(), "expiration_date": expires,
			"links": map[string]any{"details": "/api/v1/models/" + m.ID + "/endpoints"}})
	}
	body, _ := jsonBody(map[string]any{"data": data})
	return body
}

// FakeVercel is Vercel AI Gateway's endpoints document of modelID, with
// one endpoint at each of providers (its id, as Vercel names them), each
// with an uptime of 100 % over every window and no latency figures.
func FakeVercel(modelID string, providers []string) []byte {
	endpoints := []map[string]any{}
	for _, p := range providers {
		endpoints = append(endpoints, map[string]any{"name": p + " | " + modelID, "provider_name": p, "status": 0,
			"uptime_last_15m": 100, "uptime_last_1h": 100, "uptime_last_1d": 100,
			"latency_last_1h": nil, "throughput_last_1h": nil})
	}
	body, _ := jsonBody(map[string]any{"data": map[string]any{"id": modelID, "name": modelID, "endpoints": endpoints}})
	return body
}

// FakeVercelModels is Vercel AI Gateway's model list of models: each
// entry's id, name, creation time and type (language); its list names no
// retirement date.
func FakeVercelModels(models []ListedModel) []byte {
	data := []map[string]any{}
	for _, m := range models {
		data = append(data, map[string]any{"id": m.ID, "object": "model", "name": m.Name,
			"created": m.Created.Unix(), "type": "language"})
	}
	body, _ := jsonBody(map[string]any{"data": data})
	return body
}
