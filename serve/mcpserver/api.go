package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// maxResponseBytes bounds what is read of one API response: a service's
// incidents over 90 days are far below it, and a misbehaving remote instance
// cannot make the MCP server buffer without limit.
const maxResponseBytes = 32 << 20

// API is a small client of an aistatus instance's JSON API. The tools call it
// instead of the server's internals, so they behave exactly like GET requests
// and can run against a remote instance as well as in-process.
type API struct {
	// BaseURL is the instance's address, without /api/v1
	// (https://status.example.com).
	BaseURL string
	// Client makes the requests (an outbound client, so that they carry our
	// User-Agent and pass the dial guard); required.
	Client *http.Client
	// Address is the instance's public address, which the attribution in
	// every tool result names: CC-BY-4.0 asks reusers to credit where they
	// took the data from. Empty means BaseURL — except for InProcess, whose
	// BaseURL is a placeholder: there it is the baseUrl the snapshot being
	// served was built with (its snapshot.json).
	Address string
	// inProcess marks an API made by InProcess.
	inProcess bool
}

// ProblemError is an RFC 9457 problem the API answered with. Its message is
// the problem's detail, which says what was wrong in words an LLM can act on.
type ProblemError struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	Problem    api.Problem
}

func (e *ProblemError) Error() string {
	if e.Problem.Detail != "" {
		return e.Problem.Detail
	}
	return fmt.Sprintf("aistatus API: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// IncidentQuery holds the filters of GET /incidents. An empty string or a
// zero Limit means the filter is not sent.
//
// It is also list_incidents' input, so every field is a plain, non-pointer
// type: a pointer would make its schema type ["null", …], which several
// models' function-calling schemas reject. The API never accepts a limit
// of 0, so 0 can stand for "not sent".
type IncidentQuery struct {
	Since    string `json:"since,omitempty" jsonschema:"keep incidents that started at or after this time: an RFC 3339 date-time (2026-11-01T00:00:00Z) or a date (2026-11-01, midnight UTC)"` // the default window is added by New
	Severity string `json:"severity,omitempty" jsonschema:"only incidents of this severity"`
	// Service's description names example slugs from the catalog (see New).
	Service string `json:"service,omitempty"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most incidents to return"` // the range and default are added by New, from the API's constants
}

// Status is GET /status: every service's current status.
func (a API) Status(ctx context.Context) (api.StatusDoc, error) {
	var doc api.StatusDoc
	err := a.get(ctx, "/status", nil, &doc)
	return doc, err
}

// Service is GET /services/{slug}: one service's detail.
func (a API) Service(ctx context.Context, slug string) (api.ServiceDoc, error) {
	var doc api.ServiceDoc
	if slug == "." || slug == ".." {
		// PathEscape leaves dots alone, and the server cleans a dot segment
		// away: /services/.. would answer the API index as if it were a
		// service. No slug is one, so it is the API's 404 without asking.
		return doc, &ProblemError{StatusCode: http.StatusNotFound, Problem: api.Problem{
			Type: "about:blank", Title: http.StatusText(http.StatusNotFound), Status: http.StatusNotFound, Param: "slug",
			Detail: fmt.Sprintf("%q is not a tracked service: see %s for the list", slug, snapshot.PathStatus)}}
	}
	err := a.get(ctx, "/services/"+url.PathEscape(slug), nil, &doc)
	return doc, err
}

// Incidents is GET /incidents with q's filters. The server validates them,
// so a bad one comes back as a *ProblemError.
func (a API) Incidents(ctx context.Context, q IncidentQuery) (api.IncidentList, error) {
	v := url.Values{}
	for name, value := range map[string]string{"since": q.Since, "severity": q.Severity, "service": q.Service} {
		if value != "" {
			v.Set(name, value)
		}
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var doc api.IncidentList
	err := a.get(ctx, "/incidents", v, &doc)
	return doc, err
}

// CheckQuery holds the parameters of GET /check; an empty string or a zero
// RetryAfter is not sent.
type CheckQuery struct {
	Query string
	// Error is what the caller just got: an HTTP status, "timeout" or
	// "connection".
	Error string
	// Code is the error code or type in the provider's error body.
	Code string
	// RetryAfter is the Retry-After the caller got, in seconds.
	RetryAfter int
	// Model is a watched model to check at the queried service.
	Model string
}

// Check is GET /check: the verdict with advice for a caller that just got
// an error. The server validates the parameters: a bad one is a
// *ProblemError.
func (a API) Check(ctx context.Context, cq CheckQuery) (api.CheckDoc, error) {
	v := url.Values{"q": {cq.Query}}
	for name, value := range map[string]string{"error": cq.Error, "code": cq.Code, "model": cq.Model} {
		if value != "" {
			v.Set(name, value)
		}
	}
	if cq.RetryAfter != 0 {
		v.Set("retryAfter", strconv.Itoa(cq.RetryAfter))
	}
	var doc api.CheckDoc
	err := a.get(ctx, "/check", v, &doc)
	return doc, err
}

// FallbackQuery holds the parameters of GET /fallbacks; an empty string is
// not sent.
type FallbackQuery struct {
	// Model is a watched model's id (author/model); Query a service, or a
	// model's id.
	Model, Query string
	// Format is the gateway to write the plan for; "" for the plan itself.
	Format string
}

func (fq FallbackQuery) values() url.Values {
	v := url.Values{}
	for name, value := range map[string]string{"model": fq.Model, "q": fq.Query, "format": fq.Format} {
		if value != "" {
			v.Set(name, value)
		}
	}
	return v
}

// Fallbacks is GET /fallbacks without a format: the plan. The server
// validates the parameters: a bad one is a *ProblemError.
func (a API) Fallbacks(ctx context.Context, fq FallbackQuery) (api.FallbackPlan, error) {
	fq.Format = ""
	var doc api.FallbackPlan
	err := a.get(ctx, "/fallbacks", fq.values(), &doc)
	return doc, err
}

// FallbackConfig is GET /fallbacks with fq.Format: the gateway's
// configuration as the server wrote it (YAML for LiteLLM, JSON otherwise).
func (a API) FallbackConfig(ctx context.Context, fq FallbackQuery) (string, error) {
	var body []byte
	err := a.get(ctx, "/fallbacks", fq.values(), &body)
	return string(body), err
}

// address is the public address to credit in the attribution; "" when it
// cannot be told (no snapshot yet), in which case the credit line goes
// without it rather than failing the tool.
func (a API) address(ctx context.Context) string {
	switch {
	case a.Address != "":
		return strings.TrimSuffix(a.Address, "/")
	case !a.inProcess:
		return strings.TrimSuffix(a.BaseURL, "/")
	}
	// Asked on every call, not once: the folder may be rebuilt with another
	// --base-url while the server runs. In-process, this costs a map lookup.
	var m snapshot.Manifest
	if err := a.fetch(ctx, "/"+snapshot.FileManifest, nil, &m); err != nil {
		return ""
	}
	return strings.TrimSuffix(m.BaseURL, "/")
}

// get fetches <BaseURL>/api/v1<path>?<query> and decodes the JSON into v
// (a *[]byte takes the body as it is); a problem response becomes a
// *ProblemError.
func (a API) get(ctx context.Context, path string, query url.Values, v any) error {
	return a.fetch(ctx, snapshot.APIBase+path, query, v)
}

// fetch is get for any path of the instance, /api/v1 or not.
func (a API) fetch(ctx context.Context, path string, query url.Values, v any) error {
	target := strings.TrimSuffix(a.BaseURL, "/") + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	if a.Client == nil {
		return errors.New("aistatus API: no HTTP client configured")
	}
	resp, err := a.Client.Do(req)
	if err != nil {
		return fmt.Errorf("aistatus API unreachable: %w", err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes))
	if resp.StatusCode != http.StatusOK {
		perr := &ProblemError{StatusCode: resp.StatusCode}
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == snapshot.ContentProblem || mt == "application/json" {
			dec.Decode(&perr.Problem) // best effort: without a body the status still says what happened
		}
		return perr
	}
	if raw, ok := v.(*[]byte); ok {
		// A body passed on as it came (a gateway's configuration).
		*raw, err = io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		return err
	}
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("aistatus API: decoding %s: %w", path, err)
	}
	return nil
}

// InProcess is an API answered by calling h directly (see HandlerClient):
// how the thin server's /mcp and `aistatus mcp --dir` reach the API.
func InProcess(h http.Handler) API {
	// The host is never resolved: HandlerClient hands the request to h.
	return API{BaseURL: "http://aistatus.internal", Client: HandlerClient(h), inProcess: true}
}

// HandlerClient returns an HTTP client that serves every request by calling h
// directly, with no socket: the MCP tools of a server reach its own API this
// way, through the same code paths as a GET over the network.
func HandlerClient(h http.Handler) *http.Client {
	return &http.Client{Transport: handlerTransport{h}}
}

// handlerTransport is the http.RoundTripper behind HandlerClient.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// A server-side request differs from a client one: it has a RequestURI,
	// a Host and a non-nil Body. Clone, as a RoundTripper must not modify req.
	r := req.Clone(req.Context())
	r.RequestURI = req.URL.RequestURI()
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	if r.Body == nil {
		r.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	if req.Body != nil {
		req.Body.Close()
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
