package api

import "time"

// Fallback plans (docs/api.md, "Fallback plans"): where to send a model's
// requests now, best first, from what the model's sources say of each
// provider, and the same order written as each gateway's configuration.

// The formats a plan is rendered in besides its own document.
const (
	FallbackLiteLLM    = "litellm"
	FallbackOpenRouter = "openrouter"
	FallbackVercel     = "vercel"
	FallbackPortkey    = "portkey"
)

// FallbackFormats lists every format, in the order the documents list them.
var FallbackFormats = []string{FallbackLiteLLM, FallbackOpenRouter, FallbackVercel, FallbackPortkey}

// FallbackPlan is the response of GET /fallbacks.
type FallbackPlan struct {
	// Model is the watched model the plan is for (?model=, or q naming a
	// model); nil for a service's plan.
	Model *FallbackModel `json:"model"`
	// Service is the tracked service q named; nil for a model's plan.
	Service *FallbackService `json:"service"`
	// Summary says the plan in a sentence.
	Summary string `json:"summary"`
	// Targets are where to send the requests, best first: for a model, each
	// provider serving it and then, after those, the providers of up to
	// MaxFallbackSiblings other models of the same maker that are up; for
	// a service, the service and its curated alternatives.
	Targets []FallbackTarget `json:"targets"`
	// Order states how the targets are ordered.
	Order     string    `json:"order"`
	Timestamp time.Time `json:"timestamp"`
	License   string    `json:"license"`
}

// MaxFallbackSiblings bounds the other models of the same maker a plan
// offers after the model's own providers.
const MaxFallbackSiblings = 2

// FallbackModel is the model a plan is for.
type FallbackModel struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Status is the model's best status among its providers (ModelDoc).
	Status Status `json:"status"`
	// Retirement is its entry of the retirement calendar, when it is
	// retired or announced to be.
	Retirement *ModelRetirement `json:"retirement,omitempty"`
}

// FallbackService is the service a service's plan is for.
type FallbackService struct {
	Slug   string `json:"slug"`
	Name   string `json:"name"`
	Status Status `json:"status"`
}

// FallbackTarget is one place to send the requests: a model at a provider
// (or, in a service's plan, a service).
type FallbackTarget struct {
	// Rank is the target's place in the plan, from 1.
	Rank int `json:"rank"`
	// Model and ModelName are the model sent there (author/model); absent
	// in a service's plan. Sibling says it is another model of the same
	// maker than the one asked about.
	Model     string `json:"model,omitempty"`
	ModelName string `json:"modelName,omitempty"`
	Sibling   bool   `json:"sibling"`
	// Service is the tracked service's slug; Provider the gateway's name of
	// the provider ("Amazon Bedrock"), or the service's name when no
	// gateway names it.
	Service  string `json:"service"`
	Provider string `json:"provider"`
	// APIModel is the id the provider's own API takes for the model, from
	// the catalog; nil when the catalog does not name it there (the
	// formats that need it leave the target out).
	APIModel *string `json:"apiModel"`
	// GatewayProviders are each gateway's own name of the provider, by
	// gateway id (OpenRouter's "Amazon Bedrock", Vercel's "bedrock"), as
	// their endpoints documents give them. Absent when no gateway reports
	// on the target.
	GatewayProviders map[string]string `json:"gatewayProviders,omitempty"`
	// Status is what the target's witnesses agree on (Agreement); unknown
	// when none reports on it.
	Status Status `json:"status"`
	// Agreement is the target's witnesses and their verdict
	// (history.AgreeModelStatus); absent in a service's plan.
	Agreement *ModelAgreement `json:"agreement,omitempty"`
	// Uptime is the gateway's best figure for the provider over its
	// 5-minute window; ErrorRate and TTFTMs (p50) our own measured
	// completions' over the last hour. Nil without a figure.
	Uptime    *float64 `json:"uptime"`
	ErrorRate *float64 `json:"errorRate"`
	TTFTMs    *float64 `json:"ttftMs"`
	// TTFTP95Ms is our measured completions' time to first token, p95,
	// over the last day (an hour holds too few for a p95); nil without a
	// figure.
	TTFTP95Ms *float64 `json:"ttftP95Ms"`
	// Timeouts are how long the configurations wait on the target before
	// failing over, derived from TTFTP95Ms; absent in a service's plan.
	Timeouts *FallbackTimeouts `json:"timeouts,omitempty"`
	// CrowdSurge says callers of /check report errors at the target's
	// service in a surge now (its "reports" evidence gives the count). It
	// is evidence, not a status: it moves neither the target's status nor
	// its rank.
	CrowdSurge bool `json:"crowdSurge"`
	// Formats are the formats that can name the target, and so carry it.
	Formats []string `json:"formats"`
	// Evidence is what each source said of the target, and when it was
	// true.
	Evidence []FallbackEvidence `json:"evidence"`
}

// FallbackTimeouts are a target's waits (docs/api.md, "Fallback plans":
// the rule): FirstTokenMs for the first token of a streamed answer (or
// the first byte of the answer, where a gateway cannot tell them apart),
// RequestMs for a whole answer not streamed.
type FallbackTimeouts struct {
	FirstTokenMs int `json:"firstTokenMs"`
	RequestMs    int `json:"requestMs"`
}

// FallbackEvidence is one source's word on a target.
type FallbackEvidence struct {
	// Source is EvidenceGateway, EvidenceMeasured, EvidenceOfficial or
	// EvidenceReports (the crowd of /check's callers).
	Source string `json:"source"`
	Says   string `json:"says"`
	// At is when it was true: the snapshot's generation for a gateway's
	// figure or a status page, the latest completion for a measured one.
	At  time.Time `json:"at"`
	URL string    `json:"url,omitempty"`
}

// The plan written for each gateway. Each is the tool's own shape, with
// no key in it: only the names of the environment variables each tool
// documents reading them from.

// LiteLLMConfig is ?format=litellm: a LiteLLM proxy config.yaml
// (https://docs.litellm.ai/docs/proxy/configs,
// https://docs.litellm.ai/docs/proxy/reliability).
type LiteLLMConfig struct {
	ModelList      []LiteLLMModel        `json:"model_list" yaml:"model_list"`
	RouterSettings LiteLLMRouterSettings `json:"router_settings" yaml:"router_settings"`
}

// LiteLLMModel is one deployment of model_list.
type LiteLLMModel struct {
	ModelName     string        `json:"model_name" yaml:"model_name"`
	LiteLLMParams LiteLLMParams `json:"litellm_params" yaml:"litellm_params"`
}

// LiteLLMParams are a deployment's litellm_params: the model as
// provider/id, and os.environ/NAME references for its credentials.
type LiteLLMParams struct {
	Model string `json:"model" yaml:"model"`
	// Timeout bounds a request, StreamTimeout a streamed one's wait for
	// its first chunk, in seconds
	// (https://docs.litellm.ai/docs/proxy/timeout).
	Timeout            float64 `json:"timeout" yaml:"timeout"`
	StreamTimeout      float64 `json:"stream_timeout" yaml:"stream_timeout"`
	APIKey             string  `json:"api_key,omitempty" yaml:"api_key,omitempty"`
	AWSAccessKeyID     string  `json:"aws_access_key_id,omitempty" yaml:"aws_access_key_id,omitempty"`
	AWSSecretAccessKey string  `json:"aws_secret_access_key,omitempty" yaml:"aws_secret_access_key,omitempty"`
	AWSRegionName      string  `json:"aws_region_name,omitempty" yaml:"aws_region_name,omitempty"`
	VertexProject      string  `json:"vertex_project,omitempty" yaml:"vertex_project,omitempty"`
	VertexLocation     string  `json:"vertex_location,omitempty" yaml:"vertex_location,omitempty"`
}

// LiteLLMRouterSettings are the config's router_settings: the fallbacks,
// from the first deployment's model_name to the others', in order, and
// how soon a failing deployment is set aside: after AllowedFails failures
// in a minute, for CooldownTime seconds
// (https://docs.litellm.ai/docs/routing, cooldowns).
type LiteLLMRouterSettings struct {
	Fallbacks    []map[string][]string `json:"fallbacks" yaml:"fallbacks"`
	AllowedFails int                   `json:"allowed_fails" yaml:"allowed_fails"`
	CooldownTime int                   `json:"cooldown_time" yaml:"cooldown_time"`
}

// OpenRouterFallback is ?format=openrouter: the members of an OpenRouter
// chat completion request body that route it, as the HTTP body names them
// (https://openrouter.ai/docs/features/model-routing,
// https://openrouter.ai/docs/features/provider-routing): what fetch or the
// openai SDK sends. @openrouter/sdk takes its input in camelCase
// (provider.allowFallbacks) and drops allow_fallbacks.
type OpenRouterFallback struct {
	// Models are the model and its siblings, tried in order.
	Models   []string           `json:"models"`
	Provider OpenRouterProvider `json:"provider"`
}

// OpenRouterProvider is the request's provider preferences.
type OpenRouterProvider struct {
	// Order are OpenRouter's provider slugs ("amazon-bedrock"), best first.
	Order          []string `json:"order"`
	AllowFallbacks bool     `json:"allow_fallbacks"`
}

// VercelFallback is ?format=vercel: the model and providerOptions of an AI
// SDK call through the Vercel AI Gateway
// (https://vercel.com/docs/ai-gateway/models-and-providers/provider-options).
type VercelFallback struct {
	Model           string                `json:"model"`
	ProviderOptions VercelProviderOptions `json:"providerOptions"`
}

// VercelProviderOptions holds the gateway's options.
type VercelProviderOptions struct {
	Gateway VercelGatewayOptions `json:"gateway"`
}

// VercelGatewayOptions are the provider order (the gateway's provider
// slugs), the fallback models, and each provider's wait for its first
// token when the call brings its own key.
type VercelGatewayOptions struct {
	Order            []string               `json:"order"`
	Models           []string               `json:"models,omitempty"`
	ProviderTimeouts VercelProviderTimeouts `json:"providerTimeouts"`
}

// VercelProviderTimeouts are the gateway's per-provider timeouts, in
// milliseconds, for keys brought by the user (BYOK) only
// (https://vercel.com/docs/ai-gateway/models-and-providers/provider-timeouts).
type VercelProviderTimeouts struct {
	BYOK map[string]int `json:"byok"`
}

// PortkeyFallback is ?format=portkey: a Portkey gateway config
// (https://portkey.ai/docs/product/ai-gateway/fallbacks).
type PortkeyFallback struct {
	Strategy PortkeyStrategy `json:"strategy"`
	Targets  []PortkeyTarget `json:"targets"`
}

// PortkeyStrategy is the config's strategy: fallback, on the statuses of
// an overloaded, failing or timed-out provider, and the circuit breaker
// that sets a failing target aside
// (https://portkey.ai/docs/product/ai-gateway/circuit-breaker).
type PortkeyStrategy struct {
	Mode          string         `json:"mode"`
	OnStatusCodes []int          `json:"on_status_codes"`
	CBConfig      PortkeyBreaker `json:"cb_config"`
}

// PortkeyBreaker is a strategy's cb_config: a target's circuit opens after
// FailureThreshold failures (answers with FailureStatusCodes) and closes
// after CooldownInterval milliseconds.
type PortkeyBreaker struct {
	FailureThreshold   int   `json:"failure_threshold"`
	CooldownInterval   int   `json:"cooldown_interval"`
	FailureStatusCodes []int `json:"failure_status_codes"`
}

// PortkeyTarget is one provider, with the model it is asked for, its
// credentials as references to environment variables ("${NAME}", which
// whoever sends the config substitutes: a Portkey config has no syntax of
// its own for them), and how long to wait for its answer's headers
// (request_timeout, https://portkey.ai/docs/product/ai-gateway/request-timeouts).
type PortkeyTarget struct {
	Provider           string        `json:"provider"`
	APIKey             string        `json:"api_key,omitempty"`
	AWSAccessKeyID     string        `json:"aws_access_key_id,omitempty"`
	AWSSecretAccessKey string        `json:"aws_secret_access_key,omitempty"`
	AWSRegion          string        `json:"aws_region,omitempty"`
	VertexProjectID    string        `json:"vertex_project_id,omitempty"`
	VertexRegion       string        `json:"vertex_region,omitempty"`
	RequestTimeout     int           `json:"request_timeout"`
	OverrideParams     PortkeyParams `json:"override_params"`
}

// PortkeyParams are the request parameters a target overrides.
type PortkeyParams struct {
	Model string `json:"model"`
}
