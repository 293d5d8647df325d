package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/serve/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The resources list and read the API's own documents, with the cache hint.
func TestResourcesListAndRead(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	cs := connect(t, mcpserver.New(mcpserver.InProcess(srv.APIHandler()), "test"))
	ctx := context.Background()

	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 1 || list.Resources[0].URI != mcpserver.StatusURI || list.Resources[0].MIMEType != "application/json" {
		t.Fatalf("resources: %+v", list.Resources)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != mcpserver.ServiceURITemplate {
		t.Fatalf("templates: %+v", templates.ResourceTemplates)
	}

	var status api.StatusDoc
	read(t, cs, mcpserver.StatusURI, &status)
	if len(status.Services) != catalogSize(t) || status.License != api.License || !status.Timestamp.Equal(genTime) {
		t.Errorf("status resource: %d services, license %q, timestamp %s", len(status.Services), status.License, status.Timestamp)
	}
	var svc api.ServiceDoc
	read(t, cs, mcpserver.ServiceURI("openai"), &svc)
	if svc.Slug != "openai" || svc.Status != api.Degraded || len(svc.Incidents) == 0 {
		t.Errorf("openai resource: slug %q status %q, %d incidents", svc.Slug, svc.Status, len(svc.Incidents))
	}

	for _, uri := range []string{mcpserver.ServiceURI("nope"), "aistatus://services/", "aistatus://services/openai/x", "aistatus://elsewhere"} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			t.Errorf("read %s: no error", uri)
		}
	}
}

// A service resource reads only a tracked slug: one that would not stay a
// path segment of the API (dots, encoded or not, slashes, nothing) or is not
// in the catalog is the SDK's "resource not found", and never reads another
// document (aistatus://services/%2e%2e once answered the API index). Nor
// does get_service's slug.
func TestResourceReadsOnlyTrackedSlugs(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	ctx := context.Background()
	cs := connect(t, mcpserver.New(mcpserver.InProcess(srv.APIHandler()), "test"))
	for _, rest := range []string{"%2e%2e", "..", "%2E%2E", ".", "%2e", "", "%2F", "%2e%2e%2Fstatus", "%2e%2e%2F%2e%2e%2Fopenapi.json",
		"openai%2F..", "openai%2F%2e%2e", "%252e%252e", "%20", "OPENAI", "openai%00", "nope", "status"} {
		uri := "aistatus://services/" + rest
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			t.Errorf("read %s: no error, read %.80q", uri, res.Contents[0].Text)
			continue
		}
		assertNotFound(t, "read "+uri, err, uri)
	}

	// The tool asks the API for the slug it is given, so that a remote
	// instance's catalog is its own; a dot segment is not asked for.
	for _, slug := range []string{"..", ".", "%2e%2e", "../status", "openai/.."} {
		assertToolError(t, cs, "get_service", map[string]any{"slug": slug}, "is not a tracked service")
	}
}

// assertNotFound asserts that err is the SDK's "resource not found" for uri.
func assertNotFound(t *testing.T, what string, err error, uri string) {
	t.Helper()
	var got, want *jsonrpc.Error
	if !errors.As(err, &got) || !errors.As(mcp.ResourceNotFoundError(uri), &want) {
		t.Errorf("%s: error %v, not a JSON-RPC error", what, err)
		return
	}
	if got.Code != want.Code || got.Message != want.Message || !strings.Contains(string(got.Data), uri) {
		t.Errorf("%s: error %d %q %s, want %d %q for the URI", what, got.Code, got.Message, got.Data, want.Code, want.Message)
	}
}

// read reads a resource that must exist, checks its form and decodes it.
func read(t *testing.T, cs *mcp.ClientSession, uri string, out any) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if res.TTLMs != 30_000 || res.CacheScope != "public" {
		t.Errorf("read %s: cache hint ttlMs %d scope %q, want 30000 public", uri, res.TTLMs, res.CacheScope)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), out); err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
}

// A subscribed client is told when a newer snapshot is swapped in, for each
// resource it subscribed to and no other. Without WithSubscriptions the capability is not offered.
func TestSubscriptionNotifiedOnSwap(t *testing.T) {
	t.Parallel()
	srv, dir, cat := newServerDir(t, 0)
	server := mcpserver.New(mcpserver.InProcess(srv.APIHandler()), "test", mcpserver.WithCatalog(cat), mcpserver.WithSubscriptions())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.OnSwap(func() { go mcpserver.SnapshotSwapped(ctx, server, cat) })

	updated := make(chan string, 64)
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	})
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("resources capability %+v: subscribe not offered", caps.Resources)
	}
	for _, uri := range []string{mcpserver.StatusURI, mcpserver.ServiceURI("groq")} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}

	// Nothing is sent before a swap.
	select {
	case uri := <-updated:
		t.Fatalf("update for %s before any swap", uri)
	case <-time.After(50 * time.Millisecond):
	}

	publish(t, dir, cat, genTime.Add(time.Minute))
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case uri := <-updated:
			got[uri] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("after the swap, updates for %v only", got)
		}
	}
	if !got[mcpserver.StatusURI] || !got[mcpserver.ServiceURI("groq")] {
		t.Errorf("updates for %v", got)
	}
	select {
	case uri := <-updated:
		t.Errorf("update for %s, not subscribed", uri)
	case <-time.After(50 * time.Millisecond):
	}
	// The resource now reads the new snapshot.
	var status api.StatusDoc
	read(t, cs, mcpserver.StatusURI, &status)
	if !status.Timestamp.Equal(genTime.Add(time.Minute)) {
		t.Errorf("status after the swap: timestamp %s", status.Timestamp)
	}

	plain := connect(t, mcpserver.New(mcpserver.InProcess(srv.APIHandler()), "test"))
	if caps := plain.InitializeResult().Capabilities; caps.Resources == nil || caps.Resources.Subscribe {
		t.Errorf("without WithSubscriptions: resources capability %+v", caps.Resources)
	}
}
