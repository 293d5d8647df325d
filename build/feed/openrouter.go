package feed

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/aistatus/aistatus/api"
)

// GatewayEndpoint is one provider endpoint of a model, as a model gateway
// reports it from its own traffic.
type GatewayEndpoint struct {
	// Provider is the gateway's name of the provider ("Amazon Bedrock").
	Provider string
	// Tag is the gateway's id of the endpoint ("amazon-bedrock/us-east-1",
	// "fireworks/fast", "deepinfra/fp8"): the provider, then maybe its
	// region, a variant or a quantization.
	Tag string
	// Quantization is the endpoint's own ("fp8", "unknown"); "" when the
	// document gives none. A tag part naming it is not a region.
	Quantization string
	// Status is OpenRouter's status of the endpoint: 0 in every example of
	// an endpoint serving normally; OpenRouter's API description lists 0,
	// -1, -2, -3, -5 and -10 without saying what they mean (EndpointStatus,
	// https://openrouter.ai/docs/client-sdks/typescript/models/endpointstatus.md).
	// 0 also when the document gives none, or no integer.
	Status int
	// Uptime is the share of the gateway's requests that succeeded, in
	// percent, per window (OpenRouter's "5m", "30m", "1d"; Vercel's "15m",
	// "1h", "1d"); nil for a window with too little traffic to tell.
	Uptime map[string]*float64
	// LatencyP50Ms and LatencyP95Ms are the median and 95th percentile
	// time to first token of the gateway's requests over the last hour, in
	// milliseconds; ThroughputP50 and ThroughputP95 their output tokens a
	// second. nil is unknown (no recent traffic, or a gateway that does
	// not say: OpenRouter's endpoints document gives none), never 0.
	LatencyP50Ms, LatencyP95Ms   *float64
	ThroughputP50, ThroughputP95 *float64
	// Regions are where the endpoint runs, as the gateway names them
	// (Vercel's inference_regions); nil when it names none.
	Regions []GatewayRegion
}

// GatewayRegion is one region an endpoint runs in.
type GatewayRegion struct {
	// Scope is RegionZone or RegionSpecific.
	Scope string
	// Geo is the geography ("us", "eu").
	Geo string
	// ProviderRegion is the provider's own region ("us-east-1") of a
	// RegionSpecific scope; "" for a zone.
	ProviderRegion string
}

// The scopes of a GatewayRegion: anywhere in a geography, or one region of
// the provider's.
const (
	RegionZone     = "zone"
	RegionSpecific = "specific"
)

// openRouterWindows maps OpenRouter's uptime members to our window names.
var openRouterWindows = []uptimeWindow{
	{"uptime_last_5m", "5m"}, {"uptime_last_30m", "30m"}, {"uptime_last_1d", "1d"},
}

// MaxGatewayEndpoints bounds the endpoints of one gateway document. A real
// document lists a few dozen (one per provider, quantization and region);
// one listing more is broken or hostile (a 5 MiB body holds some 58 000
// endpoints, which became 34 MB of models.json) and fails as a document of
// the wrong shape, like any broken feed. It is not cut to the cap: which
// endpoints survived would be the document's choice, and a provider left
// out would vanish without a word.
const MaxGatewayEndpoints = 256

// MaxGatewayName caps a provider's name and an endpoint's tag, in
// characters.
const MaxGatewayName = 100

// ReadOpenRouter reads OpenRouter's public endpoints document of one model
// (GET /api/v1/models/{author}/{slug}/endpoints, no key). Its failures are
// classified like a feed's (Kind): a 429 is an http_status failure, and
// the model then reads unknown from this source.
func ReadOpenRouter(ctx context.Context, client *http.Client, url, modelID string) ([]GatewayEndpoint, error) {
	return readEndpoints(ctx, client, url, modelID, ParseOpenRouter)
}

// ParseOpenRouter reads an endpoints document. It must prove it is the
// document of modelID before any figure in it counts: data.id is the
// model's id, data.endpoints a list, and every endpoint names its provider
// and carries the uptime members (null is a value: too little traffic).
// A document without endpoints proves nothing (FailureEmpty), one with
// more than MaxGatewayEndpoints is refused (FailureSchema). An endpoint
// whose figure is not a percentage is skipped; the others stand.
func ParseOpenRouter(data []byte, modelID string) ([]GatewayEndpoint, error) {
	items, err := endpointItems(data, modelID)
	if err != nil {
		return nil, err
	}
	var out []GatewayEndpoint
	for i, item := range items {
		raw, provider, err := endpointObject(i, item)
		if err != nil {
			return nil, err
		}
		// The tag's region is published and printed in /check's evidence
		// as the provider's name is: cleaned as a status page's text is.
		var tag string
		_ = json.Unmarshal(raw["tag"], &tag) // optional: the region, when there is one
		var quantization string
		_ = json.Unmarshal(raw["quantization"], &quantization) // optional
		// Optional, and read only as an integer: a value of another kind
		// would be a change of the document's shape, whose meaning is not
		// known, and is left unread as the member was before.
		var status int
		_ = json.Unmarshal(raw["status"], &status)
		uptime, ok, err := endpointUptime(i, raw, openRouterWindows)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, GatewayEndpoint{Provider: provider, Tag: api.CleanText(tag, MaxGatewayName),
				Quantization: api.CleanText(quantization, MaxGatewayName), Status: status, Uptime: uptime})
		}
	}
	return out, nil
}
