package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// numericErrorAsString lets check_service's error argument be a JSON number
// as well as a string: 529 as well as "529". Models and people write an
// HTTP status as a number, and the schema's plain string type alone would
// refuse it. The schema keeps one type, a string — a type array is what
// several function-calling APIs reject (see inputSchema) — and this
// middleware turns a whole number into its decimal string before the tool
// validates its arguments. Anything else is left for the schema to judge.
func numericErrorAsString(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil && call.Params.Name == "check_service" {
			call.Params.Arguments = errorNumberToString(call.Params.Arguments)
		}
		return next(ctx, method, req)
	}
}

// errorNumberToString rewrites {"error": 529, …} as {"error": "529", …}; any
// other arguments come back unchanged.
func errorNumberToString(args json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return args
	}
	raw, ok := fields["error"]
	if !ok {
		return args
	}
	var value any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&value) != nil {
		return args
	}
	n, isNumber := value.(json.Number)
	if !isNumber {
		return args // a string (or null, …): the schema decides
	}
	i, err := n.Int64()
	if err != nil {
		return args // 529.5 is no HTTP status: the schema refuses it, saying why
	}
	fields["error"], _ = json.Marshal(strconv.FormatInt(i, 10))
	out, err := json.Marshal(fields)
	if err != nil {
		return args
	}
	return out
}
