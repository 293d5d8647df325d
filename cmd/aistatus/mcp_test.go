package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/serve/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
)

// childEnv, when set, makes this test binary run the CLI with the arguments
// after "--" instead of testing: the stdio test needs a real process whose
// stdin and stdout are the protocol, and re-executing the test binary gives
// one without a separate go build.
const childEnv = "GO_WANT_AISTATUS_CHILD"

// TestMCPStdio runs `aistatus mcp --dir` as a child process and talks to it
// over stdin/stdout with the SDK's own client.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	if os.Getenv(childEnv) == "1" {
		os.Exit(execute(context.Background(), flag.Args(), os.Stdout, os.Stderr))
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The loopback world stays up for the child's live probes of check_service.
	world := buildtest.NewWorld(t, cat)
	catalog := writeCatalog(t, world.Catalog)
	dir := filepath.Join(t.TempDir(), "public")
	if code, out := aistatus(context.Background(), "build", "--out", dir, "--catalog", catalog, "--base-url", "https://aistatus.example", "--timeout", "5s"); code != 0 {
		t.Fatalf("build exited %d: %s", code, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, stderr := startMCP(ctx, t, "--dir", dir, "--catalog", catalog)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "check_service,get_service,get_status,list_incidents,plan_fallback" {
		t.Errorf("tools: %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "check_service", Arguments: map[string]any{"query": "api.anthropic.com"}})
	if err != nil {
		t.Fatal(err)
	}
	var check mcpserver.CheckResult
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &check); err != nil || res.IsError {
		t.Fatalf("check_service: %v, isError %v: %s", err, res.IsError, data)
	}
	if !check.Tracked || check.Service.Slug != "anthropic" || check.Verdict.Level != "up" || check.LatencyMs == nil || check.License != api.License {
		t.Errorf("check_service api.anthropic.com: %s", data)
	}
	// The credit line names the instance: for --dir, the base URL the snapshot was built with.
	if want := api.Attribution("https://aistatus.example"); check.Attribution != want {
		t.Errorf("--dir attribution %q, want %q", check.Attribution, want)
	}

	// Closing stdin is how a client ends the server: it must exit cleanly.
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v; stderr: %s", err, stderr.String())
	}
	// Logs went to stderr, as JSON lines, and nothing corrupted stdout (or
	// the calls above would have failed).
	if !strings.Contains(stderr.String(), `"message":"serving MCP on stdio"`) {
		t.Errorf("stderr: %s", stderr.String())
	}

	// --api relays to a running instance over HTTP instead.
	srv := serve.New(serve.Options{Dir: dir, Catalog: world.Catalog, Log: zerolog.Nop()})
	if _, err := srv.Store().Reload(); err != nil {
		t.Fatal(err)
	}
	instance := httptest.NewServer(srv.Handler())
	t.Cleanup(instance.Close)
	remote, _ := startMCP(ctx, t, "--api", instance.URL)
	res, err = remote.CallTool(ctx, &mcp.CallToolParams{Name: "get_service", Arguments: map[string]any{"slug": "openai"}})
	if err != nil {
		t.Fatal(err)
	}
	var svc mcpserver.ServiceResult
	data, _ = json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &svc); err != nil || res.IsError || svc.Slug != "openai" || svc.Status != api.Operational {
		t.Errorf("get_service via --api: %v, isError %v: %s", err, res.IsError, data)
	}
	// For --api, the address the data was fetched from.
	if want := api.Attribution(instance.URL); svc.Attribution != want {
		t.Errorf("--api attribution %q, want %q", svc.Attribution, want)
	}
}

// TestMCPNoSnapshot: started before the first build, aistatus mcp warns on
// stderr and its tools answer "not ready" as a tool error, not a failure.
func TestMCPNoSnapshot(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, stderr := startMCP(ctx, t, "--dir", filepath.Join(t.TempDir(), "public"))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_status"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no snapshot has been published") {
		t.Errorf("get_status without a snapshot: %+v", res)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if !strings.Contains(stderr.String(), "no snapshot yet") {
		t.Errorf("stderr: %s", stderr)
	}
}

// startMCP starts `aistatus mcp args...` as a child process — this test
// binary, re-executed — and connects the SDK's client to its stdin/stdout.
// The returned buffer collects its stderr; read it after closing the session.
func startMCP(ctx context.Context, t *testing.T, args ...string) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	return startMCPWith(ctx, t, nil, args...)
}

// startMCPWith is startMCP with the client's options.
func startMCPWith(ctx context.Context, t *testing.T, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestMCPStdio$", "--", "mcp", "--log-format", "json"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() }) // a no-op after the test's own Close; ends the child if the test failed early
	return cs, stderr
}

// TestMCPStdioResourceUpdated: a client of aistatus mcp --dir subscribed to
// a service's resource is told when a build publishes a newer snapshot
// into the folder, and then reads the new document.
func TestMCPStdioResourceUpdated(t *testing.T) {
	t.Parallel()
	first := time.Now().Add(-2 * time.Minute).Truncate(time.Second)
	dir, catalog := publishStatuses(t, first, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	updated := make(chan string, 64)
	cs, stderr := startMCPWith(ctx, t, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	}, "--dir", dir, "--catalog", catalog)
	if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("resources capability %+v: no subscriptions", caps.Resources)
	}
	groq := mcpserver.ServiceURI("groq")
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: groq}); err != nil {
		t.Fatal(err)
	}
	publishStatusesInto(t, dir, first.Add(time.Minute), map[string]api.Status{"groq": api.MajorOutage})
	select {
	case uri := <-updated:
		if uri != groq {
			t.Errorf("update for %s, want %s", uri, groq)
		}
	case <-time.After(20 * time.Second): // the folder is polled every 2 s
		t.Fatalf("no update 20 s after the new snapshot; stderr: %s", stderr)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: groq})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("read %s: %v %+v", groq, err, res)
	}
	var doc api.ServiceDoc
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil || doc.Status != api.MajorOutage {
		t.Errorf("groq after the new snapshot: %v %s", err, res.Contents[0].Text)
	}
}
