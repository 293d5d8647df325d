package build

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// TestAPIIndex: the index lists every API route of the table, each with
// its operation from openapi.json, at absolute addresses under the base
// URL, templated exactly where the path holds a placeholder.
func TestAPIIndex(t *testing.T) {
	t.Parallel()
	data, err := apiIndex(openapiTestBase+"/", openapiTestServices)
	if err != nil {
		t.Fatal(err)
	}
	var index api.APIIndex
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	if index.Name != "aistatus" || index.Version != "1.0.0" || index.License != api.License ||
		index.OpenAPI != openapiTestBase+snapshot.PathOpenAPI || index.MCP != openapiTestBase+snapshot.PathMCP ||
		index.Description != fmt.Sprintf("A free, public, read-only JSON API telling whether %d AI services are up.", openapiTestServices) {
		t.Errorf("index %+v", index)
	}
	doc := openapiLoad(t)
	byHref := map[string]api.APIEndpoint{}
	for _, e := range index.Endpoints {
		byHref[e.Href] = e
	}
	for _, rt := range snapshot.Routes() {
		rel, ok := strings.CutPrefix(rt.Path, snapshot.APIBase)
		if !ok || rt.Path == snapshot.PathAPIIndex {
			continue
		}
		e, listed := byHref[openapiTestBase+rt.Path]
		op := doc.Paths.Value(rel).Get
		if !listed || e.OperationID != op.OperationID || e.Summary != op.Summary || e.Method != "GET" ||
			e.Templated != strings.Contains(rt.Path, "{") {
			t.Errorf("%s: listed %v as %+v, operation %s %q", rt.Path, listed, e, op.OperationID, op.Summary)
		}
	}
	// The API's operations: the paths outside it (the façade, /metrics,
	// /mcp, …) are not its endpoints, and the index links /mcp on its own.
	if n := len(openapiAPIPaths(doc)) - 1; len(index.Endpoints) != len(byHref) || len(index.Endpoints) != n {
		t.Errorf("%d endpoints listed, %d operations of the API besides the index", len(index.Endpoints), n)
	}
	if strings.Contains(string(data), `\u0026`) {
		t.Error("text escaped for HTML")
	}
}
