package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/netip"

	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/serve/limits"
)

// The crowd of callers (check/reports.go) as the server keeps it: every
// /check with an error for a tracked service — from HTTP or from a tool of
// the MCP server at /mcp, which are /check calls too — is one voice of its
// client (keyed as the rate limit keys it: an IPv4 address, an IPv6 /64)
// per window, shared across replicas through Redis when there is one, in
// this replica's memory otherwise. `aistatus check` and a stdio MCP server
// (`aistatus mcp --dir`, Options.NoCrowd) answer one caller on its own
// machine: no crowd, nothing counted, no reports evidence.

// newCrowd is the server's crowd: in Redis with a memory fallback, or in
// memory.
func newCrowd(opts Options, shared *limits.Redis) check.Crowd {
	span := opts.ReportWindow
	if span <= 0 {
		span = check.ReportWindow
	}
	mem := check.NewMemoryCrowd(span)
	if shared != nil {
		return shared.Crowd(span, mem)
	}
	return mem
}

// voiceKey is the context key of the voice of an MCP tool's caller.
type voiceKey struct{}

// withVoice keeps the client of a POST /mcp in the context, for the /check
// its tools make in-process (whose request has no client address of its
// own).
func (s *Server) withVoice(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := limits.LimitKey(limits.ClientAddr(r, s.opts.TrustedProxies))
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), voiceKey{}, v)))
	})
}

// voice is the client a /check counts for: an MCP tool's caller, the
// request's client, or nobody for an in-process request without a caller
// (a stdio MCP server's).
func (s *Server) voice(r *http.Request) netip.Addr {
	if v, ok := r.Context().Value(voiceKey{}).(netip.Addr); ok {
		return v
	}
	if r.RemoteAddr == "" {
		return netip.Addr{}
	}
	return limits.LimitKey(limits.ClientAddr(r, s.opts.TrustedProxies))
}

// serveWithReports serves a service's document with its live reports
// added: the file as built has none (a static host counts nothing), and the
// count changes with every report, so the body is the file's with a
// "reports" member put before its closing brace.
func (s *Server) serveWithReports(w http.ResponseWriter, r *http.Request, rep *representation, slug string) {
	if s.crowd == nil {
		rep.serve(w, r)
		return
	}
	now := s.opts.Now()
	reports, err := json.Marshal(s.crowd.Count(slug, netip.Addr{}, now).Doc(now))
	end := bytes.LastIndexByte(rep.body, '}')
	if err != nil || end < 1 {
		rep.serve(w, r) // not an object: never, from a build
		return
	}
	body := make([]byte, 0, len(rep.body)+len(reports)+16)
	body = append(body, rep.body[:end]...)
	body = append(body, `,"reports":`...)
	body = append(body, reports...)
	body = append(body, rep.body[end:]...)
	serveComputed(w, r, etagOf(body), func() ([]byte, error) { return body, nil })
}
