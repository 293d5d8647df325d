package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// openapiOperations is what the index takes from the hand-kept description,
// read once (the number of services is still the placeholder).
var openapiOperations = sync.OnceValues(func() (doc struct {
	Info struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description"`
	} `json:"info"`
	Paths map[string]struct {
		Get *struct {
			OperationID string `json:"operationId"`
			Summary     string `json:"summary"`
		} `json:"get"`
	} `json:"paths"`
}, err error) {
	err = json.Unmarshal(openapiDocument, &doc)
	return doc, err
})

// apiIndex renders the API's index document (api.APIIndex): every API
// route of the table with its operation's id and summary, taken from the
// hand-kept OpenAPI description, so that the index can neither name an
// endpoint the server lacks nor leave one out. A route without an operation
// there fails the build (and build's TestOpenAPIDocument first). Its
// description states the number of services, the catalog's.
func apiIndex(baseURL string, services int) ([]byte, error) {
	doc, err := openapiOperations()
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", snapshot.FileAPIIndex, err)
	}
	count := strconv.Itoa(services)
	base := strings.TrimRight(baseURL, "/")
	index := api.APIIndex{
		Name: doc.Info.Title,
		// The description's first paragraph; the rest is in openapi.json.
		Description: strings.ReplaceAll(strings.TrimSpace(strings.SplitN(doc.Info.Description, "\n\n", 2)[0]), openapiServices, count),
		Version:     doc.Info.Version,
		OpenAPI:     base + snapshot.PathOpenAPI,
		Endpoints:   []api.APIEndpoint{},
		MCP:         base + snapshot.PathMCP,
		License:     api.License,
	}
	for _, rt := range snapshot.Routes() {
		rel, ok := strings.CutPrefix(rt.Path, snapshot.APIBase)
		if !ok || rt.Path == snapshot.PathAPIIndex {
			continue
		}
		op := doc.Paths[rel].Get
		if op == nil {
			return nil, fmt.Errorf("render %s: route %s has no GET operation in openapi.json", snapshot.FileAPIIndex, rt.Path)
		}
		index.Endpoints = append(index.Endpoints, api.APIEndpoint{
			OperationID: op.OperationID, Method: http.MethodGet, Href: base + rt.Path,
			Templated: strings.Contains(rt.Path, "{"), Summary: strings.ReplaceAll(op.Summary, openapiServices, count),
		})
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // the summaries' text as written: "&", not "\u0026"
	enc.SetIndent("", "  ")
	if err := enc.Encode(index); err != nil {
		return nil, fmt.Errorf("render %s: %w", snapshot.FileAPIIndex, err)
	}
	return out.Bytes(), nil
}
