package feed

import (
	"context"
	"encoding/json"
	"math"
	"net/http"

	"github.com/aistatus/aistatus/api"
)

// vercelWindows maps Vercel's uptime members to our window names.
var vercelWindows = []uptimeWindow{
	{"uptime_last_15m", "15m"}, {"uptime_last_1h", "1h"}, {"uptime_last_1d", "1d"},
}

// The bounds of Vercel's per-endpoint figures. A time to first token of
// more than an hour, or a throughput of more than 100 000 tokens a second,
// is no measurement of a request (the captured p95s are 1.4 s to 9.3 s and
// 29 to 105 tokens/s): such a pair reads unknown, as null does.
const (
	maxVercelLatencyMs  = 3_600_000
	maxVercelThroughput = 100_000
)

// MaxGatewayRegions bounds the inference regions of one endpoint. An
// endpoint with more is broken or hostile and is skipped, the others
// kept.
const MaxGatewayRegions = 32

// ReadVercel reads Vercel AI Gateway's public endpoints document of one
// model (GET /v1/models/{creator}/{model}/endpoints, no key). Its failures
// are classified like a feed's (Kind), as ReadOpenRouter's are.
func ReadVercel(ctx context.Context, client *http.Client, url, modelID string) ([]GatewayEndpoint, error) {
	return readEndpoints(ctx, client, url, modelID, ParseVercel)
}

// ParseVercel reads an endpoints document (fields per Vercel's REST API
// reference, "Get model endpoints"). It proves itself as OpenRouter's
// does: data.id is modelID, data.endpoints a list of at most
// MaxGatewayEndpoints, and every endpoint names its provider
// (provider_name: "bedrock", "vertexAnthropic") and carries the three
// uptime members, null being a value (no recent traffic). An endpoint
// whose uptime is not a percentage is skipped, as is one listing more than
// MaxGatewayRegions regions; the others stand. Time to first token and
// throughput (latency_last_1h, throughput_last_1h: {p50, p95}) are
// optional: null, absent, or not a pair of sane figures reads unknown,
// never 0, and costs the endpoint nothing else.
func ParseVercel(data []byte, modelID string) ([]GatewayEndpoint, error) {
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
		var quantization string
		_ = json.Unmarshal(raw["quantization"], &quantization) // null in every capture
		var status int
		_ = json.Unmarshal(raw["status"], &status) // "0 is active"; another value is unread
		uptime, ok, err := endpointUptime(i, raw, vercelWindows)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		// Vercel lists one endpoint per provider and gives it no tag of
		// its own: the provider's id is the endpoint's.
		ep := GatewayEndpoint{Provider: provider, Tag: provider, Quantization: api.CleanText(quantization, MaxGatewayName),
			Status: status, Uptime: uptime}
		ep.LatencyP50Ms, ep.LatencyP95Ms = percentiles(raw["latency_last_1h"], maxVercelLatencyMs)
		ep.ThroughputP50, ep.ThroughputP95 = percentiles(raw["throughput_last_1h"], maxVercelThroughput)
		regions, ok := vercelRegions(raw["inference_regions"])
		if !ok {
			continue
		}
		ep.Regions = regions
		out = append(out, ep)
	}
	return out, nil
}

// percentiles reads a {p50, p95} pair of figures of at most limit. Null,
// absent, not an object, a figure that is missing, negative, not finite or
// above limit, or a p95 below its p50, reads unknown: both nil.
func percentiles(raw json.RawMessage, limit float64) (p50, p95 *float64) {
	var pair struct {
		P50 *float64 `json:"p50"`
		P95 *float64 `json:"p95"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &pair) != nil || pair.P50 == nil || pair.P95 == nil {
		return nil, nil
	}
	sane := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) && f >= 0 && f <= limit }
	if !sane(*pair.P50) || !sane(*pair.P95) || *pair.P95 < *pair.P50 {
		return nil, nil
	}
	return pair.P50, pair.P95
}

// vercelRegions reads an endpoint's inference_regions: each a scope
// ("zone": anywhere in a geography; "specific": one provider region), a
// geo_region ("us", "eu") and, for a specific scope, the provider's region
// ("us-east-1"). Absent or null is no region named (nil, true). An element
// of another shape or scope is left out; more than MaxGatewayRegions is a
// broken endpoint (false).
func vercelRegions(raw json.RawMessage) ([]GatewayRegion, bool) {
	var items []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &items) != nil {
		return nil, true
	}
	if len(items) > MaxGatewayRegions {
		return nil, false
	}
	var out []GatewayRegion
	for _, item := range items {
		var r struct {
			Scope          string `json:"scope"`
			GeoRegion      string `json:"geo_region"`
			ProviderRegion string `json:"provider_region"`
		}
		if json.Unmarshal(item, &r) != nil {
			continue
		}
		reg := GatewayRegion{Scope: r.Scope, Geo: api.CleanText(r.GeoRegion, MaxGatewayName),
			ProviderRegion: api.CleanText(r.ProviderRegion, MaxGatewayName)}
		switch {
		case reg.Geo == "":
			continue
		case reg.Scope == RegionZone:
			reg.ProviderRegion = ""
		case reg.Scope == RegionSpecific && reg.ProviderRegion != "":
		default:
			continue
		}
		out = append(out, reg)
	}
	return out, true
}
