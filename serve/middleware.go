package serve

import (
	"fmt"
	"log"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// common sets the headers every response carries and answers the methods
// that are not GET or HEAD: OPTIONS is a CORS preflight, the rest are 405 —
// except POST and DELETE on /mcp, which MCP's streamable HTTP transport uses.
func (s *Server) common(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setCommonHeaders(w.Header())
		if len(r.TransferEncoding) > 0 {
			// A request with both Content-Length and Transfer-Encoding may be
			// an attempt at request smuggling, and RFC 9112 §6.1 asks the
			// server to close the connection after answering it. Go's server
			// reads such a body by its chunked encoding but keeps the
			// connection open, and it drops the Content-Length header before
			// the handler runs, so a chunked request cannot be told apart:
			// every one closes its connection. No client of this API needs
			// chunked requests to keep a connection (MCP messages are small
			// and sent with their length).
			w.Header().Set("Connection", "close")
		}
		if len(r.RequestURI) > maxRequestTarget {
			// No route has a use for such a URL; refuse it before any work.
			problem(w, http.StatusRequestURITooLong, "", fmt.Sprintf("request target longer than %d bytes", maxRequestTarget))
			return
		}
		isMCP := r.URL.Path == snapshot.PathMCP
		methods := "GET, HEAD, OPTIONS"
		if isMCP {
			methods = "GET, POST, DELETE, OPTIONS"
		}
		switch {
		case r.Method == http.MethodGet || r.Method == http.MethodHead,
			isMCP && (r.Method == http.MethodPost || r.Method == http.MethodDelete):
			next.ServeHTTP(w, r)
		case r.Method == http.MethodOptions:
			h := w.Header()
			// Last-Event-ID: an EventSource resuming /events sends it.
			headers := "Accept, Accept-Encoding, If-None-Match, If-Modified-Since, Cache-Control, Last-Event-ID"
			if isMCP {
				// Browser-based MCP clients send JSON bodies and MCP's own headers.
				headers += ", Content-Type, Mcp-Session-Id, Mcp-Protocol-Version"
			}
			h.Set("Access-Control-Allow-Methods", methods)
			h.Set("Access-Control-Allow-Headers", headers)
			h.Set("Access-Control-Max-Age", "86400")
			h.Set("Allow", methods)
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Allow", methods)
			if r.ContentLength != 0 {
				// Close instead of reading the body to reuse the connection: a
				// body that never ends would hold the 405 back until the read
				// timeout, and then the connection would be dropped without it.
				w.Header().Set("Connection", "close")
			}
			problem(w, http.StatusMethodNotAllowed, "", fmt.Sprintf("method %s is not allowed: this API is read-only (%s)", api.Truncate(r.Method, 16), methods))
		}
	})
}

// limit applies the per-client rate limit to one route. It sits inside
// common, so preflights are exempt (browsers send them on their own) and so
// are 405s, which cost nothing.
func (s *Server) limit(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	policy := fmt.Sprintf(`"free";q=%d;w=60`, s.opts.RateLimit)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.store.Current() == nil {
			// No snapshot yet: the answer is a 503 (or, on /mcp, a tool's
			// "not ready"), the server's state and not the client's doing, so
			// it costs no request of the budget; a client retrying after
			// Retry-After then finds its budget whole.
			next.ServeHTTP(w, r)
			return
		}
		d := s.limiter.Decide(r.Context(), limits.LimitKey(limits.ClientAddr(r, s.opts.TrustedProxies)))
		h := w.Header()
		h["Access-Control-Expose-Headers"] = exposeHeaders
		h.Set("RateLimit-Policy", policy)
		h.Set("RateLimit", fmt.Sprintf(`"free";r=%d;t=%d`, d.Remaining, ceilSeconds(d.Reset)))
		if !d.Allowed {
			h.Set("Retry-After", strconv.Itoa(ceilSeconds(d.RetryAfter)))
			detail := fmt.Sprintf("rate limit of %d requests per minute exceeded; retry in %d s (higher limits by arrangement with the operator)",
				s.opts.RateLimit, ceilSeconds(d.RetryAfter))
			if _, text := w.(textRefusals); text {
				// A status bar has room for a few words.
				detail = fmt.Sprintf("⏳ aistatus: rate limited, retry in %d s", ceilSeconds(d.RetryAfter))
			}
			problem(w, http.StatusTooManyRequests, "", detail)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// maxRequestTarget caps the request target (path and query); longer is a
// 414. The longest legitimate one, /incidents with every parameter at its
// 256-byte cap and percent-encoded, is well under it.
const maxRequestTarget = 8 << 10

// noStore overrides the API's shared-cache policy on /mcp: each answer is the
// reply to one client's JSON-RPC message. (The SDK sets its own no-cache on
// the answers it streams; this covers the rest, such as its 4xx.)
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic into a 500 problem instead of a dropped connection.
// It should never fire; it is logged as an error when it does.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.opts.Log.Error().Interface("panic", v).Str("path", r.URL.Path).Msg("handler panicked")
				problem(w, http.StatusInternalServerError, "", "internal error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// accessLog writes one compact line per request when enabled, but for
// health checks that pass.
func (s *Server) accessLog(next http.Handler) http.Handler {
	if !s.opts.AccessLog {
		return next
	}
	// The instance routes (health, readiness), from the route table.
	var healthChecks []string
	for _, rt := range snapshot.Routes() {
		if rt.Instance {
			healthChecks = append(healthChecks, rt.Path)
		}
	}
	rejected := &rejectSampler{log: s.opts.Log, now: s.opts.Now}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := recorders.Get().(*statusRecorder)
		*rec = statusRecorder{ResponseWriter: w, status: http.StatusOK}
		defer func() { *rec = statusRecorder{}; recorders.Put(rec) }()
		next.ServeHTTP(rec, r)
		if rec.status == http.StatusOK && slices.Contains(healthChecks, r.URL.Path) {
			// A load balancer asks every few seconds: only a failing check
			// says something.
			return
		}
		if rec.status == http.StatusTooManyRequests && !rejected.admit() {
			return // counted, and said once that second is over
		}
		var addr [64]byte // the client's address, formatted without an allocation
		s.opts.Log.Info().Str("method", r.Method).Str("path", api.Truncate(r.URL.Path, 256)).
			Int("status", rec.status).Int("bytes", rec.bytes).
			Int64("us", time.Since(start).Microseconds()).Bytes("client", limits.ClientAddr(r, s.opts.TrustedProxies).AppendTo(addr[:0])).
			Msg("request")
	})
}

// rejectedLogBurst is how many 429s the access log writes one by one in a
// second; the rest of that second's are counted in one line. A flood of
// requests past their budget wrote 154 MB of log in 20 s, one line each.
const rejectedLogBurst = 10

// rejectSampler keeps a flood of 429s from becoming a flood of log lines:
// the first rejectedLogBurst of each second (by the server's clock) are
// logged as usual, the rest are counted, and the count is logged once when
// that second is over — at the next 429, or a second later by a timer if
// the flood has stopped.
type rejectSampler struct {
	log zerolog.Logger
	now func() time.Time

	mu      sync.Mutex
	second  time.Time // the start of the current second
	logged  int       // 429s logged in it
	dropped int       // 429s counted, not yet reported
	timer   *time.Timer
}

// admit reports whether to log this 429.
func (s *rejectSampler) admit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := s.now(); now.Sub(s.second) >= time.Second || now.Before(s.second) {
		s.reportLocked()
		s.second, s.logged = now, 0
	}
	if s.logged < rejectedLogBurst {
		s.logged++
		return true
	}
	if s.dropped == 0 {
		s.timer = time.AfterFunc(time.Second, s.report)
	}
	s.dropped++
	return false
}

func (s *rejectSampler) report() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reportLocked()
}

func (s *rejectSampler) reportLocked() {
	if s.dropped == 0 {
		return
	}
	s.timer.Stop()
	s.log.Info().Int("status", http.StatusTooManyRequests).Int("notLogged", s.dropped).
		Msg("rate-limited requests past the log's burst, counted rather than logged one by one")
	s.dropped = 0
}

// recorders are reused: the access log wraps every response in one.
var recorders = sync.Pool{New: func() any { return new(statusRecorder) }}

type statusRecorder struct {
	http.ResponseWriter
	status, bytes int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }
func (s *statusRecorder) Write(b []byte) (int, error) {
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// httpErrorLog routes net/http's own messages (accept errors, failed
// handshakes, a handler's superfluous WriteHeader) into the JSON log as a
// structured line instead of plain text on stderr beside it.
func httpErrorLog(logger zerolog.Logger) *log.Logger {
	return log.New(httpLogWriter{logger}, "", 0)
}

type httpLogWriter struct{ log zerolog.Logger }

func (w httpLogWriter) Write(p []byte) (int, error) {
	msg := strings.TrimPrefix(strings.TrimSpace(string(p)), "http: ")
	w.log.Warn().Str("component", "net/http").Msg(msg)
	return len(p), nil
}
