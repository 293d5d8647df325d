package catalog

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestErrorCodeLookup: a code matches its row for the caller's status, or
// its row for any status; a code that came without a status (an SDK's or
// a gRPC error) reads as its usual row, the status the provider sends it
// with most, or without one matches its rows whatever their status, the
// most severe class first.
func TestErrorCodeLookup(t *testing.T) {
	t.Parallel()
	cat := Catalog{
		Services: []Service{{Slug: "p", ErrorCodes: "p"}, {Slug: "none"}},
		ErrorCodes: map[string][]ErrorCode{"p": {
			{Code: "RESOURCE_EXHAUSTED", Status: 429, Class: CodeRateLimit, Usual: true, Doc: "https://example.com/a"},
			{Code: "RESOURCE_EXHAUSTED", Status: 402, Class: CodeQuota, Doc: "https://example.com/b"},
			{Code: "both", Status: 400, Class: CodeRequest, Doc: "https://example.com/g"},
			{Code: "both", Status: 402, Class: CodeQuota, Doc: "https://example.com/h"},
			{Status: 498, Class: CodeOverloaded, Doc: "https://example.com/i"},
			{Code: "busy", Class: CodeServer, Doc: "https://example.com/c"},
			{Code: "busy", Status: 503, Class: CodeOverloaded, Doc: "https://example.com/d"},
			{Code: "spent", Status: 402, Class: CodeQuota, Doc: "https://example.com/e"},
			{Code: "plain", Class: CodeRateLimit, Doc: "https://example.com/f"},
		}},
	}
	p, none := cat.Services[0], cat.Services[1]
	for _, tt := range []struct {
		name   string
		svc    Service
		code   string
		status int
		want   ErrorCodeClass // "" for not listed
	}{
		{"status picks the row", p, "RESOURCE_EXHAUSTED", 429, CodeRateLimit},
		{"status picks the other row", p, "RESOURCE_EXHAUSTED", 402, CodeQuota},
		{"no status: the usual row, the status the provider sends most", p, "RESOURCE_EXHAUSTED", 0, CodeRateLimit},
		{"no status and no usual row: the most severe of the rows", p, "both", 0, CodeQuota},
		{"no code is no row, whatever the status rows", p, "", 498, ""},
		{"a status no row names", p, "RESOURCE_EXHAUSTED", 500, ""},
		{"the row for the status beats the row for any status", p, "busy", 503, CodeOverloaded},
		{"the row for any status, when none names the status", p, "busy", 500, CodeServer},
		{"no status: overloaded is more severe than server", p, "busy", 0, CodeOverloaded},
		{"no status: a row bound to a status still matches", p, "spent", 0, CodeQuota},
		{"a row bound to another status does not", p, "spent", 429, ""},
		{"a row for any status", p, "plain", 429, CodeRateLimit},
		{"a row for any status, no status", p, "plain", 0, CodeRateLimit},
		{"an unknown code", p, "teapot", 0, ""},
		{"a service without a table", none, "plain", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := cat.ErrorCode(tt.svc, tt.code, tt.status)
			if ok != (tt.want != "") || row.Class != tt.want {
				t.Errorf("ErrorCode(%q, %d) = %q, %v; want %q", tt.code, tt.status, row.Class, ok, tt.want)
			}
		})
	}
	// Listed: a code with any row, whatever the status the row names.
	for _, tt := range []struct {
		svc  Service
		code string
		want bool
	}{
		{p, "RESOURCE_EXHAUSTED", true}, {p, "spent", true}, {p, "plain", true},
		{p, "teapot", false}, {p, "", false}, {none, "plain", false},
	} {
		if got := cat.ListsErrorCode(tt.svc, tt.code); got != tt.want {
			t.Errorf("ListsErrorCode(%s, %q) = %v, want %v", tt.svc.Slug, tt.code, got, tt.want)
		}
	}
	// A status row: the status's own meaning at this provider, nothing else.
	for _, tt := range []struct {
		svc    Service
		status int
		want   ErrorCodeClass
	}{
		{p, 498, CodeOverloaded}, {p, 402, ""}, {p, 0, ""}, {none, 498, ""},
	} {
		row, ok := cat.ErrorStatus(tt.svc, tt.status)
		if ok != (tt.want != "") || row.Class != tt.want {
			t.Errorf("ErrorStatus(%s, %d) = %q, %v; want %q", tt.svc.Slug, tt.status, row.Class, ok, tt.want)
		}
	}
}

// TestCatalogRefusesUnreadableRows: a status row without a status, a
// usual status row, and a code of several classes that names no usual row
// (or two) are catalog errors, named.
func TestCatalogRefusesUnreadableRows(t *testing.T) {
	t.Parallel()
	doc := "https://example.com/errors"
	for _, tt := range []struct {
		name string
		rows []ErrorCode
		want string
	}{
		{"a status row without a status", []ErrorCode{{Class: CodeServer, Doc: doc}}, "names it"},
		{"a usual status row", []ErrorCode{{Status: 498, Class: CodeOverloaded, Usual: true, Doc: doc}}, "a status row has no code"},
		{"several classes, none usual", []ErrorCode{{Code: "x", Status: 429, Class: CodeRateLimit, Doc: doc}, {Code: "x", Status: 402, Class: CodeQuota, Doc: doc}}, "none usual"},
		{"two usual rows", []ErrorCode{{Code: "x", Status: 429, Class: CodeRateLimit, Usual: true, Doc: doc}, {Code: "x", Status: 402, Class: CodeQuota, Usual: true, Doc: doc}}, "more than one row is usual"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := Catalog{Services: []Service{validService("p")}, ErrorCodes: map[string][]ErrorCode{"p": tt.rows}}
			cat.Services[0].ErrorCodes = "p"
			if err := cat.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v does not say %q", err, tt.want)
			}
		})
	}
	ok := Catalog{Services: []Service{validService("p")}, ErrorCodes: map[string][]ErrorCode{"p": {
		{Code: "x", Status: 429, Class: CodeRateLimit, Usual: true, Doc: doc}, {Code: "x", Status: 402, Class: CodeQuota, Doc: doc},
		{Code: "y", Status: 500, Class: CodeServer, Doc: doc}, {Code: "y", Status: 502, Class: CodeServer, Doc: doc},
		{Status: 498, Class: CodeOverloaded, Doc: doc},
	}}}
	ok.Services[0].ErrorCodes = "p"
	if err := ok.Validate(); err != nil {
		t.Errorf("a usual row, one class for several statuses and a status row: %v", err)
	}
}

// TestErrorCodeSeverity: the severity order is a total order of the known
// classes, with what no retry mends first and the provider's passing
// trouble last.
func TestErrorCodeSeverity(t *testing.T) {
	t.Parallel()
	seen := map[ErrorCodeClass]bool{}
	for _, c := range ErrorCodeClasses {
		if seen[c] {
			t.Fatalf("class %q listed twice", c)
		}
		seen[c] = true
	}
	if len(ErrorCodeClasses) != 10 {
		t.Fatalf("%d classes: a class added must be given its place in the severity order", len(ErrorCodeClasses))
	}
	before := func(a, b ErrorCodeClass) {
		t.Helper()
		if slices.Index(ErrorCodeClasses, a) > slices.Index(ErrorCodeClasses, b) {
			t.Errorf("%s must be more severe than %s", a, b)
		}
	}
	for _, fix := range []ErrorCodeClass{CodeQuota, CodeAuth, CodeRegion, CodeModel, CodeRequest} {
		for _, passes := range []ErrorCodeClass{CodeConcurrency, CodeRateLimit, CodeOverloaded, CodeServer, CodeTimeout} {
			before(fix, passes)
		}
	}
	before(CodeQuota, CodeAuth)
	before(CodeConcurrency, CodeRateLimit)
	before(CodeRateLimit, CodeOverloaded)
	before(CodeOverloaded, CodeServer)
}

// TestDefaultErrorCodes: every row of the shipped tables cites an https
// page, has a known class, a code of the allowed shape and a unique code
// and status; every table is used by a service.
func TestDefaultErrorCodes(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, s := range cat.Services {
		used[s.ErrorCodes] = true
	}
	for name, rows := range cat.ErrorCodes {
		if !used[name] {
			t.Errorf("table %q is used by no service", name)
		}
		if len(rows) == 0 {
			t.Errorf("table %q is empty", name)
		}
		pairs := map[string]bool{}
		for _, r := range rows {
			where := name + ": " + r.Code
			if u, err := url.Parse(r.Doc); err != nil || u.Scheme != "https" || u.Host == "" {
				t.Errorf("%s: doc %q is not an https URL", where, r.Doc)
			}
			if !slices.Contains(ErrorCodeClasses, r.Class) {
				t.Errorf("%s: unknown class %q", where, r.Class)
			}
			if r.Code == "" && r.Status == 0 {
				t.Errorf("%s: a status row names no status", where)
			}
			if r.Code != "" && !ValidErrorCode(r.Code) {
				t.Errorf("%s: not a code's shape", where)
			}
			if strings.TrimSpace(r.Note) == "" {
				t.Errorf("%s: no note says what the provider means by it", where)
			}
			key := fmt.Sprint(r.Code, "\x00", r.Status)
			if pairs[key] {
				t.Errorf("%s listed twice for status %d", where, r.Status)
			}
			pairs[key] = true
		}
	}
}

// TestCatalogRefusesUncitedRows: a row without an https citation is a
// catalog error, named.
func TestCatalogRefusesUncitedRows(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{"", "http://example.com/errors", "ftp://example.com/x", "https://", "errors page"} {
		cat := Catalog{
			Services:   []Service{{Slug: "p", ErrorCodes: "p"}},
			ErrorCodes: map[string][]ErrorCode{"p": {{Code: "x", Class: CodeServer, Doc: doc}}},
		}
		if err := cat.Validate(); err == nil || !strings.Contains(err.Error(), "not an https URL") {
			t.Errorf("doc %q: no error names it: %v", doc, err)
		}
	}
}

// TestDocumentedErrorCodes: every code a provider's error page documents
// reads as the page says, with the status it documents it with. The
// lists are the pages' own (each row's doc): a code a page adds and the
// table lacks reads as unknown, and this fails. An entry without a code
// is a status the page documents: it has a status row when the page
// gives it a meaning of its own (Groq's 498), and none ("") when the page
// means by it what the status means everywhere, which /check's rule
// table reads.
func TestDocumentedErrorCodes(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	type documented struct {
		code   string
		status int
		want   ErrorCodeClass
	}
	for slug, codes := range map[string][]documented{
		// developers.openai.com/api/docs/guides/error-codes: the codes
		// of the API errors, of WebSocket mode, and the official Python
		// library's error types.
		"openai": {
			{"credit_balance_exhausted", 429, CodeQuota}, {"organization_spend_limit_exceeded", 429, CodeQuota},
			{"project_spend_limit_exceeded", 429, CodeQuota}, {"organization_usage_limit_exceeded", 429, CodeQuota},
			{"insufficient_quota", 429, CodeQuota}, {"unsupported_country_region_territory", 403, CodeRegion},
			{"previous_response_not_found", 400, CodeRequest}, {"websocket_connection_limit_reached", 0, CodeRequest},
			{"APITimeoutError", 0, CodeTimeout}, {"AuthenticationError", 401, CodeAuth}, {"BadRequestError", 400, CodeRequest},
			{"ConflictError", 409, CodeRequest}, {"InternalServerError", 500, CodeServer}, {"NotFoundError", 404, CodeModel},
			{"PermissionDeniedError", 403, CodeAuth}, {"RateLimitError", 429, CodeRateLimit}, {"UnprocessableEntityError", 422, CodeRequest},
		},
		// platform.claude.com/docs/en/api/errors.
		"anthropic": {
			{"invalid_request_error", 400, CodeRequest}, {"authentication_error", 401, CodeAuth}, {"billing_error", 402, CodeQuota},
			{"permission_error", 403, CodeAuth}, {"not_found_error", 404, CodeModel}, {"request_too_large", 413, CodeRequest},
			{"rate_limit_error", 429, CodeRateLimit}, {"api_error", 500, CodeServer}, {"timeout_error", 504, CodeTimeout},
			{"overloaded_error", 529, CodeOverloaded},
		},
		// ai.google.dev/gemini-api/docs/generate-content/api-errors (the
		// generateContent statuses) and .../api-errors (the Interactions
		// API's codes).
		"google-gemini": {
			{"INVALID_ARGUMENT", 400, CodeRequest}, {"FAILED_PRECONDITION", 400, CodeQuota}, {"PERMISSION_DENIED", 403, CodeAuth},
			{"NOT_FOUND", 404, CodeModel}, {"RESOURCE_EXHAUSTED", 429, CodeRateLimit}, {"RESOURCE_EXHAUSTED", 402, CodeQuota},
			{"CANCELLED", 499, CodeRequest}, {"INTERNAL", 500, CodeServer}, {"UNAVAILABLE", 503, CodeOverloaded},
			{"DEADLINE_EXCEEDED", 504, CodeTimeout},
			{"invalid_request", 400, CodeRequest}, {"failed_precondition", 400, CodeQuota}, {"out_of_range", 416, CodeRequest},
			{"parameter_unknown", 400, CodeRequest}, {"authentication", 401, CodeAuth}, {"payment_required", 402, CodeQuota},
			{"permission_denied", 403, CodeAuth}, {"not_found", 404, CodeRequest}, {"model_not_found", 404, CodeModel},
			{"already_exists", 409, CodeRequest}, {"aborted", 409, CodeRequest}, {"rate_limit_exceeded", 429, CodeRateLimit},
			{"quota_exceeded", 429, CodeQuota}, {"too_many_requests", 429, CodeRateLimit}, {"cancelled", 499, CodeRequest},
			{"api_error", 500, CodeServer}, {"unimplemented", 501, CodeRequest}, {"service_unavailable", 503, CodeOverloaded},
			{"deadline_exceeded", 504, CodeTimeout},
		},
		// docs.mistral.ai/resources/error-glossary: the error types and
		// its example's code.
		"mistral": {
			{"invalid_request_error", 400, CodeRequest}, {"authentication_error", 401, CodeAuth},
			{"rate_limit_error", 429, CodeRateLimit}, {"server_error", 500, CodeServer}, {"unknown_model", 400, CodeModel},
		},
		// docs.perplexity.ai/guides/perplexity-sdk-error-handling: the
		// SDKs' exceptions that name one cause (APIStatusError is any
		// status, APIConnectionError no answer).
		"perplexity": {
			{"RateLimitError", 429, CodeRateLimit}, {"AuthenticationError", 401, CodeAuth}, {"ValidationError", 400, CodeRequest},
		},
		// learn.microsoft.com's content filtering page: a filtered prompt
		// is a 400 with code content_filter. Azure's 429 carries the code
		// "429", a number, which the reading skips.
		"azure-openai": {{"content_filter", 400, CodeRequest}},
		// console.groq.com/docs/errors (its statuses, and the type of its
		// example body), .../flex-processing and .../spend-limits. 424
		// is a failed Remote MCP call, mostly its credentials; 499 is
		// the caller's own cancellation, as its logs page shows it: both
		// the client's to mend, as a 4xx reads.
		"groq": {
			{"invalid_request_error", 400, CodeRequest}, {"capacity_exceeded", 498, CodeOverloaded}, {"blocked_api_access", 400, CodeQuota},
			{"", 400, ""}, {"", 401, ""}, {"", 403, ""}, {"", 404, ""}, {"", 413, ""}, {"", 422, ""}, {"", 424, ""}, {"", 429, ""},
			{"", 498, CodeOverloaded}, {"", 499, ""}, {"", 500, ""}, {"", 502, ""}, {"", 503, ""},
		},
		// api-docs.deepseek.com/quick_start/error_codes: statuses only.
		// Its bodies carry invalid_request_error whatever the status
		// (captured, each row's doc).
		"deepseek": {
			{"invalid_request_error", 400, CodeRequest}, {"invalid_request_error", 401, CodeAuth}, {"invalid_request_error", 402, CodeQuota},
			{"", 400, ""}, {"", 401, ""}, {"", 402, ""}, {"", 422, ""}, {"", 429, ""}, {"", 500, ""}, {"", 503, CodeOverloaded},
		},
		// docs.together.ai/docs/error-codes: statuses only, several of
		// them Together's own (403 a context overflow, 503 and 504
		// overload); its codes are captured. Earlier versions of the page
		// called 500 "Invalid Request"; the page today says 400 is the
		// misconfigured request and 500 "an issue on our servers", as a
		// 500 reads everywhere.
		"together": {
			{"model_not_available", 400, CodeModel}, {"credit_limit", 429, CodeRateLimit},
			{"", 400, ""}, {"", 401, ""}, {"", 402, ""}, {"", 403, CodeRequest}, {"", 404, ""}, {"", 429, ""}, {"", 500, ""},
			{"", 503, CodeOverloaded},
			{"", 504, CodeOverloaded}, {"", 520, ""}, {"", 524, ""}, {"", 529, ""},
		},
		// inference-docs.cerebras.ai/support/error: each status with the
		// SDK's error type (429's is blank there: the SDK's
		// _exceptions.py names it), all meaning what they mean elsewhere.
		"cerebras": {
			{"BadRequestError", 400, CodeRequest}, {"AuthenticationError", 401, CodeAuth}, {"PaymentRequired", 402, CodeQuota},
			{"PermissionDeniedError", 403, CodeAuth}, {"NotFoundError", 404, CodeModel}, {"UnprocessableEntityError", 422, CodeRequest},
			{"RateLimitError", 429, CodeRateLimit}, {"InternalServerError", 500, CodeServer}, {"ServiceUnavailable", 503, CodeServer},
			{"APITimeoutError", 0, CodeTimeout},
			{"", 400, ""}, {"", 401, ""}, {"", 402, ""}, {"", 403, ""}, {"", 404, ""}, {"", 422, ""}, {"", 429, ""}, {"", 500, ""}, {"", 503, ""},
		},
		// docs.fireworks.ai/guides/inference-error-codes: statuses only;
		// 412 is the account's, and a 429 a rate limit on serverless or
		// a saturated deployment, as a 429 reads.
		"fireworks": {
			{"", 400, ""}, {"", 401, ""}, {"", 402, ""}, {"", 403, ""}, {"", 404, ""}, {"", 405, ""}, {"", 408, ""}, {"", 412, CodeQuota},
			{"", 413, ""}, {"", 429, ""}, {"", 500, ""}, {"", 502, ""}, {"", 503, ""}, {"", 504, ""}, {"", 520, ""},
		},
		// openrouter.ai/docs/api/reference/errors-and-debugging: error.code
		// is the status itself, a number; 403 is its moderation.
		"openrouter": {
			{"", 400, ""}, {"", 401, ""}, {"", 402, ""}, {"", 403, CodeRequest}, {"", 408, ""}, {"", 429, ""}, {"", 502, ""}, {"", 503, ""},
		},
		// docs.x.ai/developers/debugging: HTTP statuses, all meaning
		// what they mean elsewhere; the official Python SDK's README: the
		// gRPC statuses it raises, which carry no HTTP status.
		"xai": {
			{"UNKNOWN", 0, CodeServer}, {"INVALID_ARGUMENT", 0, CodeRequest}, {"DEADLINE_EXCEEDED", 0, CodeTimeout},
			{"NOT_FOUND", 0, CodeModel}, {"PERMISSION_DENIED", 0, CodeAuth}, {"UNAUTHENTICATED", 0, CodeAuth},
			{"RESOURCE_EXHAUSTED", 0, CodeRateLimit}, {"INTERNAL", 0, CodeServer}, {"UNAVAILABLE", 0, CodeServer},
			{"DATA_LOSS", 0, CodeRequest},
			{"", 400, ""}, {"", 401, ""}, {"", 403, ""}, {"", 404, ""}, {"", 405, ""}, {"", 415, ""}, {"", 422, ""}, {"", 429, ""},
		},
		// docs.cohere.com/errors-reference: statuses with example
		// messages, no code in the body (499, cancelled, is to be tried
		// again); the official SDKs' errors (Fern-generated, one per
		// status, 498 Invalid Token among them).
		"cohere": {
			{"", 400, ""}, {"", 401, ""}, {"", 402, ""}, {"", 404, ""}, {"", 429, ""}, {"", 498, CodeAuth}, {"", 499, CodeTimeout}, {"", 500, ""},
			{"BadRequestError", 400, CodeRequest}, {"UnauthorizedError", 401, CodeAuth}, {"ForbiddenError", 403, CodeAuth},
			{"NotFoundError", 404, CodeModel}, {"UnprocessableEntityError", 422, CodeRequest}, {"TooManyRequestsError", 429, CodeRateLimit},
			{"InvalidTokenError", 498, CodeAuth}, {"ClientClosedRequestError", 499, CodeTimeout}, {"InternalServerError", 500, CodeServer},
			{"NotImplementedError", 501, CodeRequest}, {"ServiceUnavailableError", 503, CodeServer}, {"GatewayTimeoutError", 504, CodeTimeout},
		},
		// help.elevenlabs.io, "API - Error Code 400 or 401" and "API -
		// Error Code 429": the values of the body's detail.status.
		"elevenlabs": {
			{"max_character_limit_exceeded", 400, CodeRequest}, {"voice_not_found", 400, CodeRequest}, {"invalid_api_key", 401, CodeAuth},
			{"quota_exceeded", 401, CodeQuota}, {"too_many_concurrent_requests", 429, CodeConcurrency}, {"system_busy", 429, CodeOverloaded},
		},
	} {
		svc, ok := cat.Lookup(slug)
		if !ok {
			t.Fatalf("no service %q", slug)
		}
		for _, d := range codes {
			if d.code == "" {
				row, ok := cat.ErrorStatus(svc, d.status)
				if ok != (d.want != "") || row.Class != d.want {
					t.Errorf("%s: status %d has the status row %q (listed: %v), its page says %q (\"\": as everywhere)", slug, d.status, row.Class, ok, d.want)
				}
				continue
			}
			row, ok := cat.ErrorCode(svc, d.code, d.status)
			if !ok || row.Class != d.want {
				t.Errorf("%s: %s with %d reads as %q (listed: %v), its page says %q", slug, d.code, d.status, row.Class, ok, d.want)
			}
		}
	}
}
