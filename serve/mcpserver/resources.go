package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/aistatus/aistatus/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP resources: the API's own documents under aistatus:// URIs, so that
// a client can read them (and, where subscriptions are on, be told when
// they change) instead of polling get_status.
const (
	// StatusURI is GET /status's document: every service's current status.
	StatusURI = "aistatus://status"
	// ServiceURITemplate is GET /services/{slug}'s document (RFC 6570).
	ServiceURITemplate = "aistatus://services/{slug}"
	servicePrefix      = "aistatus://services/"
)

// ServiceURI is the resource URI of one service's document.
func ServiceURI(slug string) string { return servicePrefix + url.PathEscape(slug) }

// resourceTTLMs is the cache hint on every resource read: 30 s, the
// s-maxage the API gives the same documents over HTTP. A snapshot is built
// about every minute, so a read is never much older than one build.
const resourceTTLMs = 30_000

// addResources registers the status resource and the per-service template,
// which reads only cat's services.
func addResources(s *mcp.Server, api API, cat catalog.Catalog) {
	s.AddResource(&mcp.Resource{
		URI:   StatusURI,
		Name:  "status",
		Title: "Status of every AI service",
		Description: "The /api/v1/status document: every tracked service's current status, from the latest snapshot. " +
			statusLegend + licenceNote,
		MIMEType: "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return readDocument(ctx, api, req.Params.URI, "/status")
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: ServiceURITemplate,
		Name:        "service",
		Title:       "One AI service in detail",
		Description: "The /api/v1/services/{slug} document: one service's status, uptime, incidents and sources. " +
			"The slugs are those of aistatus://status. " + statusLegend + licenceNote,
		MIMEType: "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		slug, ok := trackedSlug(cat, req.Params.URI)
		if !ok {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return readDocument(ctx, api, req.Params.URI, "/services/"+url.PathEscape(slug))
	})
}

// serviceSlug is the slug of a service resource URI; false when uri is not
// one (an empty slug, or a further path segment).
func serviceSlug(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, servicePrefix)
	if !ok || rest == "" || strings.ContainsAny(rest, "/?#") {
		return "", false
	}
	slug, err := url.PathUnescape(rest)
	return slug, err == nil && slug != ""
}

// trackedSlug is the slug of a service resource URI naming one of cat's
// services; false for any other. Only a tracked slug is put in the API path:
// anything else may not stay one path segment there (%2e%2e is "..", and
// /services/.. is the API index once the path is cleaned).
func trackedSlug(cat catalog.Catalog, uri string) (string, bool) {
	slug, ok := serviceSlug(uri)
	if !ok {
		return "", false
	}
	_, tracked := cat.Lookup(slug)
	return slug, tracked
}

// readDocument reads an API document as the resource uri. The document is
// passed on as the API sent it (re-indented only), licence included; a 404
// is the protocol's "resource not found".
func readDocument(ctx context.Context, api API, uri, path string) (*mcp.ReadResourceResult, error) {
	var doc json.RawMessage
	err := api.get(ctx, path, nil, &doc)
	if perr := (*ProblemError)(nil); errors.As(err, &perr) && perr.StatusCode == http.StatusNotFound {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{
		Cacheable: mcp.Cacheable{TTLMs: resourceTTLMs, CacheScope: "public"},
		Contents:  []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: out.String()}},
	}, nil
}

// subscriptionHandlers accept a subscription to the status resource or to a
// tracked service's, and refuse any other URI: a subscription that can never
// fire would leave a client waiting for nothing.
func subscriptionHandlers(cat catalog.Catalog) (func(context.Context, *mcp.SubscribeRequest) error, func(context.Context, *mcp.UnsubscribeRequest) error) {
	subscribe := func(_ context.Context, req *mcp.SubscribeRequest) error {
		uri := req.Params.URI
		if uri == StatusURI {
			return nil
		}
		if _, ok := trackedSlug(cat, uri); ok {
			return nil
		}
		return mcp.ResourceNotFoundError(uri)
	}
	unsubscribe := func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	return subscribe, unsubscribe
}

// SnapshotSwapped tells the clients subscribed to s's resources that a new
// snapshot is being served: notifications/resources/updated for the status
// resource and every tracked service's (the SDK sends each only to the
// sessions subscribed to that URI). Every service is named, not only those
// whose status changed: a new snapshot carries new probe latencies and
// uptime figures for all of them.
func SnapshotSwapped(ctx context.Context, s *mcp.Server, cat catalog.Catalog) {
	s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: StatusURI})
	for _, svc := range cat.Services {
		s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: ServiceURI(svc.Slug)})
	}
}
