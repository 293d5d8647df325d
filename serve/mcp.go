package serve

import (
	"bytes"
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
	return noStore(mcpProblems(mcpGuard(s.withVoice(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer },
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
// maxMCPBody is a 413, and a JSON-RPC batch (an array) is a 400.
//
// Batches are refused because one HTTP request is charged one token by the
// rate limit: a batch of 10 000 tool calls would otherwise cost one. The
// MCP specification dropped batching in its 2025-06-18 revision, and the
// SDK refuses batches only from clients that announce that revision or a
// later one, so a client announcing none (or an older one) could still
// send them. With batches gone, one request is one message, and the limit
// is per message.
func mcpGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		tooLarge := func() {
			// The rest of the body is never read: do not reuse the connection.
			w.Header().Set("Connection", "close")
			problem(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("an MCP request body may be at most %d bytes", maxMCPBody))
		}
		if r.ContentLength > maxMCPBody {
			tooLarge()
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMCPBody))
		if err != nil {
			if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
				tooLarge()
				return
			}
			problem(w, http.StatusBadRequest, "", "the request body could not be read")
			return
		}
		if isJSONArray(body) {
			problem(w, http.StatusBadRequest, "", "JSON-RPC batches are not supported: send one MCP message per request "+
				"(the MCP specification dropped batching in its 2025-06-18 revision)")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
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
