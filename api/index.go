package api

// APIIndex is the document at /api/v1/: where everything the API offers
// is, so that a client that knows only the base address finds the rest.
type APIIndex struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Version is the OpenAPI description's info.version.
	Version string `json:"version"`
	// OpenAPI is the address of the OpenAPI description, which says the
	// parameters and responses of every endpoint.
	OpenAPI string `json:"openapi"`
	// Endpoints are the API's operations, in the route table's order.
	Endpoints []APIEndpoint `json:"endpoints"`
	// MCP is the address of the MCP server (streamable HTTP).
	MCP     string `json:"mcp"`
	License string `json:"license"`
}

// APIEndpoint is one operation of the API.
type APIEndpoint struct {
	// OperationID is the operation's id in the OpenAPI description.
	OperationID string `json:"operationId"`
	Method      string `json:"method"`
	// Href is the endpoint's absolute address; with Templated, an RFC 6570
	// URI template whose {slug} and {time} the client fills in.
	Href      string `json:"href"`
	Templated bool   `json:"templated"`
	Summary   string `json:"summary"`
}
