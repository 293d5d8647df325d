package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/serve/limits"
)

// crowdForgetEvery is how often a serving process closes the crowd's ended
// windows when no call does (check.MemoryCrowd.ForgetEvery): a client's
// hash outlives its window by at most this much.
const crowdForgetEvery = 15 * time.Second

// clientVoice is the caller's voice in /check's crowd of reports: the rate
// limit's key (an IPv4 address or an IPv6 /64), "" when it is unknown. A
// check_service call through /mcp is a /check call too: its in-process
// request has no client address of its own, so the voice of the POST /mcp
// that made it is taken from the context (withVoice). An in-process
// request without one (a stdio MCP server's) is nobody's.
func (s *Server) clientVoice(r *http.Request) string {
	if v, ok := r.Context().Value(voiceKey{}).(string); ok {
		return v
	}
	if r.RemoteAddr == "" {
		return ""
	}
	return s.addrVoice(r)
}

// addrVoice is the voice of the client that sent r.
func (s *Server) addrVoice(r *http.Request) string {
	if a := limits.LimitKey(limits.ClientAddr(r, s.opts.TrustedProxies)); a.IsValid() {
		return a.String()
	}
	return ""
}

// voiceKey is the context key of the voice of a POST /mcp's client.
type voiceKey struct{}

// withVoice keeps the client of a POST /mcp in its context, for the
// /check its tools make in-process: behind a trusted proxy, the peer the
// in-process request would otherwise be traced to is the proxy.
func (s *Server) withVoice(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), voiceKey{}, s.addrVoice(r))))
	})
}

// crowdOverlay keeps a file's representation with the crowd's live counts
// added, until the file or a count changes, so that the document is
// encoded and compressed once per change, not once per request. The
// counts are read before, outside its lock: a round trip to Redis must not
// hold up the requests that share the cache. A file on a static host has
// none of it: only the thin server counts.
type crowdOverlay struct {
	mu     sync.Mutex
	file   *representation
	counts map[string]api.Reports
	rep    *representation
}

// get is the representation build makes of file with counts, the last
// one made when neither changed since.
func (o *crowdOverlay) get(file *representation, counts map[string]api.Reports, build func() *representation) *representation {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rep == nil || o.file != file || !sameCounts(o.counts, counts) {
		o.file, o.counts, o.rep = file, counts, build()
	}
	return o.rep
}

// withReports keeps each service document with its crowd count, as its
// last member, "reports".
type withReports struct {
	mu     sync.Mutex
	bySlug map[string]*crowdOverlay
}

func (w *withReports) of(slug string) *crowdOverlay {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bySlug[slug] == nil {
		if w.bySlug == nil {
			w.bySlug = map[string]*crowdOverlay{}
		}
		w.bySlug[slug] = &crowdOverlay{}
	}
	return w.bySlug[slug]
}

// serviceWithReports is rep (slug's service file) with the crowd's count at
// now; rep itself when there is no crowd (Options.NoCrowd) or it cannot count.
func (s *Server) serviceWithReports(slug string, rep *representation, now time.Time) *representation {
	counts := s.crowdReportsAll([]string{slug}, now)
	if len(counts) == 0 {
		return rep
	}
	return s.reports.of(slug).get(rep, counts, func() *representation {
		member, _ := json.Marshal(counts[slug])
		body := bytes.TrimRight(rep.body, "\n")
		if len(body) == 0 || body[len(body)-1] != '}' {
			return rep // not an object: served as built
		}
		out := make([]byte, 0, len(body)+len(member)+16)
		out = append(out, body[:len(body)-1]...)
		out = bytes.TrimRight(out, " \n")
		out = append(out, `,"reports":`...)
		out = append(out, member...)
		out = append(out, "}\n"...)
		return newRepresentation(out, rep.contentType)
	})
}

// crowdReportsAll is the crowd's count at now of each of slugs as the
// documents give it, read in one go (one round trip to Redis); a service
// the crowd cannot count (no crowd, or Redis failing) is absent.
func (s *Server) crowdReportsAll(slugs []string, now time.Time) map[string]api.Reports {
	out := map[string]api.Reports{}
	if s.crowd == nil {
		return out
	}
	for slug, rc := range s.crowd.CountAll(slugs, now) {
		out[slug] = api.Reports{WindowStart: rc.Window, WindowEnd: rc.Window.Add(check.ReportWindow),
			Count: rc.Count, Baseline: rc.Baseline, State: rc.State()}
	}
	return out
}

// sameCounts reports whether two sets of crowd counts, by subject or
// service, are the same.
func sameCounts(a, b map[string]api.Reports) bool {
	if len(a) != len(b) {
		return false
	}
	for id, r := range a {
		if other, ok := b[id]; !ok || !sameReports(r, other) {
			return false
		}
	}
	return true
}

func sameReports(a, b api.Reports) bool {
	return a.WindowStart.Equal(b.WindowStart) && a.Count == b.Count && a.State == b.State &&
		(a.Baseline == nil) == (b.Baseline == nil) && (a.Baseline == nil || *a.Baseline == *b.Baseline)
}
