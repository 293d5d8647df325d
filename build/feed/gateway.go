package feed

// What every model gateway's reader shares: fetching a document and
// classifying a failure, the conditional read of a list and its envelope
// (data, a list of entries), and the envelope of an endpoints document
// (data.id, data.endpoints) with what every endpoint in it names
// (provider_name, uptime percentages), which OpenRouter and Vercel's AI
// Gateway write alike. Each gateway's file reads what is its own: the
// endpoints' other members, the names of its uptime windows, and the
// list's entries.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/aistatus/aistatus/api"
)

// readEndpoints fetches a gateway's endpoints document of modelID at url
// and parses it; a parse failure is classified (a challenge, a document of
// the wrong shape) and names the URL.
func readEndpoints(ctx context.Context, client *http.Client, url, modelID string,
	parse func(data []byte, modelID string) ([]GatewayEndpoint, error)) ([]GatewayEndpoint, error) {
	data, header, err := fetch(ctx, client, url, "application/json")
	if err != nil {
		return nil, err
	}
	eps, err := parse(data, modelID)
	if err != nil {
		return nil, notDocument(url, data, header, err)
	}
	return eps, nil
}

// readModelList reads a gateway's model list at url, conditionally with
// the validators of the previous read: a 304 is a read of the same list
// (Unchanged).
func readModelList(ctx context.Context, client *http.Client, url string, v Validators,
	parse func(data []byte) ([]ListedModel, error)) (ModelList, error) {
	models, got, unchanged, err := readIfChanged(ctx, client, url, "application/json", v, parse)
	if err != nil {
		return ModelList{}, err
	}
	return ModelList{Models: models, Validators: got, Unchanged: unchanged}, nil
}

// listItems proves that a document is a model list — data is a list —
// and returns its entries undecoded, so that their count is checked first:
// none proves nothing (FailureEmpty), more than MaxListedModels is refused
// (FailureSchema). Each gateway's file reads the entries.
func listItems(data []byte) ([]json.RawMessage, error) {
	var doc struct {
		Data *[]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	switch {
	case doc.Data == nil:
		return nil, failure(api.FailureSchema, "no data list: not a model list")
	case len(*doc.Data) == 0:
		return nil, failure(api.FailureEmpty, "data is empty: the list is cut, or lists nothing")
	case len(*doc.Data) > MaxListedModels:
		return nil, failure(api.FailureSchema, "data lists %d models, more than the %d a model list may hold", len(*doc.Data), MaxListedModels)
	}
	return *doc.Data, nil
}

// endpointItems proves that an endpoints document is modelID's before any
// figure in it counts — data.id is the model's id, data.endpoints a list
// — and returns the endpoints undecoded, so that their count is checked
// first: none proves nothing (FailureEmpty), more than MaxGatewayEndpoints
// is refused (FailureSchema).
func endpointItems(data []byte, modelID string) ([]json.RawMessage, error) {
	var doc struct {
		Data *struct {
			ID        *string            `json:"id"`
			Endpoints *[]json.RawMessage `json:"endpoints"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	switch {
	case doc.Data == nil:
		return nil, failure(api.FailureSchema, "no data object: not an endpoints document")
	case doc.Data.ID == nil || !strings.EqualFold(*doc.Data.ID, modelID):
		return nil, failure(api.FailureSchema, "data.id is not %q: not this model's endpoints document", modelID)
	case doc.Data.Endpoints == nil:
		return nil, failure(api.FailureSchema, "no data.endpoints list")
	case len(*doc.Data.Endpoints) == 0:
		return nil, failure(api.FailureEmpty, "data.endpoints is empty: no provider serves %q, or the document is cut", modelID)
	case len(*doc.Data.Endpoints) > MaxGatewayEndpoints:
		return nil, failure(api.FailureSchema, "data.endpoints lists %d endpoints, more than the %d a model's document may hold",
			len(*doc.Data.Endpoints), MaxGatewayEndpoints)
	}
	return *doc.Data.Endpoints, nil
}

// uptimeWindow maps a gateway's uptime member to our window name.
type uptimeWindow struct{ member, window string }

// endpointObject decodes data.endpoints[i], which must be an object, and
// reads the provider it names (provider_name), which it must. The name is
// published and printed in /check's evidence: cleaned as a status page's
// text is, so that no escape sequence, line break or cut character passes.
func endpointObject(i int, item json.RawMessage) (map[string]json.RawMessage, string, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(item, &raw); err != nil {
		return nil, "", failure(api.FailureSchema, "data.endpoints[%d] is not an object", i)
	}
	var provider string
	_ = json.Unmarshal(raw["provider_name"], &provider)
	if provider = api.CleanText(provider, MaxGatewayName); provider == "" {
		return nil, "", failure(api.FailureSchema, "data.endpoints[%d] has no provider_name", i)
	}
	return raw, provider, nil
}

// endpointUptime reads the uptime members of data.endpoints[i] (raw) into
// our windows. Each member must be present (FailureSchema), null being a
// value: too little traffic to tell. A figure that is not a percentage
// makes the endpoint's figures mean nothing: ok is false, and the endpoint
// is to be skipped, the others kept.
func endpointUptime(i int, raw map[string]json.RawMessage, windows []uptimeWindow) (uptime map[string]*float64, ok bool, err error) {
	uptime = map[string]*float64{}
	for _, w := range windows {
		v, present := raw[w.member]
		if !present {
			return nil, false, failure(api.FailureSchema, "data.endpoints[%d] has no %s", i, w.member)
		}
		f, sane := percentage(v)
		if !sane {
			return nil, false, nil
		}
		uptime[w.window] = f
	}
	return uptime, true, nil
}

// percentage reads a figure in percent: null (nil), or a number from 0 to
// 100; anything else is no percentage (false).
func percentage(v json.RawMessage) (*float64, bool) {
	var f *float64
	if json.Unmarshal(v, &f) != nil || (f != nil && (math.IsNaN(*f) || *f < 0 || *f > 100)) {
		return nil, false
	}
	return f, true
}
