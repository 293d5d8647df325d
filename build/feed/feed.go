// Package feed reads the official status feeds of the tracked services and
// turns each into a api.Status, the page's components and a list of
// official incidents, narrowed to the service's scope.
//
// One adapter per format (one file each) fetches and parses; the shared
// code is here (fetching, failure kinds, the registry) and in common.go
// (times, text, links, ids) and scope.go (what is in the developer API).
package feed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// MaxBody is the largest feed document read. Real summaries are a few
// hundred KiB; anything bigger is a broken or hostile server, and is an error
// rather than something to buffer without bound.
const MaxBody = 5 << 20

// MaxComponents bounds the components of one read. The largest page read
// (Cloudflare's, for Replicate) lists a few hundred. Every component is
// published in the service's document and kept in the history's roster,
// so a page listing more is not kept whole (a 5 MiB page holds some
// 100 000) nor cut, which would drop components unseen: the read fails
// as a document of the wrong shape, like any broken feed.
const MaxComponents = 2000

// Request is one read of one service's feed. New inputs go here, so that
// adding one does not touch every adapter's signature.
type Request struct {
	Client  *http.Client
	Service catalog.Service
	// Now is the cycle's clock, against which "recent" is measured.
	Now time.Time
}

// Result is what one read of a service's official feed declared.
type Result struct {
	// Status is the state the feed declares for the service's scope;
	// api.Unknown if it declares nothing usable.
	Status api.Status
	// Incidents are the open and recently resolved official incidents of
	// this service, in its scope.
	Incidents []api.Incident
	// Components are every component the page lists, each marked in or out
	// of scope; nil for formats without components.
	Components []api.Component
	// Tags are what a feed of events posts its items for, where it says
	// (xAI's "[Voice]" before a title), each once and marked in or out of
	// scope: a feed's own components, placed like the page's. Nil for
	// formats without tags.
	Tags []Tag
	// Timeline is set when Incidents are the page's incident timeline:
	// every in-scope incident, resolved ones with their end, back to
	// Timeline.Since. Nil for a feed that lists only what is open now (its
	// silence about a past hour proves nothing), or one of whose incidents
	// could not be read. history.ServiceHistory.CreditTimeline rests on it.
	Timeline *Timeline
}

// Tag is one tag of a feed's items: the product or region an item is
// posted for.
type Tag struct {
	Name    string
	InScope bool
}

// Timeline says how far back a feed's incident list is complete.
type Timeline struct {
	// Since is the start of the oldest incident of a list cut at its
	// length (the page may have dropped older ones); zero when the list
	// holds all the page keeps.
	Since time.Time
}

// Adapter reads one feed format. A failure (network, HTTP status >= 400,
// malformed, truncated or wrong-type document, oversized body) is returned
// as an error, preferably an *Error saying its kind; it must never panic.
type Adapter interface {
	Read(ctx context.Context, req Request) (Result, error)
}

// Read reads a service's feed with the adapter of its format and cleans what
// it returns: every feed-supplied string is capped and stripped of control
// characters, links that are not http(s) are replaced by the status page,
// and incidents with times outside a sane range are dropped (and named, for
// the log) instead of failing the cycle. This is the one door every
// adapter's output goes through; a page of more than MaxComponents
// components fails there.
func Read(ctx context.Context, a Adapter, req Request) (Result, []string, error) {
	res, err := a.Read(ctx, req)
	if err != nil {
		return Result{}, nil, err
	}
	if len(res.Components) > MaxComponents {
		return Result{}, nil, failure(api.FailureSchema, "GET %s: the page lists %d components, more than the %d a page may have",
			req.Service.Feed.URL, len(res.Components), MaxComponents)
	}
	if len(res.Tags) > MaxComponents {
		return Result{}, nil, failure(api.FailureSchema, "GET %s: the feed's items have %d tags, more than the %d components a page may have",
			req.Service.Feed.URL, len(res.Tags), MaxComponents)
	}
	res, dropped := clean(req.Service, res, req.Now)
	if len(dropped) > 0 {
		res.Timeline = nil // a dropped incident leaves a hole in it
	}
	return res, dropped, nil
}

// Error is a failed read, with its kind.
type Error struct {
	Kind api.FailureKind
	// Err says what happened, naming the URL where there is one.
	Err error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// failure wraps err as a failure of the given kind.
func failure(kind api.FailureKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Err: fmt.Errorf(format, args...)}
}

// Kind classifies any error a read returned.
func Kind(err error) api.FailureKind {
	var fe *Error
	var ne net.Error
	switch {
	case errors.As(err, &fe):
		return fe.Kind
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return api.FailureTimeout
	case errors.As(err, new(*httpError)):
		return api.FailureHTTP
	}
	return api.FailureNetwork
}

// httpError is an HTTP status >= 400. It is a type so that an adapter can
// tell a missing optional route (404) from a real failure.
type httpError struct {
	URL  string
	Code int
}

func (e *httpError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d %s", e.URL, e.Code, http.StatusText(e.Code))
}

// getJSON fetches url and decodes its JSON body into into.
func getJSON(ctx context.Context, client *http.Client, url string, into any) error {
	data, header, err := fetch(ctx, client, url, "application/json")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return notDocument(url, data, header, fmt.Errorf("decoding JSON: %w", err))
	}
	return nil
}

// readDocument fetches the service's feed URL and parses it. A parse error
// is classified (a challenge page, or a document of the wrong shape) and
// names the URL and the content type the server claimed.
func readDocument(ctx context.Context, req Request, accept string,
	parse func(data []byte, req Request) (Result, error)) (Result, error) {
	url := req.Service.Feed.URL
	data, header, err := fetch(ctx, req.Client, url, accept)
	if err != nil {
		return Result{}, err
	}
	res, err := parse(data, req)
	if err != nil {
		return Result{}, notDocument(url, data, header, err)
	}
	return res, nil
}

// notDocument explains a body that did not parse as the expected document:
// a bot challenge or an HTML page (the usual answer of a moved or walled
// page) or else a document of another shape. A parse error that already has
// a kind (an empty document) keeps it.
func notDocument(url string, data []byte, header http.Header, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		return &Error{Kind: fe.Kind, Err: fmt.Errorf("GET %s: %w", url, fe.Err)}
	}
	ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if looksLikeHTML(data) {
		return failure(api.FailureChallenge, "GET %s: a bot challenge or HTML page (content type %q) where a document was expected", url, ct)
	}
	return failure(api.FailureSchema, "GET %s: %v (content type %q)", url, err, ct)
}

// looksLikeHTML reports whether a body is an HTML page: a bot wall without
// Cloudflare's header (fetch tells those apart already), or a moved page.
func looksLikeHTML(data []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(data[:min(len(data), 512)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

// fetch GETs url asking for the accept media type and returns the body, at
// most MaxBody bytes. A status >= 400 is an *httpError; a redirect to another
// host is a "moved" failure (a status page that moved away answers with one,
// and what it moved to is not the document we know how to read).
func fetch(ctx context.Context, client *http.Client, url, accept string) ([]byte, http.Header, error) {
	data, header, _, err := fetchIfChanged(ctx, client, url, accept, Validators{})
	return data, header, err
}

// Validators are what a server said identifies the version of a document
// it sent (its ETag and Last-Modified), sent back with the next request so
// that an unchanged document costs a 304 and no body.
type Validators struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
}

// readIfChanged reads the document at url, conditionally with the
// validators v of the previous read, and parses it: a 304 is a read of the
// same document (unchanged, with v); any other answer is parsed, a body
// parse refuses being no such document (notDocument), and got are its
// validators. The model lists and the makers' pages read through it.
func readIfChanged[T any](ctx context.Context, client *http.Client, url, accept string, v Validators,
	parse func(data []byte) (T, error)) (parsed T, got Validators, unchanged bool, err error) {
	data, header, unchanged, err := fetchIfChanged(ctx, client, url, accept, v)
	if err != nil || unchanged {
		return parsed, v, unchanged, err
	}
	if parsed, err = parse(data); err != nil {
		return parsed, Validators{}, false, notDocument(url, data, header, err)
	}
	return parsed, Validators{
		ETag:         api.CleanText(header.Get("ETag"), MaxGatewayName),
		LastModified: api.CleanText(header.Get("Last-Modified"), MaxGatewayName),
	}, false, nil
}

// fetchIfChanged is fetch with a conditional request: given validators, a
// 304 Not Modified returns unchanged true and no body.
func fetchIfChanged(ctx context.Context, client *http.Client, url, accept string, v Validators) (data []byte, header http.Header, unchanged bool, err error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, false, fmt.Errorf("GET %s: %w", url, err)
	}
	req.Header.Set("Accept", accept)
	if v.ETag != "" {
		req.Header.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		req.Header.Set("If-Modified-Since", v.LastModified)
	}
	resp, err := client.Do(req)
	if ue := (*neturl.Error)(nil); errors.As(err, &ue) && !sameHost(ue.URL, req.URL) {
		// The page sent us elsewhere, and going there failed or was refused
		// (an internal address, https to http, too many hops): that is the
		// page having moved, not our network.
		return nil, nil, false, failure(api.FailureMoved, "GET %s: redirected to another host, which failed: %v", url, ue.Err)
	}
	if err != nil {
		return nil, nil, false, err // already names the method and URL
	}
	defer resp.Body.Close()
	if final := resp.Request.URL; !sameHost(final.String(), req.URL) {
		return nil, nil, false, failure(api.FailureMoved, "GET %s: redirected to another host (%s): the source has moved", url, final.Redacted())
	}
	if resp.Header.Get("Cf-Mitigated") == "challenge" {
		// Cloudflare serves its challenge with 403 (or 503, or even 200):
		// the page is walled, which says more than the status code.
		return nil, nil, false, failure(api.FailureChallenge, "GET %s: HTTP %d with a Cloudflare challenge: the page refuses non-browser clients", url, resp.StatusCode)
	}
	if resp.StatusCode == http.StatusNotModified && (v.ETag != "" || v.LastModified != "") {
		return nil, resp.Header, true, nil
	}
	if resp.StatusCode >= 400 {
		return nil, nil, false, &httpError{URL: url, Code: resp.StatusCode}
	}
	// Read one byte past the cap: a body that fills it exactly is fine, one
	// that goes beyond is rejected instead of being decoded as cut-off data.
	data, err = io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, nil, false, fmt.Errorf("GET %s: reading body: %w", url, err)
	}
	if len(data) > MaxBody {
		return nil, nil, false, failure(api.FailureTooLarge, "GET %s: body larger than %d bytes", url, MaxBody)
	}
	return data, resp.Header, false, nil
}

// sameHost reports whether the URL target names the host of u.
func sameHost(target string, u *neturl.URL) bool {
	t, err := neturl.Parse(target)
	return err == nil && strings.EqualFold(t.Hostname(), u.Hostname())
}
