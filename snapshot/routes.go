package snapshot

import (
	"time"
)

// The public paths of the API and the MCP endpoint. Everything that spells a
// path — the thin server's router and rate limit, the static-hosting rules,
// the discovery file — takes it from here, so they cannot disagree.
const (
	// APIBase is the versioned base path of the API.
	APIBase = "/api/v1"
	// APINamespace holds every API version: a path under it that no route
	// matches is an unknown endpoint (a 404 problem, rate-limited like the
	// API: probing for endpoints is an API call), never a page.
	APINamespace = "/api/"

	PathStatus  = APIBase + "/status"
	PathService = APIBase + "/services/" + SlugParam
	// PathServiceHistory is a service's daily rollups (from, to).
	PathServiceHistory = PathService + "/history"
	PathIncidents      = APIBase + "/incidents"
	PathCheck          = APIBase + "/check"
	// PathFallbacks is a model's fallback plan, and its gateway
	// configurations (api.FallbackPlan).
	PathFallbacks = APIBase + "/fallbacks"
	PathOpenAPI   = APIBase + "/openapi.json"
	PathExport    = APIBase + "/export"
	PathSources   = APIBase + "/sources"
	// PathAPIIndex is the API's index document: links to every endpoint
	// (also answered at APIBase, without the slash).
	PathAPIIndex = APIBase + "/"
	// PathStatusAt and PathServiceAt are the point-in-time reads, paths of
	// their own so that each operation has one response schema (the older
	// ?at= on PathStatus and PathService answers the same and stays).
	PathStatusAt  = PathStatus + "/at/" + TimeParam
	PathServiceAt = PathService + "/at/" + TimeParam
	// PathReliability is every service's Reliability (history/predict.go).
	PathReliability = APIBase + "/reliability"
	// PathSituation is every subject's status at once (api.Situation).
	PathSituation = APIBase + "/situation"
	PathChanges   = APIBase + "/changes"
	PathEvents    = APIBase + "/events"
	PathModels    = APIBase + "/models"
	PathModel     = APIBase + "/models/" + AuthorParam + "/" + ModelNameParam
	// PathModelRetirements is the retirement calendar of models
	// (api.RetirementsDoc).
	PathModelRetirements = APIBase + "/models/retirements"
	// PathModelRetirementsCalendar is the same calendar as iCalendar, for
	// calendar clients to subscribe to.
	PathModelRetirementsCalendar = PathModelRetirements + ".ics"
	// PathStatusline answers one line of plain text, for prompts and terminals.
	PathStatusline = APIBase + "/statusline"
	// PathMetrics is the Prometheus exposition (FileMetrics), where
	// scrapers look for it; outside the API's base, yet part of its budget.
	PathMetrics = "/metrics"
	// PathMCP is where the MCP server answers over streamable HTTP.
	PathMCP = "/mcp"
	// PathHealthz (the process is up) and PathReadyz (it should get
	// traffic) are for load balancers and orchestrators.
	PathHealthz = "/healthz"
	PathReadyz  = "/readyz"
)

// SlugParam is the placeholder for a service slug in Route.Path and
// Route.File, in net/http ServeMux syntax ({name} stands for one segment).
const SlugParam = "{slug}"

// TimeParam is the placeholder for an RFC 3339 instant in Route.Path.
const TimeParam = "{time}"

// AuthorParam and ModelNameParam are the two segments of a model's id
// ("anthropic" and "claude-sonnet-4.5") in PathModel and its file.
const (
	AuthorParam    = "{author}"
	ModelNameParam = "{model}"
)

// Route is one path the thin server answers apart from the snapshot's plain
// files (the status page, badges, feeds, llms.txt, discovery files), which
// are served at their own paths and are not routes.
type Route struct {
	// Path is the request path; it may hold SlugParam.
	Path string
	// File is the snapshot file that answers Path on a static host (with the
	// same placeholder); "" when only the thin server can answer.
	File        string
	ContentType string
	// Dynamic routes are computed by the thin server per request: /check,
	// filtered /incidents (File is then the unfiltered answer a static host
	// gives) and /mcp. A static host proxies them to the thin server.
	Dynamic bool
	// RateLimited routes are the API proper and cost one request of the
	// client's budget (an MCP message costs one too). Everything else is
	// static content, served without the API's budget as a CDN would.
	RateLimited bool
	// Instance routes are answered by each thin-server instance about
	// itself (health and readiness): never rate limited, never cached, and
	// never proxied from a static host, whose rules leave them out.
	Instance bool
}

// Routes is the route table, in the order the static-hosting rules list them.
func Routes() []Route {
	return []Route{
		{Path: PathAPIIndex, File: FileAPIIndex, ContentType: ContentJSON, RateLimited: true},
		{Path: PathStatus, File: FileStatus, ContentType: ContentJSON, RateLimited: true},
		{Path: PathService, File: ServiceFile(SlugParam), ContentType: ContentJSON, RateLimited: true},
		// The static file holds every day; the server answers from/to.
		{Path: PathServiceHistory, File: ServiceHistoryFile(SlugParam), ContentType: ContentJSON, Dynamic: true, RateLimited: true},
		{Path: PathStatusAt, ContentType: ContentJSON, Dynamic: true, RateLimited: true},
		{Path: PathServiceAt, ContentType: ContentJSON, Dynamic: true, RateLimited: true},
		{Path: PathModels, File: FileModels, ContentType: ContentJSON, RateLimited: true},
		{Path: PathModel, File: ModelFile(AuthorParam + "/" + ModelNameParam), ContentType: ContentJSON, RateLimited: true},
		{Path: PathModelRetirements, File: FileModelRetirements, ContentType: ContentJSON, RateLimited: true},
		{Path: PathModelRetirementsCalendar, File: FileModelRetirementsCalendar, ContentType: ContentCalendar, RateLimited: true},
		{Path: PathCheck, ContentType: ContentJSON, Dynamic: true, RateLimited: true},
		// Computed per request, as /check: the plan follows the snapshot's
		// figures, and five forms of every watched model would be most of
		// the files of a snapshot for a few requests.
		{Path: PathFallbacks, ContentType: ContentJSON, Dynamic: true, RateLimited: true},
		{Path: PathIncidents, File: FileIncidents, ContentType: ContentJSON, Dynamic: true, RateLimited: true},
		{Path: PathOpenAPI, File: FileOpenAPI, ContentType: ContentJSON, RateLimited: true},
		{Path: PathExport, File: FileExport, ContentType: ContentCSV, RateLimited: true},
		{Path: PathSources, File: FileSources, ContentType: ContentJSON, RateLimited: true},
		{Path: PathReliability, File: FileReliability, ContentType: ContentJSON, RateLimited: true},
		// The thin server adds each service's crowd count, as to a service
		// document; a static host serves the file as built.
		{Path: PathSituation, File: FileSituation, ContentType: ContentJSON, RateLimited: true},
		// changes.json is the recent log; the server answers ?since from the whole retained one.
		{Path: PathChanges, File: FileChanges, ContentType: ContentJSON, Dynamic: true, RateLimited: true},
		// The event stream is only the server's: the limit is charged once, at connect.
		{Path: PathEvents, ContentType: ContentEventStream, Dynamic: true, RateLimited: true},
		{Path: PathMCP, ContentType: ContentJSON, Dynamic: true, RateLimited: true},
		{Path: PathStatusline, ContentType: ContentText, Dynamic: true, RateLimited: true},
		{Path: PathMetrics, File: FileMetrics, ContentType: ContentMetrics, RateLimited: true},
		{Path: PathHealthz, ContentType: ContentJSON, Instance: true},
		{Path: PathReadyz, ContentType: ContentJSON, Instance: true},
	}
}

// The /incidents paging rules, stated once for the server, the MCP tools'
// descriptions and the OpenAPI description's tests.
const (
	// DefaultIncidentWindow applies when since is not sent.
	DefaultIncidentWindow = 30 * 24 * time.Hour
	DefaultIncidentLimit  = 100
	MaxIncidentLimit      = 1000
)
