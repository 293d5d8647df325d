// Package feed reads the official status feeds of the tracked services and
// turns each into a snapshot.Status and a list of official incidents.
package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/aistatus/aistatus/snapshot"
)

// MaxBody is the largest feed document read. Real summaries are a few
// hundred KiB; anything bigger is a broken or hostile server, and is an error
// rather than something to buffer without bound.
const MaxBody = 5 << 20

// Result is what one read of a service's official feed declared.
type Result struct {
	// Status is the state the feed declares; snapshot.Unknown if it declares
	// nothing usable.
	Status snapshot.Status
	// Incidents are the open and recently resolved official incidents of
	// this service.
	Incidents []snapshot.Incident
}

// Adapter reads one feed format. A failure (network, HTTP status >= 400,
// malformed, truncated or wrong-type JSON, oversized body) is returned as an
// error; it must never panic.
type Adapter interface {
	Read(ctx context.Context, client *http.Client, svc snapshot.Service) (Result, error)
}

// Adapters returns the registry of supported formats. The map is fresh on
// every call, so a caller may change it without affecting anyone else.
func Adapters() map[snapshot.FeedFormat]Adapter {
	return map[snapshot.FeedFormat]Adapter{
		snapshot.FormatStatuspage:  statuspage{format: snapshot.FormatStatuspage},
		snapshot.FormatIncidentIO:  statuspage{format: snapshot.FormatIncidentIO},
		snapshot.FormatInstatus:    instatus{},
		snapshot.FormatBetterStack: betterStack{},
		snapshot.FormatCheckly:     checkly{},
		snapshot.FormatGoogleCloud: googleCloud{},
		snapshot.FormatAWSHealth:   awsHealth{},
		snapshot.FormatRSS:         rss{},
		snapshot.FormatFlashduty:   flashduty{},
		snapshot.FormatHTML:        htmlPage{},
	}
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
		// The content type helps explain the common case of an HTML error
		// page served with status 200.
		ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
		return fmt.Errorf("GET %s: decoding JSON (content type %q): %w", url, ct, err)
	}
	return nil
}

// readDocument fetches svc.Feed.URL and parses it. A parse error names the
// URL and the content type the server claimed, which explains the common
// case of an HTML error page served with status 200.
func readDocument(ctx context.Context, client *http.Client, svc snapshot.Service, accept string,
	parse func(data []byte, svc snapshot.Service) (Result, error)) (Result, error) {
	data, header, err := fetch(ctx, client, svc.Feed.URL, accept)
	if err != nil {
		return Result{}, err
	}
	res, err := parse(data, svc)
	if err != nil {
		ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
		return Result{}, fmt.Errorf("GET %s: %w (content type %q)", svc.Feed.URL, err, ct)
	}
	return res, nil
}

// fetch GETs url asking for the accept media type and returns the body, at
// most MaxBody bytes. A status >= 400 is an *httpError.
func fetch(ctx context.Context, client *http.Client, url, accept string) ([]byte, http.Header, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", url, err)
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err // already names the method and URL
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, nil, &httpError{URL: url, Code: resp.StatusCode}
	}
	// Read one byte past the cap: a body that fills it exactly is fine, one
	// that goes beyond is rejected instead of being decoded as cut-off data.
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: reading body: %w", url, err)
	}
	if len(data) > MaxBody {
		return nil, nil, fmt.Errorf("GET %s: body larger than %d bytes", url, MaxBody)
	}
	return data, resp.Header, nil
}
