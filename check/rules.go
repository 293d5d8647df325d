package check

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// "Is it me or them?": /check's error parameter says what the caller just
// saw, and the verdict answers with what to do about it. The advice comes
// from one table of rules (checkRules), first match wins, over a small
// input (ruleInput: what was seen, the status, our probe, an official incident);
// evidence and alternatives are gathered beside it and never change the
// choice of row, so the table alone says why an answer is what it is.

// errorClass is what the caller saw, in the classes the rules tell apart.
type errorClass string

const (
	// errNone: no error sent, or a status below 400 (the call worked):
	// the status alone decides.
	errNone errorClass = "none"
	// errAuth: 401, 403 and 407 — credentials or permissions.
	errAuth errorClass = "auth"
	// errRequest: any other 4xx but 402, 408 and 429 — a request the
	// provider refused as it stands (400, 404, 409, 413, 422, …).
	errRequest errorClass = "request"
	// errRateLimit: 429.
	errRateLimit errorClass = "rate_limit"
	// errServer: every 5xx, 529 (Anthropic's "overloaded") included.
	errServer errorClass = "server"
	// errTimeout: "timeout", and 408 (the server gave up waiting).
	errTimeout errorClass = "timeout"
	// errConnection: "connection" — refused, reset, DNS, TLS.
	errConnection errorClass = "connection"

	// The classes only a provider's error code tells (code=, read in the
	// service's table): a 429 is not one thing.
	// errQuota: out of credit, a spending cap, a plan's limit; also a bare
	// 402 Payment Required.
	errQuota errorClass = "quota"
	// errConcurrency: too many requests in flight on one key.
	errConcurrency errorClass = "concurrency"
	// errOverloaded: the provider says it lacks capacity (Anthropic's 529
	// overloaded_error, Gemini's 503 UNAVAILABLE).
	errOverloaded errorClass = "overloaded"
	// errModel: the model does not exist or is not available to the key.
	errModel errorClass = "model"
	// errKeyRateLimit: a 429 whose code says it is the key's own rate limit
	// (rate_limit_exceeded, rate_limit_error): not a provider shedding
	// load, whatever its page says.
	errKeyRateLimit errorClass = "key_rate_limit"
	// errRegion: a 403 whose code says the provider does not serve the
	// caller's country or region (OpenAI's
	// unsupported_country_region_territory): not the key, which a plain
	// 403 would blame.
	errRegion errorClass = "region"
)

// codeClasses reads a table's class of code as the rules' class of error.
var codeClasses = map[catalog.ErrorCodeClass]errorClass{
	catalog.CodeQuota: errQuota, catalog.CodeConcurrency: errConcurrency, catalog.CodeRateLimit: errKeyRateLimit,
	catalog.CodeOverloaded: errOverloaded, catalog.CodeServer: errServer, catalog.CodeTimeout: errTimeout,
	catalog.CodeRequest: errRequest, catalog.CodeAuth: errAuth, catalog.CodeModel: errModel, catalog.CodeRegion: errRegion,
}

// ObservedHelp is the detail of a 400 for a bad error parameter: it says
// what is accepted, so that a caller (or a model) can correct itself.
const ObservedHelp = `error must be the HTTP status you got, from 100 to 599 (e.g. 401, 429, 529), "timeout" or "connection"`

// classifyObserved parses the error parameter. Only three ASCII digits or
// the two words are accepted, so "+429", "0429" and "429.0" are refused
// rather than read as something the caller may not have meant.
func classifyObserved(s string) (errorClass, bool) {
	switch s {
	case "":
		return errNone, true
	case "timeout":
		return errTimeout, true
	case "connection":
		return errConnection, true
	}
	if len(s) != 3 || s[0] < '1' || s[0] > '5' || s[1] < '0' || s[1] > '9' || s[2] < '0' || s[2] > '9' {
		return "", false
	}
	code, _ := strconv.Atoi(s)
	switch {
	case code < 400:
		return errNone, true
	case code == 401 || code == 403 || code == 407:
		return errAuth, true
	case code == 402:
		// Payment Required: out of credit, whatever the provider's code.
		return errQuota, true
	case code == 408:
		return errTimeout, true
	case code == 429:
		return errRateLimit, true
	case code < 500:
		return errRequest, true
	}
	return errServer, true
}

// health is the service's status as the rules see it: the verdict's level
// (see verdict in check.go), in which stale data is its own value, since a
// status too old to trust is not the status.
type health string

const (
	healthUp          health = "up"
	healthDegraded    health = "degraded"
	healthDown        health = "down" // partial or major outage
	healthMaintenance health = "maintenance"
	healthUnknown     health = "unknown"
	healthStale       health = "stale"
)

// probeState is what our own probes say now.
type probeState string

const (
	probeAny     probeState = "" // in a rule: whatever the probe says
	probeOK      probeState = "ok"
	probeFailing probeState = "failing"
	probeNone    probeState = "none" // no probe of this service, no result
	// probeOursDown: our live probe fails, and so do most of our probes of
	// other providers' hosts: it is the checker's own network, and our
	// probe says nothing about the provider. Every row that does not name
	// it reads it as no probe at all. probeYoursDown is the same seen from
	// the caller's own machine (aistatus check): the checker's network is
	// the caller's.
	probeOursDown  probeState = "ours_down"
	probeYoursDown probeState = "yours_down"
	// probeRegional: our probe from the caller's region (this server's
	// vantage) fails while other vantages reach the host: a regional or
	// network path problem. Every row that does not name it reads it as
	// no probe at all.
	probeRegional probeState = "regional"
)

// tri is a yes/no condition of a rule that may also not matter.
type tri int

const (
	either tri = iota
	yes
	no
)

func (t tri) matches(v bool) bool { return t == either || (t == yes) == v }

// ruleInput is everything the rules decide on: the table's input, made
// from the facts (facts.go). It is not the snapshot's situation
// (api.Situation), which holds the statuses it starts from.
type ruleInput struct {
	Error  errorClass
	Health health
	Probe  probeState
	// Incident: the service's status page has an open incident in scope.
	Incident bool
	// AltUp: at least one alternative is operational or degraded.
	AltUp bool
	// RetryAfter is the Retry-After the caller got, in seconds; nil for none.
	// It is not a condition of any row: it sets how long to wait when the
	// advice is to retry or wait.
	RetryAfter *int
	// Surge: many callers report errors for the service right now (crowd.go).
	// Not a condition of any row either: it moves the confidence of the
	// advice a row gives (decide).
	Surge bool
}

// advice is a rule's outcome.
type advice struct {
	Action, Blame, Confidence string
	// RetryAfter in seconds; 0 means none (the action is not to wait).
	RetryAfter int
	Reason     string
}

// rule is one row of the table: a condition on the input and the
// advice when it holds. Empty lists, probeAny and either match everything.
type rule struct {
	errors   []errorClass
	health   []health
	probe    probeState
	incident tri
	advice   advice
}

func (r rule) matches(s ruleInput) bool {
	return (len(r.errors) == 0 || slices.Contains(r.errors, s.Error)) &&
		(len(r.health) == 0 || slices.Contains(r.health, s.Health)) &&
		(r.probe == probeAny || r.probe == s.Probe) &&
		r.incident.matches(s.Incident)
}

// checkRules builds the rule table, first match wins; decide reads it
// through rules, built once (no code writes to it). docs/api.md and the
// OpenAPI description of /check state it (TestRulesDocumented holds them to it).
//
// Three adjustments follow the match (see decide): "wait" becomes
// "failover" when an alternative is up, stale data lowers the confidence one
// step unless the row is about stale data, and the caller's Retry-After
// replaces the row's delay.
func checkRules() []rule {
	const (
		proceed, retry, wait, fix = api.ActionProceed, api.ActionRetry, api.ActionWait, api.ActionFixClient
		reroute                   = api.ActionReroute
		provider, client, unknown = api.BlameProvider, api.BlameClient, api.BlameUnknown
		path                      = api.BlameNetwork
		high, medium, low         = api.ConfidenceHigh, api.ConfidenceMedium, api.ConfidenceLow
	)
	var (
		none       = []errorClass{errNone}
		auth       = []errorClass{errAuth}
		request    = []errorClass{errRequest}
		limited    = []errorClass{errRateLimit}
		server     = []errorClass{errServer}
		network    = []errorClass{errTimeout, errConnection}
		quota      = []errorClass{errQuota}
		inFlight   = []errorClass{errConcurrency}
		model      = []errorClass{errModel}
		overloaded = []errorClass{errOverloaded}
		keyLimit   = []errorClass{errKeyRateLimit}
		region     = []errorClass{errRegion}
	)
	h := func(hs ...health) []health { return hs }
	return []rule{
		// No error given: the status alone decides.
		{none, h(healthStale), probeAny, either, advice{retry, unknown, low, 60, "The data is too old to trust: try your request and check again later."}},
		{none, h(healthUp, healthDegraded), probeFailing, either, advice{retry, provider, medium, 30, "The status says up, but our own probe of its API is failing right now."}},
		{none, h(healthUp), probeAny, either, advice{proceed, unknown, high, 0, "It is up: go ahead."}},
		{none, h(healthDegraded), probeAny, either, advice{proceed, provider, medium, 0, "It is up but degraded: expect slower answers or more errors, and retry those with backoff."}},
		{none, h(healthDown), probeAny, either, advice{wait, provider, high, 120, "It is down: wait for it to recover."}},
		{none, h(healthMaintenance), probeAny, either, advice{wait, provider, medium, 300, "It is under planned maintenance."}},
		{none, nil, probeAny, either, advice{retry, unknown, low, 60, "We can't tell whether it is up: try your request."}},

		// 401, 403, 407: credentials.
		{auth, h(healthUp), probeAny, no, advice{fix, client, high, 0, "An authentication or permission error while the service is up: check the API key, its permissions and the organisation or project it belongs to."}},
		{auth, nil, probeAny, either, advice{fix, client, medium, 0, "An authentication or permission error is almost always the key or its permissions, even while the service is not fully up."}},

		// Other 4xx: the request as sent.
		{request, h(healthUp, healthDegraded), probeAny, either, advice{fix, client, high, 0, "The provider refused the request as it stands: fix the request (path, model name, body, size)."}},
		{request, nil, probeAny, either, advice{fix, client, medium, 0, "A 4xx is most likely the request itself: fix the request (path, model name, body, size)."}},

		// The provider's error code settles it: the caller's own limits.
		{quota, nil, probeAny, either, advice{fix, client, high, 0, "A quota or billing limit, by the provider's error code: it will not come back by retrying. Add credit or raise the limit, or wait for the quota's reset."}},
		{inFlight, nil, probeAny, either, advice{fix, client, high, 0, "Too many requests in flight on this key, by the provider's error code: lower your concurrency or queue requests; retrying at once hits the cap again."}},
		{model, nil, probeAny, either, advice{fix, client, high, 0, "The model does not exist or is not available to this key, by the provider's error code: check its name and your access to it."}},
		{region, nil, probeAny, either, advice{fix, client, high, 0, "The provider does not serve the country or region your request comes from, by its error code: not your key, and no retry from there mends it. Call it from a country or region it supports."}},
		{keyLimit, nil, probeAny, either, advice{retry, client, high, 30, "Your key's rate limit, by the provider's error code: back off, honour Retry-After, or raise the limit."}},

		// The provider says it is overloaded: its capacity, not the request.
		{overloaded, nil, probeAny, either, advice{wait, provider, high, 30, "The provider says it is overloaded: its capacity, not your request. Wait and retry with backoff."}},

		// 429: a rate limit, or a provider shedding load.
		{limited, h(healthUp), probeAny, no, advice{retry, client, high, 30, "A rate limit while the service is up: your quota. Back off (honour Retry-After) or raise the limit."}},
		{limited, h(healthDown), probeAny, either, advice{wait, provider, medium, 60, "A 429 during an outage is the provider shedding load."}},
		{limited, nil, probeAny, yes, advice{wait, provider, medium, 60, "A 429 during an open incident is likely the provider shedding load."}},
		{limited, nil, probeAny, either, advice{retry, client, medium, 30, "Most likely your rate limit: back off and retry."}},

		// 5xx and 529: the provider's side.
		{server, nil, probeAny, yes, advice{wait, provider, high, 120, "A server error during the provider's open incident."}},
		{server, h(healthDown), probeAny, either, advice{wait, provider, high, 120, "A server error while the service is down."}},
		{server, nil, probeRegional, either, advice{reroute, path, medium, 0, "Our probe from your region fails too, while our other vantage points reach its API: a regional or network path problem, not an outage of the service. Route through another region or network, not to another provider."}},
		{server, nil, probeFailing, either, advice{wait, provider, high, 60, "A server error, and our own probe of its API fails too."}},
		{server, h(healthDegraded, healthMaintenance), probeAny, either, advice{retry, provider, medium, 30, "A server error while the service is degraded: retry with backoff."}},
		{server, h(healthUp), probeOK, either, advice{retry, provider, medium, 10, "A server error while the service is up and our probe answers: most likely passing (529 and 503 mean overloaded). Retry with backoff."}},
		{server, nil, probeAny, either, advice{retry, provider, low, 30, "A server error is the provider's, but we can't confirm an outage: retry with backoff."}},

		// Timeouts and connection errors: ours tells them apart, unless our
		// own network is down too.
		{network, nil, probeYoursDown, either, advice{retry, client, medium, 30, "Our probes of other providers fail too, from this machine: your own network looks down. Check your connection, then retry."}},
		{network, nil, probeFailing, either, advice{wait, provider, high, 60, "Our own probe cannot reach its API either."}},
		{network, nil, probeAny, yes, advice{wait, provider, medium, 60, "A timeout or connection error during the provider's open incident."}},
		{network, h(healthDown), probeAny, either, advice{wait, provider, medium, 60, "A timeout or connection error while the service is down."}},
		{network, nil, probeRegional, either, advice{reroute, path, high, 0, "Our probe from your region cannot reach its API either, while our other vantage points do: a regional or network path problem, not an outage of the service. Route through another region or network, not to another provider."}},
		{network, nil, probeOursDown, either, advice{retry, unknown, low, 30, "Our probes of other providers fail too: the checker's own network looks down, so we can't tell whose side this is on. Retry."}},
		{network, h(healthUp), probeOK, no, advice{retry, unknown, medium, 10, "Our probe reaches its API and the status page is calm: the trouble may be your network, a proxy or a long request. Retry, with a longer timeout."}},
		{network, nil, probeAny, either, advice{retry, unknown, low, 30, "We can't tell whose side the timeout or connection error is on: retry."}},
	}
}

// rules is the rule table, built on first use: /check decides on every
// request, and the table is the same each time.
var rules = sync.OnceValue(checkRules)

// decide applies the first matching rule, then the three adjustments: a
// "wait" becomes "failover" when an alternative is up (waiting stays the
// advice for whoever cannot switch, but there is no point in a delay),
// stale data lowers the confidence one step unless the row is about it, and
// a Retry-After the caller got sets the delay of a retry or a wait.
func decide(s ruleInput) advice {
	var r rule
	for _, row := range rules() {
		if row.matches(s) {
			r = row
			break
		}
	}
	// Every errorClass has a catch-all row, so a match is certain; a
	// ruleInput that somehow matches nothing reads as "can't tell".
	a := r.advice
	if a.Action == "" {
		a = advice{api.ActionRetry, api.BlameUnknown, api.ConfidenceLow, 60, "We can't tell."}
	}
	if a.Action == api.ActionWait && s.AltUp {
		a.Action, a.RetryAfter = api.ActionFailover, 0
		a.Reason += " An alternative is up: fail over to it."
	}
	if s.Health == healthStale && !slices.Contains(r.health, healthStale) {
		a.Confidence = lower(a.Confidence)
	}
	if s.Surge {
		a = crowdAdjusted(a, s)
	}
	if s.RetryAfter != nil && a.RetryAfter > 0 {
		// The provider said how long: its word beats our default.
		a.RetryAfter = max(1, *s.RetryAfter)
		a.Reason += fmt.Sprintf(" Wait the %d s of Retry-After the provider sent.", a.RetryAfter)
	}
	return a
}

// crowdAdjusted moves advice by a surge of callers' reports, which never
// changes the action or the blame. A surge the page or our probes agree
// with raises the confidence of blaming the provider. A surge neither sees
// is said as such, and lowers the confidence of blaming the caller (or of
// not knowing) — except where what the caller saw is theirs whatever the
// crowd sees: a refused key, a bad request, a spent quota.
func crowdAdjusted(a advice, s ruleInput) advice {
	seen := s.Incident || s.Probe == probeFailing || s.Health == healthDown || s.Health == healthDegraded
	theirs := slices.Contains([]errorClass{errAuth, errRequest, errQuota, errConcurrency, errKeyRateLimit, errModel}, s.Error)
	switch {
	case theirs:
	case seen && a.Blame == api.BlameProvider:
		a.Confidence = raise(a.Confidence)
		a.Reason += " Many other callers report errors for it right now too."
	case !seen:
		if a.Blame != api.BlameProvider {
			a.Confidence = lower(a.Confidence)
		}
		a.Reason += " Many callers report errors for it right now; neither the page nor our probes see it yet."
	}
	return a
}

func raise(confidence string) string {
	if confidence == api.ConfidenceLow {
		return api.ConfidenceMedium
	}
	return api.ConfidenceHigh
}

func lower(confidence string) string {
	if confidence == api.ConfidenceHigh {
		return api.ConfidenceMedium
	}
	return api.ConfidenceLow
}
