// Package mcpserver exposes the aistatus API to AI agents as a Model Context
// Protocol server: five read-only tools whose structured results are the
// API's own documents, with the CC-BY-4.0 licence and a credit line in each.
//
// The tools reach the data through API, a client of the JSON API, so they
// validate and answer exactly as the API does — in-process (HandlerClient) or
// against a remote instance. This package must not import serve: serve
// imports it to mount the server at /mcp.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statusLegend explains the statuses to the model once per tool description:
// "unknown" read as "down" is the mistake it must not make.
const statusLegend = "Statuses: operational (up), degraded (up, but slow or with errors), partial_outage, " +
	"major_outage, maintenance (planned work, not an outage), unknown (aistatus could not tell — " +
	"no data is NOT an outage; never report unknown as down). "

// licenceNote closes every tool description.
const licenceNote = "Data is CC-BY-4.0: when you show or reuse it, credit the result's attribution line."

// instructions introduces the server; names lists a few tracked services
// and n says how many there are.
func instructions(names string, n int) string {
	return fmt.Sprintf("aistatus tells whether AI services (%s, … %d in all) ", names, n) +
		"are up, from each service's official status page merged with aistatus's own latency probes, refreshed about " +
		"every minute. Use check_service for \"is X down?\" (it accepts names, domains and URLs), get_status for an " +
		"overview, get_service for one service's uptime and incidents, list_incidents for incident history, plan_fallback " +
		"for where to send a model's requests instead (and a gateway's configuration for it). " +
		statusLegend + licenceNote
}

// Input of get_service. The descriptions of the inputs that name examples
// are written in New, from the catalog.
type serviceInput struct {
	Slug string `json:"slug"`
}

// Input of check_service.
type checkInput struct {
	Query string `json:"query"`
	// Error is a plain string, "" for none, rather than a pointer: one type
	// per argument (see IncidentQuery). It is not constrained by a pattern
	// here, so that a bad value reaches the API and comes back with its
	// explanation instead of a bare schema mismatch.
	Error string `json:"error,omitempty"`
	// Code is the provider's error code, "" for none.
	Code string `json:"code,omitempty"`
	// RetryAfter is the Retry-After in seconds; 0 for none (a plain int:
	// see Error).
	RetryAfter int `json:"retryAfter,omitempty"`
	// Model is a watched model to check at the queried service, "" for
	// none. Per-model health goes through check_service rather than a tool
	// of its own: the question agents ask is "is this model failing, and
	// where can I send it instead?", which is a check's verdict and
	// alternatives.
	Model string `json:"model,omitempty"`
}

// Input of plan_fallback: plain strings, "" for not sent (see
// IncidentQuery).
type fallbackInput struct {
	Model  string `json:"model,omitempty"`
	Query  string `json:"query,omitempty"`
	Format string `json:"format,omitempty"`
}

// FallbackResult is plan_fallback's structured result: the /fallbacks plan,
// the configuration asked for, and the credit line.
type FallbackResult struct {
	api.FallbackPlan
	// Format and Config are the gateway asked for and the plan written for
	// it (YAML for LiteLLM, JSON otherwise); absent without one.
	Format      string `json:"format,omitempty" jsonschema:"the gateway the configuration is for"`
	Config      string `json:"config,omitempty" jsonschema:"the plan as that gateway's configuration, to save as is: keys are named by environment variable, never written"`
	Attribution string `json:"attribution" jsonschema:"credit line to give when reusing the data (CC-BY-4.0)"`
}

// fallbackReply is what plan_fallback got from the API.
type fallbackReply struct {
	plan           api.FallbackPlan
	format, config string
}

// maxObserved bounds check_service's error argument ("connection" is the
// longest valid value).
const maxObserved = 10

// StatusResult is get_status's structured result: the /status document and
// the credit line.
type StatusResult struct {
	api.StatusDoc
	Attribution string `json:"attribution" jsonschema:"credit line to give when reusing the data (CC-BY-4.0)"`
}

// ServiceResult is get_service's structured result: the /services/{slug}
// document and the credit line.
type ServiceResult struct {
	api.ServiceDoc
	Attribution string `json:"attribution" jsonschema:"credit line to give when reusing the data (CC-BY-4.0)"`
}

// IncidentsResult is list_incidents' structured result: the /incidents
// document and the credit line.
type IncidentsResult struct {
	api.IncidentList
	Attribution string `json:"attribution" jsonschema:"credit line to give when reusing the data (CC-BY-4.0)"`
}

// CheckResult is check_service's structured result: the /check document and
// the credit line.
type CheckResult struct {
	api.CheckDoc
	Attribution string `json:"attribution" jsonschema:"credit line to give when reusing the data (CC-BY-4.0)"`
}

// Option configures New.
type Option func(*config)

type config struct {
	catalog   catalog.Catalog
	subscribe bool
}

// WithSubscriptions lets clients subscribe to the resources; the caller
// then calls SnapshotSwapped on every snapshot swap. Only for a server whose
// sessions last (stdio): over stateless HTTP a session ends with its request,
// so a subscription could never be honoured — there, the capability is not
// advertised, and GET /api/v1/events is the push channel.
func WithSubscriptions() Option {
	return func(c *config) { c.subscribe = true }
}

// WithCatalog names the catalog the server's API answers from. The tool
// descriptions take their example slugs and queries from it, so that a
// model is never shown one the API would reject. Without it, the embedded
// catalog is used.
func WithCatalog(cat catalog.Catalog) Option {
	return func(c *config) { c.catalog = cat }
}

// outputSchemas holds the tools' output schemas, which the SDK infers
// from their Go types, by reflection, for every server made: a server per
// test (and per serve.Server) resolved the same schemas again, a tenth of
// the serve tests' time. The input schemas are made per server (their
// examples and enums are the catalog's) and are cached by pointer, one
// entry per server made: a process makes one or a few.
var outputSchemas = mcp.NewSchemaCache()

// New returns an MCP server with the five aistatus tools, answering from client.
// version is reported to clients as the server's version.
func New(client API, version string, opts ...Option) *mcp.Server {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if len(c.catalog.Services) == 0 {
		// The embedded catalog is validated by its own tests; should it ever
		// fail to parse, the descriptions merely go without examples.
		c.catalog, _ = catalog.Default()
	}
	ex := examplesFrom(c.catalog)

	serverOpts := &mcp.ServerOptions{Instructions: instructions(api.JoinList(ex.names, ", "), len(c.catalog.Services)),
		// No logging capability (the SDK's default): the server sends no log
		// messages, and a client seeing it sends logging/setLevel first — the
		// Inspector does, one more HTTP request charged to the rate limit
		// for every tool call. Tools and resources are inferred.
		Capabilities: &mcp.ServerCapabilities{},
		SchemaCache:  outputSchemas}
	if c.subscribe {
		serverOpts.SubscribeHandler, serverOpts.UnsubscribeHandler = subscriptionHandlers(c.catalog)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "aistatus", Title: "aistatus: are AI services up?", Version: version}, serverOpts)
	s.AddReceivingMiddleware(numericErrorAsString)
	addResources(s, client, c.catalog)
	// Every tool only reads, and calling one twice changes nothing. The
	// world of most is closed — aistatus's own snapshot — but check_service
	// probes the service's API host live.
	annotations := func(title string, openWorld bool) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true,
			DestructiveHint: jsonschema.Ptr(false), OpenWorldHint: jsonschema.Ptr(openWorld)}
	}
	// credit is the attribution naming this instance, for the text and the
	// structured content alike; asked per call, as the address may change.
	credit := func(ctx context.Context) string { return api.Attribution(client.address(ctx)) }

	mcp.AddTool(s, &mcp.Tool{
		Name:  "get_status",
		Title: "Status of every AI service",
		Description: "Current status of every AI service aistatus tracks, from the latest snapshot (timestamp says when it " +
			"was generated). Each entry has slug, name, category, domain, status, lastChecked, latencyMs (aistatus's last " +
			"probe of its API host) and statusPage. " + statusLegend +
			"For one service's uptime and incidents use get_service. " + licenceNote,
		InputSchema: inputSchema[struct{}](nil),
		Annotations: annotations("Status of every AI service", false),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, StatusResult, error) {
		doc, err := client.Status(ctx)
		doc.License = api.License
		return reply(ctx, credit, doc, err, statusSummary, func(doc api.StatusDoc, credit string) StatusResult {
			return StatusResult{StatusDoc: doc, Attribution: credit}
		})
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "get_service",
		Title: "One AI service in detail",
		Description: "One service's detail by slug: current status, uptime percentages over 24h, 7d and 30d (null when " +
			"that window has no data; maintenance and unknown time are left out; a partial outage counts " + percent(history.PartialOutageDowntime) + " as downtime), " +
			"its incidents newest first (endedAt null means ongoing; source official = the provider's status page, probe = " +
			"aistatus's own failed probes), and sources: where the status came from in the latest check (the official " +
			"feed and aistatus's probe). status is the developer API's; surfaces lists the API and, where the official page shows them, " +
			"the consumer app (claude.ai, ChatGPT), coding agent (Claude Code, Codex) and console, each with its own status, basis, " +
			"components and incidents (an incident may belong to several). An unknown slug is an error; get_status lists the slugs. " + statusLegend + licenceNote,
		InputSchema: inputSchema[serviceInput](func(p map[string]*jsonschema.Schema) {
			p["slug"].Description = "the service's slug" + suchAs(ex.slugs, " or ") +
				" (get_status lists them all; check_service finds one by name or domain)"
			p["slug"].MinLength, p["slug"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(maxSlug)
		}),
		Annotations: annotations("One AI service in detail", false),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in serviceInput) (*mcp.CallToolResult, ServiceResult, error) {
		doc, err := client.Service(ctx, in.Slug)
		if perr := (*ProblemError)(nil); errors.As(err, &perr) && perr.StatusCode == http.StatusNotFound {
			// The API's detail points at /api/v1/status; a model needs the tools instead.
			err = fmt.Errorf("%w; get_status lists the slugs, check_service finds a service by name or domain", err)
		}
		doc.License = api.License
		return reply(ctx, credit, doc, err, serviceSummary, func(doc api.ServiceDoc, credit string) ServiceResult {
			return ServiceResult{ServiceDoc: doc, Attribution: credit}
		})
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "list_incidents",
		Title: "Incidents of AI services",
		Description: "Incidents across all tracked services, newest first: those declared on official status pages " +
			"(source official) and those aistatus detected itself after " + strconv.Itoa(api.ProbeIncidentAfter) + " failed probes in a row (source probe). Severity " +
			"is minor, major or critical; endedAt null means still ongoing. Without since, the window is the " + days(snapshot.DefaultIncidentWindow) + " before " +
			"the snapshot. window gives the effective bound and limit, and window.truncated is true when more incidents " +
			"matched than the limit. A bad filter (a since that is not a date, a service that is not a tracked slug, a limit " +
			"outside 1–" + strconv.Itoa(snapshot.MaxIncidentLimit) + ") is an error that says what is wrong — never a silently empty list. " + licenceNote,
		InputSchema: inputSchema[IncidentQuery](func(p map[string]*jsonschema.Schema) {
			for _, sev := range api.Severities {
				p["severity"].Enum = append(p["severity"].Enum, string(sev))
			}
			p["service"].Description = "only this service's incidents, by slug" + suchAs(ex.slugs[:min(2, len(ex.slugs))], " or ") +
				" (get_status lists them all)"
			p["service"].MaxLength = jsonschema.Ptr(maxSlug)
			p["since"].MaxLength = jsonschema.Ptr(64)
			p["since"].Description += "; default: the " + days(snapshot.DefaultIncidentWindow) + " before the snapshot"
			p["limit"].Description += fmt.Sprintf(", 1 to %d; default %d", snapshot.MaxIncidentLimit, snapshot.DefaultIncidentLimit)
			p["limit"].Minimum, p["limit"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(snapshot.MaxIncidentLimit))
		}),
		Annotations: annotations("Incidents of AI services", false),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in IncidentQuery) (*mcp.CallToolResult, IncidentsResult, error) {
		doc, err := client.Incidents(ctx, in)
		doc.License = api.License
		return reply(ctx, credit, doc, err, incidentsSummary, func(doc api.IncidentList, credit string) IncidentsResult {
			return IncidentsResult{IncidentList: doc, Attribution: credit}
		})
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "check_service",
		Title: "Is this AI service up?",
		Description: "Answers \"is X down?\" for a service name, alias, domain or URL (" + api.JoinList(ex.queries, ", ") + "). Returns the matched service, its status and a plain-language verdict: " +
			"verdict.level is up, degraded, down, maintenance, unknown (no data — not an outage), stale (the data is too old " +
			"to trust; verdict.dataAgeSeconds says how old) or untracked (aistatus does not follow it; verdict.suggestions " +
			"lists close names). The query names a surface of the service too: surface.id is app for claude.ai or chatgpt.com, agent " +
			"for claude code or codex, console for the developer console, api for a bare name or the API host; the status and " +
			"verdict are that surface's, and otherSurfaces lists the service's other surfaces in trouble. " +
			"latencyMs is a live probe of the service's API host (null for another surface), at most " + strconv.Itoa(int(check.LiveTTL.Seconds())) + " s old. " +
			"Pass error (what your call to the service just got: an HTTP status such as 401, 429 or 529, or timeout or connection) " +
			"to learn whether it is you or them: verdict.action is proceed, retry (after verdict.retryAfterSeconds), wait, " +
			"failover (to one of verdict.alternatives: services serving the same models, not down, best first) or fix_client; " +
			"verdict.blame is provider, client or unknown; verdict.confidence high, medium or low; verdict.evidence lists the " +
			"facts behind it (the status page's word, aistatus's probes, recent incidents, what your error code means). " +
			"While the service is down or the advice is to wait or fail over, verdict.pollAfterSeconds says when to check again " +
			"and verdict.resumeWhen what ends the wait, with the event (service.recovered, incident.resolved, …) that marks it. " +
			"Pass code (the error code or type in the provider's error body, or an SDK's exception name such as ThrottlingException) to tell a quota " +
			"from a rate limit from an overload, with error or alone: a code without an HTTP status is read by itself, as the provider sends it most often. " +
			"For one model (e.g. query claude-sonnet-4.5, or query bedrock with model claude-sonnet-4.5), the verdict is the model's at that " +
			"service from the model's own sources (model.providers: the vendor's status-page component, or a model gateway's uptime of its own " +
			"traffic over 5 minutes — the gateway's traffic, not your key's), never the service's status; the alternatives are the other " +
			"services where the model is up, with their figures. " +
			statusLegend + licenceNote,
		InputSchema: inputSchema[checkInput](func(p map[string]*jsonschema.Schema) {
			p["query"].Description = "a service name, alias, domain or URL" + suchAs(ex.queries, " or ")
			p["query"].MinLength, p["query"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(check.MaxQuery)
			p["error"].Description = "optional: what your call to the service just got — the HTTP status (100 to 599, e.g. 401, 429, 529) " +
				"or timeout or connection (refused, reset, DNS, TLS); a number (529) is accepted as well as a string (\"529\"); " +
				"omit it to ask about the status alone"
			p["error"].MinLength, p["error"].MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(maxObserved)
			p["error"].Examples = []any{"401", "429", "529", "timeout", "connection"}
			p["code"].Description = "optional, with or without error: the error code or type in the provider's error body — error.code, else " +
				"error.status, else error.type, skipping numbers (insufficient_quota, rate_limit_error, overloaded_error, RESOURCE_EXHAUSTED) — " +
				"or the exception name an SDK raised (ThrottlingException)"
			p["code"].MaxLength = jsonschema.Ptr(64)
			p["code"].Examples = []any{"insufficient_quota", "overloaded_error", "RESOURCE_EXHAUSTED"}
			p["retryAfter"].Description = "optional: the Retry-After your call got, in seconds (a positive number); it becomes the delay to wait"
			p["retryAfter"].Minimum, p["retryAfter"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(float64(check.MaxRetryAfter))
			p["model"].Description = "optional: a watched model (its id, name or an alias" + suchAs(ex.models, " or ") +
				") to check at the service query names; query may also name the model alone"
			p["model"].MaxLength = jsonschema.Ptr(check.MaxQuery)
		}),
		Annotations: annotations("Is this AI service up?", true),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in checkInput) (*mcp.CallToolResult, CheckResult, error) {
		doc, err := client.Check(ctx, CheckQuery(in))
		doc.License = api.License
		return reply(ctx, credit, doc, err, checkSummary, func(doc api.CheckDoc, credit string) CheckResult {
			return CheckResult{CheckDoc: doc, Attribution: credit}
		})
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "plan_fallback",
		Title: "Where to send a model's requests instead",
		Description: "A fallback plan for a watched model (model, e.g. " + api.JoinList(ex.modelIDs, " or ") + "): the providers serving it, best first " +
			"by the status their witnesses agree on (one gateway's failures alone are its own routing), the gateways' uptime of their own traffic (theirs, not your key's), and aistatus's own " +
			"measured error rate and time to first token; then, only when up, up to two other models of the same maker. Each target gives " +
			"the provider, apiModel (the id that provider's API takes, null when aistatus's catalog does not name it there), status, figures, " +
			"evidence (with when it was true) and formats (the gateways that can carry it). Pass format to also get the plan as a gateway's " +
			"configuration in config, ready to save: litellm (a LiteLLM proxy config.yaml with router_settings.fallbacks), openrouter (the " +
			"models and provider.order members of an OpenRouter request), vercel (the model and providerOptions.gateway of a Vercel AI Gateway " +
			"call) or portkey (a Portkey config, strategy.mode fallback on 429, 503 and 529). No key is ever written: only the environment " +
			"variables each tool reads them from. query names a service instead (" + api.JoinList(ex.queries[:min(2, len(ex.queries))], ", ") +
			"): the service and its alternatives by status, with no configuration. " + statusLegend + licenceNote,
		InputSchema: inputSchema[fallbackInput](func(p map[string]*jsonschema.Schema) {
			p["model"].Description = "a watched model's id, author/model" + suchAs(ex.modelIDs, " or ") + "; send model or query"
			p["model"].MaxLength = jsonschema.Ptr(check.MaxQuery)
			p["query"].Description = "instead of model: a service's name, alias, domain or URL, or a model's id"
			p["query"].MaxLength = jsonschema.Ptr(check.MaxQuery)
			p["format"].Description = "optional: the gateway to write the plan for"
			for _, f := range api.FallbackFormats {
				p["format"].Enum = append(p["format"].Enum, f)
			}
		}),
		Annotations: annotations("Where to send a model's requests instead", false),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in fallbackInput) (*mcp.CallToolResult, FallbackResult, error) {
		fq := FallbackQuery(in)
		plan, err := client.Fallbacks(ctx, fq)
		got := fallbackReply{plan: plan, format: in.Format}
		if err == nil && in.Format != "" {
			got.config, err = client.FallbackConfig(ctx, fq)
		}
		got.plan.License = api.License
		return reply(ctx, credit, got, err, fallbackSummary, func(got fallbackReply, credit string) FallbackResult {
			return FallbackResult{FallbackPlan: got.plan, Format: got.format, Config: got.config, Attribution: credit}
		})
	})
	return s
}

// fallbackSummary is the plan's sentence, each target's figures, and the
// configuration asked for.
func fallbackSummary(got fallbackReply) string {
	var b strings.Builder
	b.WriteString(got.plan.Summary)
	for _, t := range got.plan.Targets {
		fmt.Fprintf(&b, "\n%d. ", t.Rank)
		if t.Model != "" {
			b.WriteString(t.ModelName + " at ")
		}
		fmt.Fprintf(&b, "%s (%s): %s", t.Provider, t.Service, t.Status)
		if t.APIModel != nil {
			fmt.Fprintf(&b, ", model id %s", *t.APIModel)
		}
		if len(t.Evidence) > 0 {
			b.WriteString(". " + t.Evidence[0].Says)
		}
		if t.Agreement != nil {
			b.WriteString(witnessesSaid(*t.Agreement))
		}
	}
	if got.config != "" {
		fmt.Fprintf(&b, "\nAs a %s configuration:\n%s", got.format, got.config)
	}
	return b.String()
}

// witnessesSaid says which witnesses stand behind a status: how many of
// them, their verdict and its statement.
func witnessesSaid(a api.ModelAgreement) string {
	n := 0
	for _, w := range a.Witnesses {
		if w.Counted && w.Status != api.Unknown {
			n++
		}
	}
	return fmt.Sprintf(" Witnesses (%d, %s): %s", n, a.Verdict, a.Statement)
}

// reply is every tool's answer to the API's document and error: the error
// as it is, else the document as structured content (result pairs it with
// this instance's credit line) and as text (summary).
func reply[Doc, Result any](ctx context.Context, credit func(context.Context) string, doc Doc, err error,
	summary func(Doc) string, result func(Doc, string) Result) (*mcp.CallToolResult, Result, error) {
	if err != nil {
		var none Result
		return nil, none, err
	}
	attribution := credit(ctx)
	return text(summary(doc), attribution), result(doc, attribution), nil
}

// maxSlug bounds a slug argument; the catalog's are far shorter.
const maxSlug = 64

// inputSchema infers T's input schema and lets refine add what struct tags
// cannot express (enums, lengths, descriptions built at run time) to its
// properties. It panics on a type the inference rejects, a programming
// error caught by any test that calls New.
//
// The schema stays within what function-calling APIs accept (OpenAI's,
// Gemini's): an object with a properties map, even an empty one, and
// additionalProperties false, each property one plain type — never a type
// array or a oneOf — with a description.
func inputSchema[T any](refine func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	if refine != nil {
		refine(s.Properties)
	}
	return s
}

// examples are real values from the catalog for the tool descriptions.
type examples struct {
	slugs   []string // a few slugs, in catalog order
	names   []string // a few service names
	queries []string // check_service queries: aliases, a host, a URL
	models  []string // a few watched models' names (the part after the maker)
	// modelIDs are a few watched models' ids, author/model.
	modelIDs []string
}

// examplesFrom picks the examples from cat, so that they change with it and
// can never name a service it lacks (as a hard-coded "gemini" slug once did:
// the slug is google-gemini).
func examplesFrom(cat catalog.Catalog) examples {
	var ex examples
	for _, md := range cat.Models.Pinned[:min(2, len(cat.Models.Pinned))] {
		_, name, _ := strings.Cut(md.ID, "/")
		ex.models, ex.modelIDs = append(ex.models, name), append(ex.modelIDs, md.ID)
	}
	for _, svc := range cat.Services {
		if len(ex.slugs) < 4 {
			ex.slugs = append(ex.slugs, svc.Slug)
		}
		if len(ex.names) < 4 {
			ex.names = append(ex.names, svc.Name)
		}
	}
	// Two aliases, the host of one API and the full URL of another's: the
	// forms people paste.
	var aliases, hosts, urls []string
	for _, svc := range cat.Services {
		if len(svc.Aliases) > 0 {
			aliases = append(aliases, svc.Aliases[0])
		}
		if u, err := url.Parse(svc.ProbeURL); err == nil && u.Host != "" {
			hosts, urls = append(hosts, u.Host), append(urls, svc.ProbeURL)
		}
	}
	ex.queries = append(ex.queries, aliases[:min(2, len(aliases))]...)
	if len(hosts) > 0 {
		ex.queries = append(ex.queries, hosts[0])
	}
	if len(urls) > 1 {
		ex.queries = append(ex.queries, urls[1])
	}
	return ex
}

// suchAs is ", such as a, b or c", or "" with no examples.
func suchAs(items []string, last string) string {
	if len(items) == 0 {
		return ""
	}
	return ", such as " + api.JoinList(items, last)
}

// text is a result whose Content is a short summary for models and clients
// that read only text, with the credit line; the SDK adds the structured
// content beside it.
func text(summary, attribution string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary + "\nData: " + attribution + "."}}}
}

func statusSummary(doc api.StatusDoc) string {
	counts := map[api.Status]int{}
	var notUp []string
	for _, s := range doc.Services {
		counts[s.Status]++
		if s.Status != api.Operational {
			notUp = append(notUp, fmt.Sprintf("%s (%s): %s", s.Name, s.Slug, s.Status.Word()))
		}
	}
	var parts []string
	for _, st := range api.Statuses {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st.Word()))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d services as of %s: %s.", len(doc.Services), doc.Timestamp.UTC().Format(time.RFC3339), strings.Join(parts, ", "))
	if len(notUp) > 0 {
		fmt.Fprintf(&b, "\nNot operational: %s.", strings.Join(notUp, "; "))
	}
	if counts[api.Unknown] > 0 {
		b.WriteString("\n(unknown means aistatus has no data, not that the service is down.)")
	}
	return b.String()
}

func serviceSummary(doc api.ServiceDoc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) is %s", doc.Name, doc.Slug, doc.Status.Word())
	if doc.LastChecked != nil {
		fmt.Fprintf(&b, " as of %s", doc.LastChecked.UTC().Format(time.RFC3339))
	}
	u, c := doc.Uptime, doc.UptimeCoverage
	fmt.Fprintf(&b, ". Uptime: 24h %s, 7d %s, 30d %s.", history.UptimeText(u.H24, c.H24), history.UptimeText(u.D7, c.D7), history.UptimeText(u.D30, c.D30))
	if d := doc.Sources.Disagreement; d != nil {
		fmt.Fprintf(&b, " Our probes overrule its status page, which says %s: %s", d.Official, d.Detail)
	}
	var affected []string
	for _, c := range doc.Components {
		if c.InScope && c.Status != api.Operational {
			affected = append(affected, c.Name+" ("+c.Status.Word()+")")
		}
	}
	if len(affected) > 0 {
		fmt.Fprintf(&b, " Affected API components: %s.", strings.Join(affected, ", "))
	}
	ongoing := 0
	for _, inc := range doc.Incidents {
		if inc.EndedAt == nil {
			ongoing++
		}
	}
	fmt.Fprintf(&b, " %s retained, %d ongoing.", count(len(doc.Incidents), "incident"), ongoing)
	if lasted := doc.Reliability.IncidentDuration.Phrase(); lasted != "" {
		b.WriteString(" Its ended incidents lasted: " + lasted + ".")
	}
	if len(doc.Incidents) > 0 {
		inc := doc.Incidents[0]
		fmt.Fprintf(&b, " Latest: %q (%s, started %s).", inc.Headline, inc.Severity, inc.StartedAt.UTC().Format(time.RFC3339))
	}
	var others []string
	for _, sf := range doc.Surfaces {
		if sf.ID == catalog.SurfaceAPI {
			continue
		}
		open := 0
		for _, inc := range sf.Incidents {
			if inc.Open() {
				open++
			}
		}
		others = append(others, fmt.Sprintf("%s (%s) is %s, %s open", sf.Name, sf.ID, sf.Status, count(open, "incident")))
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, " The above is its API; other surfaces: %s.", strings.Join(others, "; "))
	}
	return b.String()
}

// count says n of a thing: "1 incident", "3 incidents".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// maxListed bounds the incidents spelled out in list_incidents' text
// summary; the structured content has them all.
const maxListed = 10

func incidentsSummary(doc api.IncidentList) string {
	var b strings.Builder
	b.WriteString(count(len(doc.Incidents), "incident"))
	if doc.Window != nil {
		fmt.Fprintf(&b, " started since %s", doc.Window.Since.UTC().Format(time.RFC3339))
		if doc.Window.Truncated {
			fmt.Fprintf(&b, " (truncated at limit %d: more matched)", doc.Window.Limit)
		}
	}
	b.WriteString(", newest first.")
	for i, inc := range doc.Incidents {
		if i == maxListed {
			fmt.Fprintf(&b, "\n- … and %d more (see the structured content).", len(doc.Incidents)-maxListed)
			break
		}
		state := "ongoing"
		if inc.EndedAt != nil {
			state = "ended " + inc.EndedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "\n- %s %s, %s: %q (started %s, %s)", inc.Service, inc.Severity, inc.Source, inc.Headline,
			inc.StartedAt.UTC().Format(time.RFC3339), state)
	}
	return b.String()
}

func checkSummary(doc api.CheckDoc) string {
	s := doc.Verdict.Emoji + " " + doc.Verdict.Headline + "."
	if doc.Verdict.Detail != "" {
		s += " " + doc.Verdict.Detail
	}
	if m := doc.Model; m != nil {
		for _, p := range m.Providers {
			if p.Uptime != nil {
				s += fmt.Sprintf(" %s at %s: %s, %.1f%% over %s per %s", m.Name, p.Provider, p.Status, *p.Uptime, p.Source.Window, p.Source.Name)
			} else {
				s += fmt.Sprintf(" %s at %s: %s per %s", m.Name, p.Provider, p.Status, p.Source.Name)
			}
			if l := p.Latency; l != nil {
				s += fmt.Sprintf(", first token in %.0f ms (p50, %s)", l.P50, l.Window)
			}
			s += "."
		}
		if a := m.Agreement; a != nil {
			s += witnessesSaid(*a)
		}
	}
	if doc.LatencyMs != nil {
		of := "Its API"
		if sf := doc.Surface; sf != nil && sf.ID != catalog.SurfaceAPI {
			// claude.ai is probed at its own host, not the API's.
			of = sf.Name + "'s host"
		}
		s += fmt.Sprintf(" %s answered in %.0f ms.", of, *doc.LatencyMs)
	}
	if len(doc.Verdict.Suggestions) > 0 {
		s += " Did you mean " + api.JoinList(doc.Verdict.Suggestions, " or ") + "?"
	}
	if v := doc.Verdict; v.Action != "" {
		s += fmt.Sprintf(" Action: %s (blame: %s, confidence: %s", v.Action, v.Blame, v.Confidence)
		if v.RetryAfterSeconds != nil {
			s += fmt.Sprintf(", retry after %d s", *v.RetryAfterSeconds)
		}
		s += "). " + v.Reason
		if v.PollAfterSeconds != nil {
			s += comeBack(*v.PollAfterSeconds, v.ResumeWhen)
		}
		if len(v.Alternatives) > 0 {
			alts := make([]string, len(v.Alternatives))
			for i, a := range v.Alternatives {
				alts[i] = fmt.Sprintf("%s (%s, %s)", a.Name, a.Slug, a.Status)
			}
			s += " Alternatives: " + strings.Join(alts, ", ") + "."
		}
	}
	return s
}

// comeBack says when to check again and what ends the wait: " Check again
// in 120 s; the wait ends when OpenAI API is back to operational (event
// service.recovered, subject openai) or …".
func comeBack(poll int, conditions []api.ResumeCondition) string {
	s := fmt.Sprintf(" Check again in %d s", poll)
	whens := make([]string, len(conditions))
	for i, c := range conditions {
		whens[i] = c.When
		if c.Event != "" {
			whens[i] += fmt.Sprintf(" (event %s, subject %s)", c.Event, c.Subject)
		}
	}
	if len(whens) > 0 {
		s += "; the wait ends when " + api.JoinList(whens, " or ")
	}
	return s + "."
}

// percent says a fraction as a percentage: 0.3 is "30%".
func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }

// days says a whole number of days: "30 days".
func days(d time.Duration) string { return strconv.Itoa(int(d/(24*time.Hour))) + " days" }
