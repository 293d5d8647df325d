package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/aistatus/aistatus/serve/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpHandler is /mcp: the MCP server over streamable HTTP. Its tools call
// the API in-process (APIHandler): a tool call was already counted by the
// limiter and logged as one POST /mcp, and must not be counted again.
func (s *Server) mcpHandler() http.Handler {
	mcpServer := mcpserver.New(mcpserver.InProcess(s.api), s.opts.Version, mcpserver.WithCatalog(s.opts.Catalog))
	return noStore(mcpProblems(mcpGuard(s.limit, s.withVoice(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer },
		&mcp.StreamableHTTPOptions{
			// Stateless: every POST stands alone, so there is no session memory
			// to bound and any instance behind a load balancer can answer it.
			Stateless:    true,
			JSONResponse: true,
			// The SDK's DNS-rebinding guard rejects a loopback peer with a public
			// Host — exactly a reverse proxy on the same machine. It protects
			// local servers with private tools; this one is public and read-only.
			DisableLocalhostProtection: true,
		})))))
}

// maxMCPBody caps a POST /mcp body. One MCP message from a client of these
// four read-only tools is a few hundred bytes; 64 KiB leaves ample room
// while keeping what a client can make the server buffer small.
const maxMCPBody = 64 << 10

// mcpGuard screens POST /mcp bodies before the SDK reads them: a body over
// maxMCPBody is a 413, and a JSON-RPC batch (an array) is a 400. It charges
// the rate limit through charge, per message, except for what reads no data
// and costs the server next to nothing (isFree): a notification
// (notifications/initialized: a 202), initialize, ping, and a GET or DELETE
// (the stateless server's 405). A stateless client's tool call thus costs
// at most two requests of the budget however many its library sends around
// it: the MCP Inspector's CLI sends five (initialize, notifications/
// initialized, a GET for a stream, tools/list, tools/call) and pays two; a
// client that sends tools/call alone (the stateless server answers without
// initialize) pays one.
//
// Batches are refused because one HTTP request is charged one token by the
// rate limit: a batch of 10 000 tool calls would otherwise cost one. The
// MCP specification dropped batching in its 2025-06-18 revision, and the
// SDK refuses batches only from clients that announce that revision or a
// later one, so a client announcing none (or an older one) could still
// send them. With batches gone, one request is one message, and the limit
// is per message.
func mcpGuard(charge func(http.Handler) http.Handler, next http.Handler) http.Handler {
	// screen answers a POST whose body (or the error reading it) is in the
	// request's context; whether it is charged is decided below (isFree).
	screen := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		read := r.Context().Value(mcpBodyKey{}).(mcpBody)
		switch {
		case read.tooLarge:
			// The rest of the body is never read: do not reuse the connection.
			w.Header().Set("Connection", "close")
			problem(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("an MCP request body may be at most %d bytes", maxMCPBody))
		case read.err != nil:
			problem(w, http.StatusBadRequest, "", "the request body could not be read")
		case isJSONArray(read.body):
			problem(w, http.StatusBadRequest, "", "JSON-RPC batches are not supported: send one MCP message per request "+
				"(the MCP specification dropped batching in its 2025-06-18 revision)")
		default:
			r.Body = io.NopCloser(bytes.NewReader(read.body))
			r.ContentLength = int64(len(read.body))
			next.ServeHTTP(w, r)
		}
	})
	charged := charge(screen)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		var read mcpBody
		if r.ContentLength > maxMCPBody {
			read.tooLarge = true
		} else if read.body, read.err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxMCPBody)); read.err != nil {
			mbe := (*http.MaxBytesError)(nil)
			read.tooLarge = errors.As(read.err, &mbe)
		}
		r = r.WithContext(context.WithValue(r.Context(), mcpBodyKey{}, read))
		if read.err == nil && !read.tooLarge && isFree(read.body) {
			screen.ServeHTTP(w, r)
			return
		}
		charged.ServeHTTP(w, r)
	})
}

// mcpBody is what mcpGuard read of a POST body.
type mcpBody struct {
	body     []byte
	err      error
	tooLarge bool // over maxMCPBody, declared or read
}

type mcpBodyKey struct{}

// isFree reports whether body is one JSON-RPC message that costs the server
// next to nothing and reads no data: a notification (a method and no id),
// or the handshake (initialize) or a ping. Anything else — tools/call,
// resources/read, the listings (a tools/list is 14 KB), a response, a body
// that is not JSON — is charged.
func isFree(body []byte) bool {
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method == "" {
		return false
	}
	return msg.ID == nil || msg.Method == "initialize" || msg.Method == "ping"
}

// mcpProblems turns the SDK's plain-text error answers into problem details.
func mcpProblems(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pw := &problemWriter{ResponseWriter: w}
		next.ServeHTTP(pw, r)
		pw.finish()
	})
}

// isJSONArray reports whether a JSON text is an array: its first byte other
// than JSON whitespace is '['.
func isJSONArray(body []byte) bool {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '['
}

// problemWriter turns the SDK's plain-text 4xx and 5xx answers (http.Error:
// "malformed payload", "method not allowed", …) into problem details, like
// every other error of the server. JSON-RPC errors, sent as JSON with a 200,
// pass through untouched.
type problemWriter struct {
	http.ResponseWriter
	status int // non-zero once an error answer is being captured
	detail bytes.Buffer
}

// maxProblemDetail bounds the captured error text.
const maxProblemDetail = 512

func (p *problemWriter) WriteHeader(code int) {
	if code >= 400 && p.status == 0 && strings.HasPrefix(p.Header().Get("Content-Type"), "text/plain") {
		p.status = code
		return
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *problemWriter) Write(b []byte) (int, error) {
	if p.status != 0 {
		p.detail.Write(b[:min(len(b), max(0, maxProblemDetail-p.detail.Len()))])
		return len(b), nil
	}
	return p.ResponseWriter.Write(b)
}

// Flush lets answers the SDK streams through; a captured error is sent when
// the SDK is done (see finish).
func (p *problemWriter) Flush() {
	if p.status == 0 {
		http.NewResponseController(p.ResponseWriter).Flush()
	}
}

// finish sends the captured error, if any, as a problem.
func (p *problemWriter) finish() {
	if p.status == 0 {
		return
	}
	detail := strings.TrimSpace(p.detail.String())
	if detail == "" {
		detail = http.StatusText(p.status)
	}
	problem(p.ResponseWriter, p.status, "", detail)
}

func (p *problemWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }
