package fallback

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/snapshot"
	"go.yaml.in/yaml/v3"
)

// Each tool names a provider its own way and reads its credentials from
// environment variables it documents; platform holds both, per gateway
// provider name. A provider none of them can name is left out of that
// tool's configuration, never guessed.
type platform struct {
	// slug names the provider in the LiteLLM model names after the first
	// ("claude-sonnet-4.5@bedrock").
	slug string
	// litellm is LiteLLM's provider prefix (litellm_params.model is
	// "<prefix>/<id>"), and credentials its os.environ references
	// (https://docs.litellm.ai/docs/providers).
	litellm     string
	credentials func(*api.LiteLLMParams)
	// vercel is the AI Gateway's provider slug for providerOptions.gateway.order
	// (https://vercel.com/docs/ai-gateway/models-and-providers/provider-options).
	vercel string
	// portkey is Portkey's provider slug for a target
	// (https://portkey.ai/docs/integrations/llms), and portkeyKeys the
	// target's credentials, as the config object names them
	// (https://portkey.ai/docs/api-reference/config-object: api_key;
	// aws_access_key_id, aws_secret_access_key, aws_region for Bedrock;
	// vertex_project_id, vertex_region and an access token as api_key for
	// Vertex AI), each a reference to an environment variable.
	portkey     string
	portkeyKeys func(*api.PortkeyTarget)
}

// environ is LiteLLM's reference to an environment variable: the config
// names the variable, never its value.
func environ(name string) string { return "os.environ/" + name }

func apiKey(name string) func(*api.LiteLLMParams) {
	return func(p *api.LiteLLMParams) { p.APIKey = environ(name) }
}

// envRef is a Portkey target's reference to an environment variable.
// Portkey's config has no syntax for one (the gateway sends api_key as it
// reads it): "${NAME}" is the shell's, which envsubst, or a line of the
// caller's code, replaces before the config is sent (docs/api.md).
func envRef(name string) string { return "${" + name + "}" }

func portkeyKey(name string) func(*api.PortkeyTarget) {
	return func(t *api.PortkeyTarget) { t.APIKey = envRef(name) }
}

// platformOf is the platform of a gateway provider name.
func platformOf(provider string) (platform, bool) {
	switch provider {
	case "Anthropic":
		return platform{slug: "anthropic", litellm: "anthropic", credentials: apiKey("ANTHROPIC_API_KEY"), vercel: "anthropic", portkey: "anthropic",
			portkeyKeys: portkeyKey("ANTHROPIC_API_KEY")}, true
	case "Amazon Bedrock":
		// https://docs.litellm.ai/docs/providers/bedrock
		return platform{slug: "bedrock", litellm: "bedrock", credentials: func(p *api.LiteLLMParams) {
			p.AWSAccessKeyID, p.AWSSecretAccessKey, p.AWSRegionName = environ("AWS_ACCESS_KEY_ID"), environ("AWS_SECRET_ACCESS_KEY"), environ("AWS_REGION_NAME")
		}, vercel: "bedrock", portkey: "bedrock", portkeyKeys: func(t *api.PortkeyTarget) {
			t.AWSAccessKeyID, t.AWSSecretAccessKey, t.AWSRegion = envRef("AWS_ACCESS_KEY_ID"), envRef("AWS_SECRET_ACCESS_KEY"), envRef("AWS_REGION")
		}}, true
	case "Google Vertex":
		// https://docs.litellm.ai/docs/providers/vertex: the credentials are
		// Google's application default credentials, found by the SDK.
		return platform{slug: "vertex", litellm: "vertex_ai", credentials: func(p *api.LiteLLMParams) {
			p.VertexProject, p.VertexLocation = environ("VERTEXAI_PROJECT"), environ("VERTEXAI_LOCATION")
		}, vercel: "vertex", portkey: "vertex-ai", portkeyKeys: func(t *api.PortkeyTarget) {
			// Portkey takes Vertex AI's short-lived access token as api_key
			// (gcloud auth print-access-token).
			t.VertexProjectID, t.VertexRegion, t.APIKey = envRef("VERTEXAI_PROJECT"), envRef("VERTEXAI_LOCATION"), envRef("VERTEXAI_ACCESS_TOKEN")
		}}, true
	case "Google AI Studio":
		return platform{slug: "gemini", litellm: "gemini", credentials: apiKey("GEMINI_API_KEY"), portkey: "google", portkeyKeys: portkeyKey("GEMINI_API_KEY")}, true
	case "OpenAI":
		return platform{slug: "openai", litellm: "openai", credentials: apiKey("OPENAI_API_KEY"), vercel: "openai", portkey: "openai",
			portkeyKeys: portkeyKey("OPENAI_API_KEY")}, true
	case "Mistral":
		return platform{slug: "mistral", litellm: "mistral", credentials: apiKey("MISTRAL_API_KEY"), portkey: "mistral-ai", portkeyKeys: portkeyKey("MISTRAL_API_KEY")}, true
	case "DeepSeek":
		return platform{slug: "deepseek", litellm: "deepseek", credentials: apiKey("DEEPSEEK_API_KEY"), portkey: "deepseek", portkeyKeys: portkeyKey("DEEPSEEK_API_KEY")}, true
	case "Groq":
		return platform{slug: "groq", litellm: "groq", credentials: apiKey("GROQ_API_KEY"), portkey: "groq", portkeyKeys: portkeyKey("GROQ_API_KEY")}, true
	case "xAI":
		return platform{slug: "xai", litellm: "xai", credentials: apiKey("XAI_API_KEY")}, true
	}
	return platform{}, false
}

// formats lists the formats that can name a target.
func (p *Planner) formats(md catalog.Model, t api.FallbackTarget) []string {
	out := []string{}
	pf, known := platformOf(t.Provider)
	if known && t.APIModel != nil && pf.litellm != "" {
		out = append(out, api.FallbackLiteLLM)
	}
	if p.atOpenRouter(t.Provider) {
		out = append(out, api.FallbackOpenRouter)
	}
	if _, named := md.APIModel(catalog.RouterVercel); known && named && pf.vercel != "" {
		out = append(out, api.FallbackVercel)
	}
	if known && t.APIModel != nil && pf.portkey != "" {
		out = append(out, api.FallbackPortkey)
	}
	return out
}

// openRouterSlugs are OpenRouter's provider slugs, which provider.order
// takes ("a list of provider slugs",
// https://openrouter.ai/docs/features/provider-routing), per the name
// OpenRouter's endpoints API gives the provider (the catalog's OpenRouter
// gateway maps those names); @openrouter/sdk lists the same slugs as
// BYOKProviderSlug, which TestOpenRouterSlugs holds them to. The names are
// not slugs: OpenRouter's ProviderName has no "Google Vertex". "Google",
// the endpoints' older name, is left out: nothing OpenRouter publishes
// pairs it with a slug.
var openRouterSlugs = map[string]string{
	"Amazon Bedrock": "amazon-bedrock", "Anthropic": "anthropic", "Azure": "azure", "Cerebras": "cerebras", "Cohere": "cohere",
	"DeepSeek": "deepseek", "Fireworks": "fireworks", "Google AI Studio": "google-ai-studio", "Google Vertex": "google-vertex",
	"Groq": "groq", "Mistral": "mistral", "OpenAI": "openai", "Perplexity": "perplexity", "Together": "together", "xAI": "xai",
}

// atOpenRouter reports whether provider is at OpenRouter (the catalog's
// OpenRouter gateway maps its name) under a slug provider.order takes.
func (p *Planner) atOpenRouter(provider string) bool {
	g, ok := p.cat.Models.Gateway(catalog.GatewayOpenRouter)
	_, named := g.Providers[provider]
	_, slug := openRouterSlugs[provider]
	return ok && named && slug
}

// OnStatusCodes are the answers on which Portkey is to try the next
// target: a timeout (408: the gateway's own answer when a target outlasts
// its request_timeout, so that without it a timeout ends the fallback), a
// rate limit (429), a server error (500, 502, 504), an overload (503, and
// Anthropic's 529).
func OnStatusCodes() []int { return []int{408, 429, 500, 502, 503, 504, 529} }

// How soon a failing provider is set aside, in the gateways that can: at
// its first failure in LiteLLM (allowed_fails 1, the figure at which a
// public benchmark saw LiteLLM spend about 1 s a request on an outage,
// against 5-6 s with its defaults) and at Portkey's least threshold, for
// Cooldown (Portkey's least cooldown_interval is 30 s).
const (
	AllowedFails = 1
	Cooldown     = 30 * time.Second
)

// Render writes a model's plan in format, returning the body and its media
// type. A service's plan, or a model no provider of which the format can
// name, is a *check.InputError on the format parameter.
func (p *Planner) Render(plan api.FallbackPlan, format string) ([]byte, string, error) {
	if !slices.Contains(api.FallbackFormats, format) {
		return nil, "", &check.InputError{Param: "format", Detail: fmt.Sprintf("format %q is not one of %s (or leave it out for the plan itself)",
			api.Truncate(format, 32), strings.Join(api.FallbackFormats, ", "))}
	}
	if plan.Model == nil {
		return nil, "", &check.InputError{Param: "format", Detail: "a gateway configuration routes a model: ask for one with model=author/model (see the plan's summary)"}
	}
	var mine []api.FallbackTarget
	for _, t := range plan.Targets {
		if slices.Contains(t.Formats, format) {
			mine = append(mine, t)
		}
	}
	if len(mine) == 0 {
		return nil, "", &check.InputError{Param: "format", Detail: fmt.Sprintf("the catalog names %s at no provider %s can be configured for: formats that can carry it: %s",
			plan.Model.Name, format, api.JoinList(availableFormats(plan), " and "))}
	}
	switch format {
	case api.FallbackLiteLLM:
		return p.liteLLM(plan, mine)
	case api.FallbackOpenRouter:
		return jsonBody(openRouter(mine))
	case api.FallbackVercel:
		return jsonBody(p.vercel(plan, mine))
	}
	return jsonBody(portkey(mine))
}

// availableFormats lists the formats some target of plan can be written in.
func availableFormats(plan api.FallbackPlan) []string {
	var out []string
	for _, f := range api.FallbackFormats {
		if slices.ContainsFunc(plan.Targets, func(t api.FallbackTarget) bool { return slices.Contains(t.Formats, f) }) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

func jsonBody(v any) ([]byte, string, error) {
	body, err := json.MarshalIndent(v, "", "  ")
	return append(body, '\n'), snapshot.ContentJSON, err
}

// liteLLM is the proxy's config.yaml: one deployment per target, the
// first under the model's own name (what clients already ask for), the
// others under "<model>@<provider>", and router_settings.fallbacks from
// the first to the others in order.
func (p *Planner) liteLLM(plan api.FallbackPlan, ts []api.FallbackTarget) ([]byte, string, error) {
	var cfg api.LiteLLMConfig
	var names []string
	for i, t := range ts {
		pf, _ := platformOf(t.Provider)
		_, short, _ := strings.Cut(t.Model, "/")
		name := short + "@" + pf.slug
		if i == 0 {
			_, name, _ = strings.Cut(plan.Model.ID, "/")
		}
		params := api.LiteLLMParams{Model: pf.litellm + "/" + *t.APIModel,
			Timeout: seconds(t.Timeouts.RequestMs), StreamTimeout: seconds(t.Timeouts.FirstTokenMs)}
		pf.credentials(&params)
		cfg.ModelList = append(cfg.ModelList, api.LiteLLMModel{ModelName: name, LiteLLMParams: params})
		names = append(names, name)
	}
	cfg.RouterSettings.Fallbacks = []map[string][]string{}
	cfg.RouterSettings.AllowedFails, cfg.RouterSettings.CooldownTime = AllowedFails, int(Cooldown.Seconds())
	if len(names) > 1 {
		cfg.RouterSettings.Fallbacks = append(cfg.RouterSettings.Fallbacks, map[string][]string{names[0]: names[1:]})
	}
	body, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, "", err
	}
	head := fmt.Sprintf("# LiteLLM proxy config.yaml: aistatus's fallback plan for %s as of %s, best first.\n"+
		"# Credentials are read from the environment variables named (os.environ/...); none is written here.\n",
		oneLine(plan.Model.Name), plan.Timestamp.UTC().Format("2006-01-02T15:04:05Z"))
	return append([]byte(head), body...), snapshot.ContentYAML, nil
}

// seconds is LiteLLM's timeout, in seconds, of a wait in milliseconds.
func seconds(ms int) float64 { return float64(ms) / 1000 }

// oneLine keeps a name in its comment line.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// openRouter is the request's models (the model, then its siblings) and
// provider order (OpenRouter's provider slugs, best first), as the HTTP
// body carries them (allow_fallbacks; @openrouter/sdk's input names it
// allowFallbacks, and drops allow_fallbacks).
func openRouter(ts []api.FallbackTarget) api.OpenRouterFallback {
	out := api.OpenRouterFallback{Models: []string{}, Provider: api.OpenRouterProvider{Order: []string{}, AllowFallbacks: true}}
	for _, t := range ts {
		if !slices.Contains(out.Models, t.Model) {
			out.Models = append(out.Models, t.Model)
		}
		if slug := openRouterSlugs[t.Provider]; !slices.Contains(out.Provider.Order, slug) {
			out.Provider.Order = append(out.Provider.Order, slug)
		}
	}
	return out
}

// vercel is the AI SDK call's model and the gateway's provider order and
// fallback models, in the gateway's own ids.
func (p *Planner) vercel(plan api.FallbackPlan, ts []api.FallbackTarget) api.VercelFallback {
	out := api.VercelFallback{ProviderOptions: api.VercelProviderOptions{Gateway: api.VercelGatewayOptions{Order: []string{},
		ProviderTimeouts: api.VercelProviderTimeouts{BYOK: map[string]int{}}}}}
	gw := &out.ProviderOptions.Gateway
	for _, t := range ts {
		id := p.vercelID(t.Model)
		switch {
		case t.Model == plan.Model.ID:
			out.Model = id
		case out.Model == "" && !slices.Contains(gw.Models, id):
			// The model itself is not at the gateway: its first sibling is
			// the call's model, the others its fallbacks.
			out.Model = id
		case id != out.Model && !slices.Contains(gw.Models, id):
			gw.Models = append(gw.Models, id)
		}
		if pf, _ := platformOf(t.Provider); !slices.Contains(gw.Order, pf.vercel) {
			gw.Order = append(gw.Order, pf.vercel)
			// The provider's first target (the model's own, before a
			// sibling's) sets its wait for the first token.
			gw.ProviderTimeouts.BYOK[pf.vercel] = t.Timeouts.FirstTokenMs
		}
	}
	return out
}

// vercelID is the gateway's id of a watched model (catalog.RouterVercel).
func (p *Planner) vercelID(id string) string {
	md, _ := p.cat.Models.Lookup(id)
	am, _ := md.APIModel(catalog.RouterVercel)
	return am.Model
}

// portkey is a fallback config with a target per provider, each asking
// for the model by the provider's id with the provider's credentials by
// reference, on OnStatusCodes. request_timeout bounds the wait for the
// answer's headers, which a streamed answer sends before its first token
// and one not streamed only when it is done: the target's first-token
// wait, which a request not streamed lengthens with the
// x-portkey-request-timeout header (docs/api.md).
func portkey(ts []api.FallbackTarget) api.PortkeyFallback {
	out := api.PortkeyFallback{Strategy: api.PortkeyStrategy{Mode: "fallback", OnStatusCodes: OnStatusCodes(),
		CBConfig: api.PortkeyBreaker{FailureThreshold: AllowedFails, CooldownInterval: int(Cooldown.Milliseconds()), FailureStatusCodes: OnStatusCodes()}}}
	for _, t := range ts {
		pf, _ := platformOf(t.Provider)
		target := api.PortkeyTarget{Provider: pf.portkey, RequestTimeout: t.Timeouts.FirstTokenMs, OverrideParams: api.PortkeyParams{Model: *t.APIModel}}
		pf.portkeyKeys(&target)
		out.Targets = append(out.Targets, target)
	}
	return out
}
