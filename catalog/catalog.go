package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Service is one tracked AI service as the catalog describes it.
type Service struct {
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Category string `json:"category"`
	// Domain is the service's main domain; /check also matches its subdomains.
	Domain string `json:"domain"`
	// Domains are further domains (or host patterns with a "*" label, like
	// "bedrock-runtime.*.amazonaws.com") that /check attributes to the service.
	Domains []string `json:"domains,omitempty"`
	// Aliases are other names people use for the service (chatgpt, claude, …).
	Aliases []string `json:"aliases,omitempty"`
	// Alternatives are tracked services to fail over to when this one is
	// down: ones that serve the same models (Claude on Bedrock and Vertex
	// AI, GPT on Azure, open-weight models on several hosts) or, failing
	// that, the same kind of work. Best first; /check lists those not down.
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// URL is the service's public web address.
	URL string `json:"url"`
	// StatusPage is the official, human-readable status page.
	StatusPage string `json:"statusPage"`
	Feed       Feed   `json:"feed"`
	// ProbeURL is the API endpoint our latency probe requests; empty when the
	// service has no generic API host (its status then comes from the feed alone).
	ProbeURL string `json:"probeUrl,omitempty"`
	// ErrorCodes names the table of Catalog.ErrorCodes that reads the error
	// codes of this service's API (OpenAI-compatible APIs share OpenAI's);
	// empty when we have none: the HTTP status alone then decides.
	ErrorCodes string `json:"errorCodes,omitempty"`
	// Completion configures measured completions (CompletionProbe):
	// sent only when the operator sets its key's environment variable.
	Completion *CompletionProbe `json:"completion,omitempty"`
	// Surfaces are the parts of the service other than its API that its
	// status page lists (the consumer app, a coding agent, the console),
	// each with its own scope, aliases and domains; the API surface is
	// Feed.Scope and the service's own aliases and domains.
	Surfaces []Surface `json:"surfaces,omitempty"`
	// OtherComponents are the components of the service's page that are
	// deliberately in none of its surfaces (not the API's scope, not a
	// surface's), each with why: a government edition, an ads product, a
	// compliance endpoint. With the surfaces they place every component the
	// page lists in exactly one of api, app, agent, console or other.
	OtherComponents []OtherComponent `json:"otherComponents,omitempty"`
}

// OtherComponent is a component of a service's page in none of its
// surfaces. ID, when given, decides which component it is (two components
// of one page may share a name) and Name says what it is; without an ID,
// the component called exactly Name (case aside), as a scope's
// componentNames place one whose id rotates.
type OtherComponent struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Why says why the component is in no surface; required.
	Why string `json:"why"`
}

// Matches reports whether the entry is the component with this id and name.
func (o OtherComponent) Matches(id, name string) bool {
	if o.ID != "" {
		return o.ID == id
	}
	return strings.EqualFold(strings.TrimSpace(name), o.Name)
}

// Alternative is a service to fail over to, and why it can stand in: the
// reason is published with it, so the curation is documented where it is
// made and an agent can judge whether it fits what it was doing.
type Alternative struct {
	Slug string `json:"slug"`
	Why  string `json:"why"`
}

// Feed says where and in which format a service publishes its official status.
type Feed struct {
	Format FeedFormat `json:"format"`
	// URL is the main document (summary.json, index.json, the RSS feed, …).
	URL string `json:"url,omitempty"`
	// IncidentsURL is the list of recent incidents, where the format has one.
	IncidentsURL string `json:"incidentsUrl,omitempty"`
	// ComponentsURL is the full component list, where the main document
	// carries only part of it (incident.io's summary.json rotates a subset
	// of a large page's components; components.json has them all).
	ComponentsURL string `json:"componentsUrl,omitempty"`
	// Scope says which part of the page is the developer API the service
	// stands for; the zero Scope is the whole page.
	Scope Scope `json:"scope,omitzero"`
	// Note says why a service has no feed (format "none"), or anything else a
	// reader of the catalog should know about its source. It is published
	// with the feed's state.
	Note string `json:"note,omitempty"`
}

// Scope narrows a status page to the developer API. Words and names match
// case-insensitively as whole words ("API" matches "Claude API" but not
// "RAPID"), so "claude.ai" or "[Global (api.x.ai)]" can be given as they are
// written on the page.
type Scope struct {
	// Components are the ids of the components, or of component groups, that
	// make up the API. A component is in scope when its id or its group's id
	// is listed.
	Components []string `json:"components,omitempty"`
	// ComponentNames are used instead of Components when none of those ids is
	// on the page any more (ids rotate when a page is rebuilt); while one is,
	// a component called exactly one of these names is in scope too (one
	// whose id was never seen: a page that lists a rotating subset).
	ComponentNames []string `json:"componentNames,omitempty"`
	// ExcludeComponents are names never in scope (Website, Docs, Billing).
	ExcludeComponents []string `json:"excludeComponents,omitempty"`
	// IncidentKeywords put an incident that names no component (incident.io
	// never lists them; feeds of events have none) in scope by its title.
	IncidentKeywords []string `json:"incidentKeywords,omitempty"`
	// ExcludeIncidents take an incident out of scope by its title, unless
	// the title also has one of IncidentKeywords ("ChatGPT and API errors").
	ExcludeIncidents []string `json:"excludeIncidents,omitempty"`
}

// IsZero reports whether the scope is the whole page.
func (s Scope) IsZero() bool {
	return len(s.Components) == 0 && len(s.ComponentNames) == 0 && len(s.ExcludeComponents) == 0 &&
		len(s.IncidentKeywords) == 0 && len(s.ExcludeIncidents) == 0
}

// SelectsComponents reports whether the scope names the components that are
// in it, rather than taking every component but the excluded ones.
func (s Scope) SelectsComponents() bool { return len(s.Components) > 0 || len(s.ComponentNames) > 0 }

// FeedFormat names a kind of official status feed.
type FeedFormat string

// The feed formats aistatus reads. "none" means the service is tracked by our
// probe alone (Feed.Note says why).
const (
	FormatStatuspage  FeedFormat = "statuspage"
	FormatIncidentIO  FeedFormat = "incidentio"
	FormatInstatus    FeedFormat = "instatus"
	FormatBetterStack FeedFormat = "betterstack"
	FormatCheckly     FeedFormat = "checkly"
	FormatGoogleCloud FeedFormat = "gcloud"
	FormatAWSHealth   FeedFormat = "awshealth"
	FormatRSS         FeedFormat = "rss"
	FormatFlashduty   FeedFormat = "flashduty"
	FormatHTML        FeedFormat = "html"
	FormatDatadog     FeedFormat = "datadog"
	FormatNone        FeedFormat = "none"
)

// FeedFormats lists every format a catalog may name. The rest of what is
// known about a format (its reader, its name for people, the fake page of
// the tests) is in build/feed's table of formats, Formats, which is in this
// order; its test ties the two lists and the OpenAPI enum together.
var FeedFormats = []FeedFormat{FormatStatuspage, FormatIncidentIO, FormatInstatus, FormatBetterStack,
	FormatCheckly, FormatGoogleCloud, FormatAWSHealth, FormatRSS, FormatFlashduty, FormatHTML, FormatDatadog, FormatNone}

// Categories lists the allowed service categories.
var Categories = []string{"llm-api", "cloud-ai", "inference", "image-video", "audio-speech", "vector-db", "llmops", "coding-assistant"}

// Catalog is the ordered list of tracked services.
type Catalog struct {
	Services []Service `json:"services"`
	// ErrorCodes are the providers' error-code tables, by name: what the
	// code or type in an API's error body means for whoever got it, each
	// row citing the provider's documentation.
	ErrorCodes map[string][]ErrorCode `json:"errorCodes,omitempty"`
	// Models are the watched models and the gateways read for them
	// (models.go).
	Models ModelCatalog `json:"models,omitzero"`
}

// ErrorCode is one row of a provider's error-code table.
type ErrorCode struct {
	// Code is the value as the provider's error body carries it (error.code,
	// error.type or error.status), matched exactly. "" makes the row a
	// status row: what the provider means by the HTTP status Status itself,
	// where that is not what the status means elsewhere (Groq's 498 is
	// its flex tier out of capacity, not a request to fix); it is read
	// when no listed code decides.
	Code string `json:"code,omitempty"`
	// Status is the HTTP status the row applies to, when the code alone is
	// ambiguous (Gemini's RESOURCE_EXHAUSTED is a rate limit with a 429 and
	// depleted prepaid credit with a 402); 0 for any status.
	Status int            `json:"status,omitempty"`
	Class  ErrorCodeClass `json:"class"`
	// Usual marks, among the rows of a code for several statuses, the one
	// the provider sends most: a code that came without a status reads
	// as it (Gemini sends RESOURCE_EXHAUSTED with a 429 far more often
	// than with a 402). A code listed for several statuses of different
	// classes names one.
	Usual bool `json:"usual,omitempty"`
	// Doc is where the provider documents the code (or, for a code it does
	// not document, a public capture of it): an https URL, required.
	Doc  string `json:"doc"`
	Note string `json:"note,omitempty"`
}

// ErrorCodeClass is what an error code means for the caller, in the classes
// /check's rules tell apart.
type ErrorCodeClass string

// The error-code classes.
const (
	// CodeQuota: out of credit, a spending cap or a plan's limit: it will
	// not come back by retrying.
	CodeQuota ErrorCodeClass = "quota"
	// CodeConcurrency: too many requests in flight on one key.
	CodeConcurrency ErrorCodeClass = "concurrency"
	// CodeRateLimit: a transient rate limit, over after Retry-After.
	CodeRateLimit ErrorCodeClass = "rate_limit"
	// CodeOverloaded: the provider lacks capacity and says so.
	CodeOverloaded ErrorCodeClass = "overloaded"
	// CodeServer: the provider's own failure.
	CodeServer  ErrorCodeClass = "server"
	CodeTimeout ErrorCodeClass = "timeout"
	// CodeRequest: a request refused as it stands (malformed, too large,
	// too long for the context).
	CodeRequest ErrorCodeClass = "request"
	CodeAuth    ErrorCodeClass = "auth"
	// CodeModel: the model does not exist or is not available to the key.
	CodeModel ErrorCodeClass = "model"
	// CodeRegion: the provider does not serve the country or region the
	// request comes from (OpenAI's unsupported_country_region_territory):
	// neither the key nor the request, and no retry from there mends it.
	CodeRegion ErrorCodeClass = "region"
)

// ErrorCodeClasses lists every class, the most severe first: that is the
// order in which a code that came without an HTTP status picks among its
// rows when none is marked usual (Catalog.ErrorCode). First what no retry
// mends, by what it takes to mend it (credit, then credentials, then where
// the call comes from, then the model or the request), then the caller's
// own limits that pass (concurrency, rate limit), then the provider's
// passing trouble (overloaded, server, timeout). Reading a code as more
// severe than it was costs the caller a look at its account; reading it
// as milder costs retries that cannot succeed.
var ErrorCodeClasses = []ErrorCodeClass{CodeQuota, CodeAuth, CodeRegion, CodeModel, CodeRequest, CodeConcurrency, CodeRateLimit, CodeOverloaded, CodeServer, CodeTimeout}

// errorCodePattern is what a code may be (also /check's code parameter).
var errorCodePattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// ValidErrorCode reports whether s has the shape of a provider's error code.
func ValidErrorCode(s string) bool { return errorCodePattern.MatchString(s) }

// ErrorCode returns what code means for svc's API when the caller got the
// HTTP status. With a status, the code's row for that status, else its row
// for any status. Without one (0: an SDK or gRPC error that carries no HTTP
// status, a timeout, a stream's error event), the code's usual row, the
// status the provider sends it with most (Gemini's RESOURCE_EXHAUSTED
// reads as its 429, a rate limit); a code with no usual row matches its
// rows whatever their status, and the most severe class wins (the order of
// ErrorCodeClasses). False when the table does not list the code (or svc
// has none); "" is no code.
func (c Catalog) ErrorCode(svc Service, code string, status int) (ErrorCode, bool) {
	var best ErrorCode
	found := false
	if code == "" {
		return best, false
	}
	for _, row := range c.ErrorCodes[svc.ErrorCodes] {
		switch {
		case row.Code != code:
		case status != 0 && row.Status == status:
			return row, true
		case status != 0:
			if row.Status == 0 && !found {
				best, found = row, true
			}
		case row.Usual:
			return row, true
		case !found || slices.Index(ErrorCodeClasses, row.Class) < slices.Index(ErrorCodeClasses, best.Class):
			best, found = row, true
		}
	}
	return best, found
}

// ErrorStatus returns what the HTTP status means for svc's API by its
// table's status row (a row without a code), where the provider gives the
// status a meaning of its own: Groq's 498. False when there is none, and
// the status is read as everywhere.
func (c Catalog) ErrorStatus(svc Service, status int) (ErrorCode, bool) {
	for _, row := range c.ErrorCodes[svc.ErrorCodes] {
		if row.Code == "" && status != 0 && row.Status == status {
			return row, true
		}
	}
	return ErrorCode{}, false
}

// ListsErrorCode reports whether svc's error table lists code, for any
// status. Such a code is one of the provider's documented values; any other
// value where a code goes may be anything the provider echoed, so measured
// completions publish it as api.OtherErrorCode.
func (c Catalog) ListsErrorCode(svc Service, code string) bool {
	_, listed := c.ErrorCode(svc, code, 0) // status 0: any of the code's rows
	return listed
}

//go:embed catalog.json
var embeddedCatalog []byte

// Load reads a catalog file, or returns the embedded one when path is "".
func Load(path string) (Catalog, error) {
	if path == "" {
		return Default()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Catalog{}, fmt.Errorf("catalog: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return Catalog{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes and validates a catalog document. Unknown fields are
// errors so that a typo in a hand-edited catalog is not silently ignored.
func Parse(data []byte) (Catalog, error) {
	var c Catalog
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		if strings.Contains(err.Error(), `unknown field "filter"`) {
			// Catalogs written for the first version scoped a feed with a
			// substring filter; say what replaced it.
			return Catalog{}, fmt.Errorf("catalog: %w: feed.filter was replaced by feed.scope (componentNames and incidentKeywords; see docs/api.md)", err)
		}
		return Catalog{}, fmt.Errorf("catalog: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Catalog{}, errors.New("catalog: unexpected data after the catalog object")
	}
	if err := c.Validate(); err != nil {
		return Catalog{}, err
	}
	return c, nil
}

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Validate checks every service and reports all problems at once.
func (c Catalog) Validate() error {
	if len(c.Services) == 0 {
		return errors.New("catalog: no services")
	}
	var errs []error
	seen := map[string]bool{}
	for i, s := range c.Services {
		where := fmt.Sprintf("catalog: services[%d] (%q)", i, s.Slug)
		bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(where+": "+format, args...)) }
		switch {
		case !slugPattern.MatchString(s.Slug):
			bad("slug must be lower-case letters, digits and single hyphens")
		case seen[s.Slug]:
			bad("duplicate slug")
		}
		seen[s.Slug] = true
		if strings.TrimSpace(s.Name) == "" {
			bad("name is empty")
		}
		if !contains(Categories, s.Category) {
			bad("unknown category %q (want one of %s)", s.Category, strings.Join(Categories, ", "))
		}
		if s.Domain == "" || strings.ContainsAny(s.Domain, "/: ") || s.Domain != strings.ToLower(s.Domain) {
			bad("domain %q must be a lower-case host name", s.Domain)
		}
		for _, d := range s.Domains {
			if d == "" || strings.ContainsAny(d, "/: ") || d != strings.ToLower(d) {
				bad("domains: %q must be a lower-case host name or pattern", d)
			}
		}
		if !contains(FeedFormats, s.Feed.Format) {
			bad("unknown feed format %q", s.Feed.Format)
		}
		if s.Feed.Format != FormatNone && s.Feed.URL == "" {
			bad("feed.url is required for format %q", s.Feed.Format)
		}
		if s.Feed.Format == FormatNone && s.ProbeURL == "" {
			bad("a service with no feed needs a probeUrl")
		}
		if s.Feed.Format == FormatNone && strings.TrimSpace(s.Feed.Note) == "" {
			bad("feed.note must say why the service has no feed")
		}
		if s.Completion != nil {
			for _, e := range s.Completion.problems() {
				bad("%s", e)
			}
		}
		for _, e := range s.Feed.Scope.problems() {
			bad("feed.scope: %s", e)
		}
		for _, e := range s.surfaceProblems() {
			bad("%s", e)
		}
		for _, e := range s.otherComponentProblems() {
			bad("%s", e)
		}
		for _, f := range []struct {
			name, url string
			optional  bool
		}{
			{"url", s.URL, false}, {"statusPage", s.StatusPage, false},
			{"feed.url", s.Feed.URL, true}, {"feed.incidentsUrl", s.Feed.IncidentsURL, true},
			{"feed.componentsUrl", s.Feed.ComponentsURL, true}, {"probeUrl", s.ProbeURL, true},
		} {
			if f.optional && f.url == "" {
				continue
			}
			if err := checkAbsoluteURL(f.url); err != nil {
				bad("%s: %v", f.name, err)
			}
		}
	}
	for name, rows := range c.ErrorCodes {
		codes := map[string]bool{}
		for _, r := range rows {
			where := fmt.Sprintf("catalog: errorCodes[%q]: %q", name, r.Code)
			if r.Code == "" {
				where = fmt.Sprintf("catalog: errorCodes[%q]: status row %d", name, r.Status)
			}
			switch {
			case r.Code == "" && r.Status == 0:
				errs = append(errs, errors.New(where+": a row without a code reads a status, and names it"))
			case r.Code == "" && r.Usual:
				errs = append(errs, errors.New(where+": usual picks among a code's rows; a status row has no code"))
			case r.Code != "" && !ValidErrorCode(r.Code):
				errs = append(errs, errors.New(where+": a code is 1 to 64 of [A-Za-z0-9_.:-]"))
			case codes[fmt.Sprint(r.Code, r.Status)]:
				errs = append(errs, errors.New(where+" is listed twice for one status"))
			case r.Status != 0 && (r.Status < 400 || r.Status > 599):
				errs = append(errs, fmt.Errorf("%s: status %d is not an error status", where, r.Status))
			case !contains(ErrorCodeClasses, r.Class):
				errs = append(errs, fmt.Errorf("%s: unknown class %q", where, r.Class))
			}
			// Every row cites where the meaning comes from, over TLS: the
			// citation is published with the advice it justifies.
			if u, err := url.Parse(r.Doc); err != nil || u.Scheme != "https" || u.Host == "" {
				errs = append(errs, fmt.Errorf("%s: doc %q is not an https URL of the provider's documentation or a public capture", where, r.Doc))
			}
			codes[fmt.Sprint(r.Code, r.Status)] = true
		}
		errs = append(errs, usualProblems(name, rows)...)
	}
	for i, s := range c.Services {
		if _, ok := c.ErrorCodes[s.ErrorCodes]; s.ErrorCodes != "" && !ok {
			errs = append(errs, fmt.Errorf("catalog: services[%d] (%q): errorCodes %q names no table of the catalog", i, s.Slug, s.ErrorCodes))
		}
	}
	errs = append(errs, c.Models.validate(seen)...)
	if len(c.Models.Gateways) > 0 && len(c.Models.Pinned) == 0 {
		errs = append(errs, errNoModels)
	}
	errs = append(errs, c.surfaceNameClashes()...)
	// Alternatives name other services, so they are checked once every slug
	// is known.
	for i, s := range c.Services {
		listed := map[string]bool{}
		for _, a := range s.Alternatives {
			where := fmt.Sprintf("catalog: services[%d] (%q): alternatives: %q", i, s.Slug, a.Slug)
			switch {
			case a.Slug == s.Slug:
				errs = append(errs, errors.New(where+" is the service itself"))
			case !seen[a.Slug]:
				errs = append(errs, errors.New(where+" is not a slug of this catalog"))
			case listed[a.Slug]:
				errs = append(errs, errors.New(where+" is listed twice"))
			}
			if strings.TrimSpace(a.Why) == "" {
				errs = append(errs, errors.New(where+": why is empty"))
			}
			listed[a.Slug] = true
		}
	}
	return errors.Join(errs...)
}

// usualProblems lists the codes of a table that a code alone cannot read
// by the provider's word: one listed for several statuses of different
// classes with no usual row, or with more than one.
func usualProblems(table string, rows []ErrorCode) []error {
	var errs []error
	classes, usual := map[string]map[ErrorCodeClass]bool{}, map[string]int{}
	var order []string
	for _, r := range rows {
		if r.Code == "" {
			continue
		}
		if classes[r.Code] == nil {
			classes[r.Code] = map[ErrorCodeClass]bool{}
			order = append(order, r.Code)
		}
		classes[r.Code][r.Class] = true
		if r.Usual {
			usual[r.Code]++
		}
	}
	for _, code := range order {
		where := fmt.Sprintf("catalog: errorCodes[%q]: %q", table, code)
		switch {
		case usual[code] > 1:
			errs = append(errs, errors.New(where+": more than one row is usual"))
		case usual[code] == 0 && len(classes[code]) > 1:
			errs = append(errs, errors.New(where+": rows of several classes and none usual: mark the status the provider sends it with most"))
		}
	}
	return errs
}

// problems lists what is wrong with a scope: empty or padded entries, and
// entries listed twice.
func (s Scope) problems() []string {
	var out []string
	for _, list := range []struct {
		name  string
		items []string
	}{
		{"components", s.Components}, {"componentNames", s.ComponentNames}, {"excludeComponents", s.ExcludeComponents},
		{"incidentKeywords", s.IncidentKeywords}, {"excludeIncidents", s.ExcludeIncidents},
	} {
		seen := map[string]bool{}
		for _, item := range list.items {
			switch key := strings.ToLower(item); {
			case strings.TrimSpace(item) == "" || strings.TrimSpace(item) != item:
				out = append(out, fmt.Sprintf("%s: %q is empty or has surrounding spaces", list.name, item))
			case seen[key]:
				out = append(out, fmt.Sprintf("%s: %q is listed twice", list.name, item))
			default:
				seen[key] = true
			}
		}
	}
	return out
}

func checkAbsoluteURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	return nil
}

// Lookup returns the service with the given slug.
func (c Catalog) Lookup(slug string) (Service, bool) {
	for _, s := range c.Services {
		if s.Slug == slug {
			return s, true
		}
	}
	return Service{}, false
}

// Slugs returns the slugs in catalog order.
func (c Catalog) Slugs() []string {
	out := make([]string, len(c.Services))
	for i, s := range c.Services {
		out[i] = s.Slug
	}
	return out
}

// JSON renders the catalog in the shape Parse reads.
func (c Catalog) JSON() []byte {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		panic(err) // a Catalog has only strings and slices: it always marshals
	}
	return append(data, '\n')
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
