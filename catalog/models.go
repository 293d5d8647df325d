package catalog

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The model gateways aistatus knows how to read.
const (
	GatewayOpenRouter = "openrouter"
	// GatewayVercel is the Vercel AI Gateway: its endpoints documents
	// (build/feed/vercel.go) carry uptime, time to first token and
	// throughput per provider, its list (vercelmodels.go) the models.
	GatewayVercel = "vercel"
)

// Gateways lists the gateway ids a catalog may name.
var Gateways = []string{GatewayOpenRouter, GatewayVercel}

// ModelCatalog is the catalog's section on models: the gateways read, the
// makers whose new models are watched by rule, and the models always
// watched.
type ModelCatalog struct {
	Gateways []Gateway `json:"gateways,omitempty"`
	// Makers maps a model maker, as the gateways spell it (the part of a
	// model's id before the slash: "x-ai"), to its tracked service ("xai").
	// A maker's models found in a gateway's model list are watched by
	// rule (models/watch.go), each at that service; a maker not mapped
	// has no tracked service, and only its pinned models are watched.
	Makers map[string]string `json:"makers,omitempty"`
	// Pinned are watched whatever a gateway's model list says, with what
	// only people know of them: aliases and status-page components. One
	// that leaves the list is retired, not dropped.
	Pinned []Model `json:"pinned,omitempty"`
	// Lifecycle are the makers' own deprecation pages, read as a second
	// source of retirement dates beside the gateways' lists: the maker's
	// word on when it shuts a model down.
	Lifecycle []LifecyclePage `json:"lifecycle,omitempty"`
}

// The formats of the makers' deprecation pages aistatus knows how to read
// (build/feed/deprecations*.go).
const (
	// LifecycleOpenAI is OpenAI's deprecations page as Markdown: one
	// table per announcement, "Shutdown date" then the models.
	LifecycleOpenAI = "openai-deprecations"
	// LifecycleAnthropic is Anthropic's model deprecations page as
	// Markdown: a model status table and one table per announcement.
	LifecycleAnthropic = "anthropic-deprecations"
	// LifecycleGoogle is Google's Gemini API deprecations page as HTML:
	// one table per model family, "Model" and "Shutdown date".
	LifecycleGoogle = "google-deprecations"
)

// LifecycleFormats lists the deprecation page formats a catalog may name.
var LifecycleFormats = []string{LifecycleOpenAI, LifecycleAnthropic, LifecycleGoogle}

// LifecyclePage is a maker's own page of the models it retires and when.
type LifecyclePage struct {
	// ID names the source in the API ("openai-deprecations").
	ID   string `json:"id"`
	Name string `json:"name"`
	// Maker is the maker as the gateways spell it ("openai"), mapped in
	// Makers: the page's ids are the maker's, and are matched to the
	// gateways' ids of that maker.
	Maker string `json:"maker"`
	// Format is one of LifecycleFormats.
	Format string `json:"format"`
	// Enabled switches the source on; a disabled page is never requested.
	Enabled bool `json:"enabled"`
	// URL is the document read; Page the page a person reads.
	URL  string `json:"url"`
	Page string `json:"page"`
	// Attribution is whose word it is, published with every date taken
	// from it.
	Attribution string `json:"attribution"`
}

// Gateway is a model gateway whose public per-provider telemetry is read.
type Gateway struct {
	// ID is one of Gateways.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Enabled switches the source on; a disabled gateway is never
	// requested, and its models read what the other sources say.
	Enabled bool `json:"enabled"`
	// URL is the per-model document, with ModelParam standing for the
	// model's id at the gateway ("anthropic/claude-sonnet-4.5").
	URL string `json:"url"`
	// Attribution is whose data it is, published with every figure taken
	// from it.
	Attribution string `json:"attribution"`
	// ModelPage is the gateway's human page of a model, with ModelParam.
	ModelPage string `json:"modelPage,omitempty"`
	// ListURL is the gateway's list of the models it serves; "" when it
	// has none to read, and then only the pinned models are watched.
	ListURL string `json:"listUrl,omitempty"`
	// Providers maps the gateway's provider names ("Amazon Bedrock") to
	// tracked services' slugs; a provider not listed is not a tracked
	// service, and its figures are left out.
	Providers map[string]string `json:"providers"`
	// Makers maps the gateway's spelling of a maker, where it is not the
	// catalog's (the keys of models.makers, which are OpenRouter's), to
	// the catalog's: Vercel's "xai", and "spacexai" since its rename, are
	// "x-ai". A model's id is the same at every gateway but for its
	// maker's spelling (the model part is the gateway's own, and two
	// gateways that spell it differently name two models), so one model
	// read at two gateways is one watched model (CatalogID, GatewayID).
	Makers map[string]string `json:"makers,omitempty"`
	// ProviderNames maps the gateway's name of a provider, where another
	// gateway's names it in the catalog (apiModels, the fallback plans:
	// OpenRouter's, as the first gateway's), to that name: Vercel's
	// "bedrock" is "Amazon Bedrock". One provider read at two gateways is
	// one provider (ProviderName).
	ProviderNames map[string]string `json:"providerNames,omitempty"`
}

// CatalogID is the catalog's id of a model the gateway names id: its
// maker respelt (Makers), the rest as it is.
func (g Gateway) CatalogID(id string) string {
	maker, model, ok := strings.Cut(id, "/")
	if spelt, mapped := g.Makers[maker]; ok && mapped {
		return spelt + "/" + model
	}
	return id
}

// GatewayID is the gateway's id of the catalog's model id, CatalogID's
// inverse, where the gateway's list does not say (a model it lists is
// asked for by the id it lists): of two spellings of one maker, the one
// that sorts first ("spacexai" before "xai").
func (g Gateway) GatewayID(id string) string {
	maker, model, ok := strings.Cut(id, "/")
	if !ok {
		return id
	}
	own := ""
	for o, spelt := range g.Makers {
		if spelt == maker && (own == "" || o < own) {
			own = o
		}
	}
	if own == "" {
		return id
	}
	return own + "/" + model
}

// ModelParam is the placeholder for a model's id in Gateway.URL.
const ModelParam = "{model}"

// Model is one watched model.
type Model struct {
	// ID is "author/model", as the gateways spell it.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Author is the model's maker, the part of ID before the slash.
	Author string `json:"author"`
	// Service is the tracked service of the model's maker, where /check
	// sends a caller who names the model: "anthropic" for Claude.
	Service string `json:"service,omitempty"`
	// Aliases are what people type for it in /check ("sonnet 4.5").
	Aliases []string `json:"aliases,omitempty"`
	// Components are the status-page components that stand for the model,
	// per service.
	Components []ModelComponent `json:"components,omitempty"`
	// APIModels name the model where a caller sends it: per provider, the
	// id that provider's own API takes ("anthropic.claude-…-v1:0" on
	// Bedrock), each with the provider's page that lists it. A fallback
	// plan names the model at a provider only from here (or from a
	// service's measured completions): a provider it cannot name is left
	// out, never guessed.
	APIModels []APIModel `json:"apiModels,omitempty"`
}

// APIModel is a model's id in one provider's API.
type APIModel struct {
	// Provider is a gateway's name of the provider, as models.gateways
	// maps it to a tracked service ("Amazon Bedrock", "Google Vertex"), or
	// a router that names models its own way (RouterVercel).
	Provider string `json:"provider"`
	// Model is the id that provider's API takes.
	Model string `json:"model"`
	// Doc is the provider's documentation page that lists the id.
	Doc string `json:"doc"`
}

// RouterVercel is the Vercel AI Gateway as an APIModel's provider: it
// names models creator/model in its own spelling ("xai/…", "meta/…"),
// which is not always OpenRouter's.
const RouterVercel = "Vercel AI Gateway"

// ModelComponent names the component of a service's status page that
// stands for a model.
type ModelComponent struct {
	Service string `json:"service"`
	// Name is the component's name on the page, matched case-insensitively.
	Name string `json:"name"`
	// Region is the region the component stands for, where a page splits a
	// model by region ("us-east-1"); "" for none.
	Region string `json:"region,omitempty"`
}

// watchedModelIDPattern is what a watched model's id may be: author/model, each a path
// segment of letters, digits and ._- (also the file name of its document).
var watchedModelIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}/[a-z0-9][a-z0-9._-]{0,127}$`)

// makerPattern is what a maker may be: the first part of a model's id.
var makerPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidModelID reports whether id has the shape of a watched model's id.
func ValidModelID(id string) bool {
	return watchedModelIDPattern.MatchString(id) && !strings.Contains(id, "..")
}

// validate checks the models section against the catalog's services.
func (m ModelCatalog) validate(services map[string]bool) []error {
	var errs []error
	seen := map[string]bool{}
	for i, g := range m.Gateways {
		where := fmt.Sprintf("catalog: models.gateways[%d] (%q)", i, g.ID)
		bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(where+": "+format, args...)) }
		switch {
		case !slices.Contains(Gateways, g.ID):
			bad("unknown gateway (want one of %s)", strings.Join(Gateways, ", "))
		case seen[g.ID]:
			bad("listed twice")
		}
		seen[g.ID] = true
		if strings.TrimSpace(g.Name) == "" || strings.TrimSpace(g.Attribution) == "" {
			bad("name and attribution are required: every figure says whose it is")
		}
		if !strings.Contains(g.URL, ModelParam) {
			bad("url must hold %s", ModelParam)
		} else if err := checkAbsoluteURL(strings.ReplaceAll(g.URL, ModelParam, "a/b")); err != nil {
			bad("url: %v", err)
		}
		if g.ListURL != "" {
			if err := checkAbsoluteURL(g.ListURL); err != nil {
				bad("listUrl: %v", err)
			}
		}
		for name, slug := range g.Providers {
			if !services[slug] {
				bad("providers[%q]: %q is not a slug of this catalog", name, slug)
			}
		}
		for own, name := range g.ProviderNames {
			if slug, ok := m.ProviderService(name); !ok || g.Providers[own] != slug {
				bad("providerNames[%q]: %q is no provider another gateway maps to the service this one maps it to", own, name)
			}
		}
		for own, maker := range g.Makers {
			if !makerPattern.MatchString(own) || !makerPattern.MatchString(maker) || own == maker {
				bad("makers[%q]: %q: two different spellings of a maker, in lower-case letters, digits and ._-", own, maker)
			}
		}
	}
	for maker, slug := range m.Makers {
		if !makerPattern.MatchString(maker) || !services[slug] {
			errs = append(errs, fmt.Errorf("catalog: models.makers[%q]: a maker as the gateways spell it, mapped to a slug of this catalog (%q)", maker, slug))
		}
	}
	pages := map[string]bool{}
	for i, p := range m.Lifecycle {
		where := fmt.Sprintf("catalog: models.lifecycle[%d] (%q)", i, p.ID)
		bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(where+": "+format, args...)) }
		switch {
		case !makerPattern.MatchString(p.ID) || seen[p.ID]:
			bad("id must be lower-case letters, digits and ._-, and no gateway's")
		case pages[p.ID]:
			bad("listed twice")
		case !slices.Contains(LifecycleFormats, p.Format):
			bad("unknown format %q (want one of %s)", p.Format, strings.Join(LifecycleFormats, ", "))
		case m.Makers[p.Maker] == "":
			bad("maker %q is not one of models.makers", p.Maker)
		}
		pages[p.ID] = true
		if strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.Attribution) == "" {
			bad("name and attribution are required: every date says whose it is")
		}
		for _, u := range []struct{ name, url string }{{"url", p.URL}, {"page", p.Page}} {
			if err := checkAbsoluteURL(u.url); err != nil {
				bad("%s: %v", u.name, err)
			}
		}
	}
	ids := map[string]bool{}
	for i, md := range m.Pinned {
		where := fmt.Sprintf("catalog: models.pinned[%d] (%q)", i, md.ID)
		bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(where+": "+format, args...)) }
		switch {
		case !ValidModelID(md.ID):
			bad("id must be author/model in lower-case letters, digits and ._-")
		case ids[md.ID]:
			bad("listed twice")
		case md.Author != strings.SplitN(md.ID, "/", 2)[0]:
			bad("author %q is not the id's first part", md.Author)
		}
		ids[md.ID] = true
		if strings.TrimSpace(md.Name) == "" {
			bad("name is empty")
		}
		if md.Service != "" && !services[md.Service] {
			bad("service %q is not a slug of this catalog", md.Service)
		}
		for _, c := range md.Components {
			if !services[c.Service] || strings.TrimSpace(c.Name) == "" || strings.TrimSpace(c.Region) != c.Region {
				bad("components: %q of %q: a tracked service and a component name are required, and a region without surrounding spaces", c.Name, c.Service)
			}
		}
		named := map[string]bool{}
		for _, am := range md.APIModels {
			switch _, tracked := m.ProviderService(am.Provider); {
			case !tracked && am.Provider != RouterVercel:
				bad("apiModels: provider %q is neither a provider models.gateways maps to a tracked service nor %q", am.Provider, RouterVercel)
			case named[am.Provider]:
				bad("apiModels: provider %q is listed twice", am.Provider)
			case !apiModelChars.MatchString(am.Model):
				bad("apiModels: %q at %q is not a model name", am.Model, am.Provider)
			}
			named[am.Provider] = true
			if err := checkAbsoluteURL(am.Doc); err != nil || !strings.HasPrefix(am.Doc, "https://") {
				bad("apiModels: %q at %q: doc must be the https page of the provider's documentation that lists it", am.Model, am.Provider)
			}
		}
	}
	return errs
}

// ProviderName is the catalog's name of the provider gateway names
// provider: its ProviderNames' entry, else provider itself.
func (m ModelCatalog) ProviderName(gateway, provider string) string {
	if g, ok := m.Gateway(gateway); ok {
		if name, ok := g.ProviderNames[provider]; ok {
			return name
		}
	}
	return provider
}

// ProviderService is the tracked service a gateway's provider name stands
// for ("Amazon Bedrock" → "aws-bedrock"); false when no gateway maps it.
func (m ModelCatalog) ProviderService(provider string) (string, bool) {
	for _, g := range m.Gateways {
		if slug, ok := g.Providers[provider]; ok {
			return slug, true
		}
	}
	return "", false
}

// APIModel is the model's id at provider; false when the catalog does not
// name it there.
func (md Model) APIModel(provider string) (APIModel, bool) {
	for _, am := range md.APIModels {
		if am.Provider == provider {
			return am, true
		}
	}
	return APIModel{}, false
}

// Gateway returns the catalog's gateway of that id.
func (m ModelCatalog) Gateway(id string) (Gateway, bool) {
	for _, g := range m.Gateways {
		if g.ID == id {
			return g, true
		}
	}
	return Gateway{}, false
}

// LifecyclePage returns the catalog's deprecation page of that id.
func (m ModelCatalog) LifecyclePage(id string) (LifecyclePage, bool) {
	for _, p := range m.Lifecycle {
		if p.ID == id {
			return p, true
		}
	}
	return LifecyclePage{}, false
}

// Lookup returns the pinned model of that id.
func (m ModelCatalog) Lookup(id string) (Model, bool) {
	for _, md := range m.Pinned {
		if md.ID == id {
			return md, true
		}
	}
	return Model{}, false
}

// errNoModels is returned when a catalog has a gateway but no model to read.
var errNoModels = errors.New("catalog: models.gateways without models.pinned")
