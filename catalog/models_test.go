package catalog

import (
	"strings"
	"testing"
)

// validModels is a models section valid against services alpha and beta.
func validModels() ModelCatalog {
	return ModelCatalog{
		Gateways: []Gateway{{ID: GatewayOpenRouter, Name: "OpenRouter", Enabled: true, URL: "https://openrouter.example/api/v1/models/{model}/endpoints",
			Attribution: "OpenRouter", Providers: map[string]string{"Alpha": "alpha", "Beta Cloud": "beta"},
			ListURL: "https://openrouter.example/api/v1/models"}},
		Makers: map[string]string{"alpha": "alpha"},
		Pinned: []Model{{ID: "alpha/model-1.5", Name: "Model 1.5", Author: "alpha", Service: "alpha",
			Components: []ModelComponent{{Service: "beta", Name: "model-1.5"}},
			APIModels: []APIModel{{Provider: "Beta Cloud", Model: "alpha.model-1-5-v1:0", Doc: "https://beta.example/docs/models"},
				{Provider: RouterVercel, Model: "alpha/model-1.5", Doc: "https://vercel.example/models/model-1.5"}}}},
		Lifecycle: []LifecyclePage{{ID: "alpha-deprecations", Name: "Alpha's deprecations page", Maker: "alpha", Format: LifecycleOpenAI,
			Enabled: true, URL: "https://alpha.example/deprecations.md", Page: "https://alpha.example/deprecations", Attribution: "Alpha"}},
	}
}

func TestCatalogModelsValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(m *ModelCatalog)
		want string
	}{
		{"unknown gateway", func(m *ModelCatalog) { m.Gateways[0].ID = "portkey" }, `models.gateways[0] ("portkey"): unknown gateway`},
		{"gateway twice", func(m *ModelCatalog) { m.Gateways = append(m.Gateways, m.Gateways[0]) }, "listed twice"},
		{"no attribution", func(m *ModelCatalog) { m.Gateways[0].Attribution = " " }, "every figure says whose it is"},
		{"url without the model", func(m *ModelCatalog) { m.Gateways[0].URL = "https://openrouter.example/api/v1/models" }, "url must hold {model}"},
		{"relative url", func(m *ModelCatalog) { m.Gateways[0].URL = "/api/{model}" }, "url:"},
		{"provider of no service", func(m *ModelCatalog) { m.Gateways[0].Providers["Gamma"] = "gamma" }, `providers["Gamma"]: "gamma" is not a slug`},
		{"gateways without models", func(m *ModelCatalog) { m.Pinned = nil }, "models.gateways without models.pinned"},
		{"id without author", func(m *ModelCatalog) { m.Pinned[0].ID = "model-1.5" }, "id must be author/model"},
		{"id upper case", func(m *ModelCatalog) { m.Pinned[0].ID = "alpha/Model" }, "id must be author/model"},
		{"id with a dot-dot", func(m *ModelCatalog) { m.Pinned[0].ID = "alpha/..x" }, "id must be author/model"},
		{"author not the id's", func(m *ModelCatalog) { m.Pinned[0].Author = "beta" }, `author "beta" is not the id's first part`},
		{"model twice", func(m *ModelCatalog) { m.Pinned = append(m.Pinned, m.Pinned[0]) }, "listed twice"},
		{"no name", func(m *ModelCatalog) { m.Pinned[0].Name = "" }, "name is empty"},
		{"service unknown", func(m *ModelCatalog) { m.Pinned[0].Service = "gamma" }, `service "gamma" is not a slug`},
		{"component of no service", func(m *ModelCatalog) { m.Pinned[0].Components[0].Service = "gamma" }, "a tracked service and a component name are required"},
		{"component without a name", func(m *ModelCatalog) { m.Pinned[0].Components[0].Name = "" }, "a tracked service and a component name are required"},
		{"list url relative", func(m *ModelCatalog) { m.Gateways[0].ListURL = "/api/v1/models" }, "listUrl:"},
		{"maker of no service", func(m *ModelCatalog) { m.Makers = map[string]string{"alpha": "gamma"} }, `models.makers["alpha"]`},
		{"maker not as ids spell it", func(m *ModelCatalog) { m.Makers = map[string]string{"Alpha Labs": "alpha"} }, `models.makers["Alpha Labs"]`},
		{"component region padded", func(m *ModelCatalog) { m.Pinned[0].Components[0].Region = " eu" }, "a tracked service and a component name are required"},
		{"api model at no provider", func(m *ModelCatalog) { m.Pinned[0].APIModels[0].Provider = "Gamma" }, `apiModels: provider "Gamma" is neither`},
		{"api model at a provider twice", func(m *ModelCatalog) { m.Pinned[0].APIModels[1].Provider = "Beta Cloud" }, `provider "Beta Cloud" is listed twice`},
		{"api model without a name", func(m *ModelCatalog) { m.Pinned[0].APIModels[0].Model = "" }, "is not a model name"},
		{"api model with spaces", func(m *ModelCatalog) { m.Pinned[0].APIModels[0].Model = "model 1.5" }, "is not a model name"},
		{"api model without its doc", func(m *ModelCatalog) { m.Pinned[0].APIModels[0].Doc = "" }, "doc must be the https page"},
		{"api model doc over http", func(m *ModelCatalog) { m.Pinned[0].APIModels[0].Doc = "http://beta.example/docs" }, "doc must be the https page"},
		{"lifecycle page twice", func(m *ModelCatalog) { m.Lifecycle = append(m.Lifecycle, m.Lifecycle[0]) }, `models.lifecycle[1] ("alpha-deprecations"): listed twice`},
		{"lifecycle page named as a gateway", func(m *ModelCatalog) { m.Lifecycle[0].ID = GatewayOpenRouter }, "no gateway's"},
		{"lifecycle page of an unknown format", func(m *ModelCatalog) { m.Lifecycle[0].Format = "html" }, `unknown format "html"`},
		{"lifecycle page of no maker", func(m *ModelCatalog) { m.Lifecycle[0].Maker = "beta" }, `maker "beta" is not one of models.makers`},
		{"lifecycle page without attribution", func(m *ModelCatalog) { m.Lifecycle[0].Attribution = "" }, "every date says whose it is"},
		{"lifecycle page url relative", func(m *ModelCatalog) { m.Lifecycle[0].URL = "/deprecations.md" }, "url:"},
		{"lifecycle page without its page", func(m *ModelCatalog) { m.Lifecycle[0].Page = "" }, "page:"},
		{"maker spelt alike", func(m *ModelCatalog) { m.Gateways[0].Makers = map[string]string{"alpha": "alpha"} }, `makers["alpha"]: "alpha": two different spellings`},
		{"maker spelt with spaces", func(m *ModelCatalog) { m.Gateways[0].Makers = map[string]string{"Alpha Labs": "alpha"} }, `makers["Alpha Labs"]`},
		{"provider name of no gateway", func(m *ModelCatalog) { m.Gateways[0].ProviderNames = map[string]string{"beta": "Gamma Cloud"} },
			`providerNames["beta"]: "Gamma Cloud" is no provider`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Catalog{Services: []Service{validService("alpha"), validService("beta")}, Models: validModels()}
			tc.edit(&c.Models)
			_, err := Parse(c.JSON())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	c := Catalog{Services: []Service{validService("alpha"), validService("beta")}, Models: validModels()}
	if _, err := Parse(c.JSON()); err != nil {
		t.Errorf("a valid models section: %v", err)
	}
}

// TestDefaultCatalogModels holds the curated list to what the issue asks:
// about 40 of the most used models, every one reachable by /check, and the
// gateway switched on with its attribution.
func TestDefaultCatalogModels(t *testing.T) {
	t.Parallel()
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Models.Pinned); n < 35 || n > 50 {
		t.Errorf("%d watched models, want about 40", n)
	}
	g, ok := c.Models.Gateway(GatewayOpenRouter)
	if !ok || !g.Enabled || !strings.Contains(g.Attribution, "OpenRouter") {
		t.Errorf("openrouter gateway = %+v", g)
	}
	for name, slug := range map[string]string{"Anthropic": "anthropic", "Amazon Bedrock": "aws-bedrock", "Google Vertex": "google-gemini",
		"Google AI Studio": "google-gemini", "Azure": "azure-openai", "OpenAI": "openai"} {
		if g.Providers[name] != slug {
			t.Errorf("provider %q maps to %q, want %q", name, g.Providers[name], slug)
		}
	}
	// Vercel's provider ids map as OpenRouter's names do (Vertex, Claude's
	// included, is Google Gemini's service), and its makers as OpenRouter
	// spells them: the second witness is read.
	v, ok := c.Models.Gateway(GatewayVercel)
	if !ok || !v.Enabled || !strings.Contains(v.Attribution, "Vercel") || v.ListURL == "" {
		t.Errorf("vercel gateway = %+v, want it listed, attributed and on", v)
	}
	for own, maker := range map[string]string{"xai": "x-ai", "spacexai": "x-ai", "mistral": "mistralai"} {
		if v.Makers[own] != maker || c.Models.Makers[maker] == "" {
			t.Errorf("vercel's maker %q is %q, want %q, a maker of models.makers", own, v.Makers[own], maker)
		}
	}
	for id, slug := range map[string]string{"anthropic": "anthropic", "bedrock": "aws-bedrock", "vertex": "google-gemini",
		"vertexAnthropic": "google-gemini", "azure": "azure-openai", "openai": "openai", "deepseek": "deepseek", "fireworks": "fireworks"} {
		if v.Providers[id] != slug || v.Providers[id] != g.Providers[map[string]string{"anthropic": "Anthropic", "bedrock": "Amazon Bedrock",
			"vertex": "Google Vertex", "vertexAnthropic": "Google Vertex", "azure": "Azure", "openai": "OpenAI", "deepseek": "DeepSeek", "fireworks": "Fireworks"}[id]] {
			t.Errorf("vercel provider %q maps to %q, want %q, as OpenRouter's", id, v.Providers[id], slug)
		}
	}
	for _, md := range c.Models.Pinned {
		if md.Service == "" && len(md.Components) == 0 {
			t.Errorf("%s: neither a maker's service nor a component: /check could not place it", md.ID)
		}
	}
	if _, ok := c.Models.Lookup("anthropic/claude-sonnet-4.5"); !ok {
		t.Error("the issue's example model is not watched")
	}
	// The makers' own pages are read beside the gateway's list, as
	// Markdown where the maker serves it.
	for maker, format := range map[string]string{"openai": LifecycleOpenAI, "anthropic": LifecycleAnthropic, "google": LifecycleGoogle} {
		found := false
		for _, p := range c.Models.Lifecycle {
			found = found || (p.Maker == maker && p.Format == format && p.Enabled && strings.HasSuffix(p.URL, ".md") == (format != LifecycleGoogle))
		}
		if !found {
			t.Errorf("no enabled %s page of %s", format, maker)
		}
	}
}
