package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/serve/mcpserver"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listTools lists the tools of server through a real client session.
func listTools(t *testing.T, server *mcp.Server) []*mcp.Tool {
	t.Helper()
	res, err := connect(t, server).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 5 {
		t.Fatalf("%d tools, want 5", len(res.Tools))
	}
	return res.Tools
}

// TestToolAnnotations: every tool says it only reads, is idempotent and
// destroys nothing; only check_service, which probes the service's API host
// live, reaches outside aistatus's own data.
func TestToolAnnotations(t *testing.T) {
	t.Parallel()
	for _, tool := range listTools(t, mcpserver.New(mcpserver.API{BaseURL: "http://unused.invalid"}, "test")) {
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		if !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint || a.Title == "" {
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
		if want := tool.Name == "check_service"; a.OpenWorldHint == nil || *a.OpenWorldHint != want {
			t.Errorf("%s: openWorldHint %v, want %v", tool.Name, a.OpenWorldHint, want)
		}
	}
}

// TestInputSchemasPortable: every input schema is what the function-calling
// APIs of OpenAI and Gemini accept — an object with properties and
// additionalProperties false, no composition at the top, and each property
// one plain type (no ["null", "integer"]) with a description, bounds where
// they apply.
func TestInputSchemasPortable(t *testing.T) {
	t.Parallel()
	for _, tool := range listTools(t, mcpserver.New(mcpserver.API{BaseURL: "http://unused.invalid"}, "test")) {
		data, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Type                 any                       `json:"type"`
			Properties           map[string]map[string]any `json:"properties"`
			AdditionalProperties *bool                     `json:"additionalProperties"`
			OneOf, AnyOf, AllOf  any
		}
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatalf("%s: %v: %s", tool.Name, err, data)
		}
		if schema.Type != "object" || schema.Properties == nil || schema.AdditionalProperties == nil || *schema.AdditionalProperties ||
			schema.OneOf != nil || schema.AnyOf != nil || schema.AllOf != nil {
			t.Errorf("%s: input schema %s", tool.Name, data)
		}
		for name, prop := range schema.Properties {
			typ, ok := prop["type"].(string)
			if !ok || (typ != "string" && typ != "integer") {
				t.Errorf("%s.%s: type %v, want one plain type", tool.Name, name, prop["type"])
			}
			if d, _ := prop["description"].(string); d == "" {
				t.Errorf("%s.%s: no description", tool.Name, name)
			}
			for _, k := range []string{"oneOf", "anyOf", "allOf", "nullable"} {
				if prop[k] != nil {
					t.Errorf("%s.%s: has %s", tool.Name, name, k)
				}
			}
			if typ == "integer" && (prop["minimum"] == nil || prop["maximum"] == nil) {
				t.Errorf("%s.%s: integer without minimum and maximum: %v", tool.Name, name, prop)
			}
			if typ == "string" && prop["enum"] == nil && prop["maxLength"] == nil {
				t.Errorf("%s.%s: free string without maxLength: %v", tool.Name, name, prop)
			}
		}
	}
}

// slugExamples finds the slugs a text names as examples: "slug, such as a,
// b or c" (and the "e.g." form the first descriptions used).
var slugExamples = regexp.MustCompile(`slugs?,? (?:such as|e\.g\.,?|like) ([a-z0-9-]+(?:(?:, | or | and )[a-z0-9-]+)*)`)

// queryExamples finds check_service's example queries: "URL, such as a, b or c".
var queryExamples = regexp.MustCompile(`URL,? (?:such as|e\.g\.,?) (.+)$`)

func splitList(list string) []string {
	return strings.FieldsFunc(strings.NewReplacer(" or ", ",", " and ", ",", ", ", ",").Replace(list), func(r rune) bool { return r == ',' })
}

// descriptions returns every description of tool: its own and its inputs'.
func descriptions(t *testing.T, tool *mcp.Tool) []string {
	t.Helper()
	data, _ := json.Marshal(tool.InputSchema)
	var schema struct {
		Properties map[string]struct{ Description string } `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	out := []string{tool.Description}
	for _, p := range schema.Properties {
		out = append(out, p.Description)
	}
	return out
}

// TestDescriptionsNameRealSlugs: every slug a description gives as an
// example is one the API accepts, with the embedded catalog and with
// another — the examples come from the catalog, so they follow it.
func TestDescriptionsNameRealSlugs(t *testing.T) {
	t.Parallel()
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	other := catalog.Catalog{Services: append([]catalog.Service(nil), def.Services[5:]...), ErrorCodes: def.ErrorCodes}
	other.Services[0].Slug, other.Services[0].Aliases = "renamed-service", []string{"renamed alias"}
	for name, tc := range map[string]struct {
		opts []mcpserver.Option
		cat  catalog.Catalog
	}{
		"embedded": {nil, def},
		"custom":   {[]mcpserver.Option{mcpserver.WithCatalog(other)}, other},
	} {
		t.Run(name, func(t *testing.T) {
			slugs := map[string]bool{}
			for _, svc := range tc.cat.Services {
				slugs[svc.Slug] = true
			}
			named := map[string]bool{}
			for _, tool := range listTools(t, mcpserver.New(mcpserver.API{BaseURL: "http://unused.invalid"}, "test", tc.opts...)) {
				for _, d := range descriptions(t, tool) {
					for _, m := range slugExamples.FindAllStringSubmatch(d, -1) {
						for _, slug := range splitList(m[1]) {
							named[slug] = true
							if !slugs[slug] {
								t.Errorf("%s: example slug %q is not in the catalog: %s", tool.Name, slug, d)
							}
						}
					}
				}
			}
			// Not vacuous: the slug inputs do name examples, the catalog's first.
			if !named[tc.cat.Services[0].Slug] || len(named) < 3 {
				t.Errorf("example slugs named: %v", named)
			}
		})
	}
}

// TestDescriptionsQueriesAreTracked: each example query check_service's
// description offers matches a tracked service.
func TestDescriptionsQueriesAreTracked(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0)
	cs := connect(t, mcpserver.New(mcpserver.InProcess(srv.APIHandler()), "test"))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, tool := range tools.Tools {
		if tool.Name != "check_service" {
			continue
		}
		for _, d := range descriptions(t, tool) {
			if m := queryExamples.FindStringSubmatch(d); m != nil {
				queries = splitList(m[1])
			}
		}
	}
	if len(queries) < 3 {
		t.Fatalf("example queries: %q", queries)
	}
	for _, q := range queries {
		var check mcpserver.CheckResult
		call(t, cs, "check_service", map[string]any{"query": q}, &check)
		if !check.Tracked {
			t.Errorf("example query %q is not tracked: %+v", q, check.Verdict)
		}
	}
}

// TestAttributionNamesInstance: the credit line in every result names the
// instance the data came from — the snapshot's base URL in-process (what
// aistatus mcp --dir and a server's own /mcp use), the API's address for a
// remote instance, and an explicit Address over either.
func TestAttributionNamesInstance(t *testing.T) {
	t.Parallel()
	srv := newServer(t, 0) // built with base URL https://aistatus.example
	remote := httptest.NewServer(srv.Handler())
	t.Cleanup(remote.Close)
	for _, tc := range []struct {
		name string
		api  mcpserver.API
		want string
	}{
		{"in-process", mcpserver.InProcess(srv.APIHandler()), "https://aistatus.example"},
		{"remote", mcpserver.API{BaseURL: remote.URL + "/", Client: remote.Client()}, remote.URL},
		{"explicit", mcpserver.API{BaseURL: remote.URL, Client: remote.Client(), Address: "https://status.example.org/"}, "https://status.example.org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, mcpserver.New(tc.api, "test"))
			want := api.Attribution(tc.want)
			if !strings.Contains(want, "aistatus ("+tc.want+")") {
				t.Fatalf("Attribution(%q) = %q", tc.want, want)
			}
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"get_status", nil},
				{"get_service", map[string]any{"slug": "openai"}},
				{"list_incidents", nil},
				{"check_service", map[string]any{"query": "openai"}},
				{"plan_fallback", map[string]any{"model": "anthropic/claude-sonnet-4.5"}},
			} {
				var out struct{ Attribution string }
				text := call(t, cs, c.tool, c.args, &out)
				if out.Attribution != want || !strings.Contains(text, want) {
					t.Errorf("%s: attribution %q, text %q; want %q", c.tool, out.Attribution, text, want)
				}
			}
		})
	}
}

// TestDescriptionsStateTheLimits: the limits the tools describe are the
// API's own (check.MaxQuery, the incident paging rules, the probe rule), so
// a change to one of them changes what the tools say.
func TestDescriptionsStateTheLimits(t *testing.T) {
	t.Parallel()
	tools := map[string]*mcp.Tool{}
	for _, tool := range listTools(t, mcpserver.New(mcpserver.API{BaseURL: "http://unused.invalid"}, "test")) {
		tools[tool.Name] = tool
	}
	schemaOf := func(tool *mcp.Tool) map[string]struct {
		Description string   `json:"description"`
		MaxLength   *int     `json:"maxLength"`
		Maximum     *float64 `json:"maximum"`
	} {
		data, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Description string   `json:"description"`
				MaxLength   *int     `json:"maxLength"`
				Maximum     *float64 `json:"maximum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties
	}
	incidents := schemaOf(tools["list_incidents"])
	if m := incidents["limit"].Maximum; m == nil || int(*m) != snapshot.MaxIncidentLimit ||
		!strings.Contains(incidents["limit"].Description, fmt.Sprintf("1 to %d; default %d", snapshot.MaxIncidentLimit, snapshot.DefaultIncidentLimit)) {
		t.Errorf("list_incidents limit: %+v", incidents["limit"])
	}
	if d := tools["list_incidents"].Description; !strings.Contains(d, fmt.Sprintf("after %d failed probes", api.ProbeIncidentAfter)) ||
		!strings.Contains(d, fmt.Sprintf("outside 1–%d", snapshot.MaxIncidentLimit)) {
		t.Errorf("list_incidents description: %s", d)
	}
	if m := schemaOf(tools["check_service"])["query"].MaxLength; m == nil || *m != check.MaxQuery {
		t.Errorf("check_service query maxLength %v, want %d", m, check.MaxQuery)
	}
	if d := tools["check_service"].Description; !strings.Contains(d, fmt.Sprintf("at most %d s old", int(check.LiveTTL.Seconds()))) {
		t.Errorf("check_service description: %s", d)
	}
	if d := tools["get_service"].Description; !strings.Contains(d, fmt.Sprintf("counts %g%% as downtime", 100*history.PartialOutageDowntime)) {
		t.Errorf("get_service description: %s", d)
	}
}
