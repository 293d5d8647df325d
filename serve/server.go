// Package serve is the thin server: it serves a snapshot folder from memory
// with the API's headers, computes /check and filtered /incidents at request
// time, and rate-limits per client.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log"
	"maps"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/serve/mcpserver"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// Options configure a Server. Every dependency is passed in.
type Options struct {
	// Dir is the snapshot folder to serve, unless Origin is set.
	Dir     string
	Catalog snapshot.Catalog
	// RateLimit is the number of requests per minute per client; 0 disables
	// limiting (behind a CDN that limits).
	RateLimit int
	// MaxClients bounds the clients the limiter remembers.
	MaxClients int
	// TrustedProxies are the peers whose X-Forwarded-For is believed; they
	// are exempt from MaxConnsPerClient.
	TrustedProxies []netip.Prefix
	// MaxConnsPerClient caps the concurrent connections of one client IP
	// (IPv6: one /64); 0 means limits.DefaultMaxConnsPerClient, negative no cap.
	MaxConnsPerClient int
	// MaxConns caps all concurrent connections; 0 means DefaultMaxConns
	// (or less, see there), negative no cap.
	MaxConns  int
	AccessLog bool
	Log       zerolog.Logger
	Now       func() time.Time
	// Client makes /check's live probes; ProbeTimeout bounds each.
	Client       *http.Client
	ProbeTimeout time.Duration
	// Version is the version the MCP server reports to its clients.
	Version string
	// Origin, when set, is the published site the snapshot is read from
	// instead of Dir (a replica): Watch polls it.
	Origin *Origin
	// SharedState, when set, is reported by /healthz and /readyz.
	SharedState SharedState
	// Drain is how long Serve reports not-ready before it shuts down, so
	// that a load balancer stops sending first; 0 shuts down at once.
	Drain time.Duration
	// MaxEventStreams caps the open /events streams; 0 means
	// DefaultMaxEventStreams.
	MaxEventStreams int
	// Redis, when set, holds the state replicas share: the rate limit and
	// /check's probe cache (see shared.go). Nil keeps both local.
	Redis redis.UniversalClient
}

// Server is the thin HTTP server.
type Server struct {
	opts    Options
	store   *Store
	limiter limits.Limiter
	shared  *limits.Redis // nil without Options.Redis
	// checker answers /check.
	checker *check.Engine
	handler http.Handler
	// api is the router without rate limiting or access log, for the MCP
	// tools' in-process requests (see APIHandler).
	api http.Handler
	// timeouts bound how long a client may hold a connection; tests shorten them.
	timeouts httpTimeouts
	// dirSource records Watch's looks at Dir, for the health endpoints.
	dirSource *sourceTracker
	// draining is set once shutdown has begun: /readyz answers 503.
	draining atomic.Bool
	// events wakes the /events streams on a swap; heartbeat is their
	// keep-alive interval (tests shorten it).
	events    *eventHub
	heartbeat time.Duration
}

// httpTimeouts are the http.Server timeouts Serve uses.
type httpTimeouts struct {
	readHeader, read, write, idle time.Duration
}

// defaultTimeouts cut off slow or stalled clients (slowloris, endless
// bodies, responses nobody reads) long before they could pile up, yet leave
// a live probe (ProbeTimeout, 5 s) and a large response on a slow link ample time.
//
// The whole request (read) has the header's time: the only bodies are /mcp
// messages of at most 64 KiB. Equal, they cost one read deadline per
// request less — net/http sets the whole request's deadline after the
// header's only when they differ — and each costs a timer update.
var defaultTimeouts = httpTimeouts{readHeader: 5 * time.Second, read: 5 * time.Second, write: 30 * time.Second, idle: 60 * time.Second}

// New returns a server for opts. Call Store().Reload (or Watch) to load the
// snapshot; until one exists the API answers 503.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxClients <= 0 {
		opts.MaxClients = 100_000
	}
	if opts.MaxConnsPerClient == 0 {
		opts.MaxConnsPerClient = limits.DefaultMaxConnsPerClient
	}
	if opts.MaxConns == 0 {
		opts.MaxConns = limits.DefaultMaxConns
		if fds := limits.FDLimit(); fds > 0 && fds*3/4 < uint64(opts.MaxConns) {
			opts.MaxConns = max(1, int(fds*3/4))
		}
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = check.DefaultProbeTimeout
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if opts.MaxEventStreams <= 0 {
		opts.MaxEventStreams = DefaultMaxEventStreams
	}
	s := &Server{
		opts:      opts,
		store:     NewStore(opts.Dir),
		timeouts:  defaultTimeouts,
		events:    newEventHub(opts.MaxEventStreams),
		heartbeat: defaultHeartbeat,
	}
	s.store.swapped = s.events.wake
	s.dirSource = newSourceTracker("dir", opts.Dir)
	if opts.Redis != nil {
		s.shared = limits.NewRedis(opts.Redis, opts.Log, opts.Now)
		if s.opts.SharedState == nil {
			s.opts.SharedState = redisHealth{s.shared}
		}
	}
	var shared check.Shared
	if s.shared != nil {
		shared = s.shared.ProbeCache(opts.ProbeTimeout)
	}
	s.checker = check.New(opts.Catalog, check.NewCache(opts.Client, opts.ProbeTimeout, opts.Now, shared), opts.Now)
	if opts.RateLimit > 0 {
		local := limits.NewRateLimiter(opts.RateLimit, time.Minute, opts.MaxClients, opts.Now)
		s.limiter = local
		if s.shared != nil {
			s.limiter = limits.NewRedisLimiter(s.shared, local, opts.RateLimit, time.Minute)
		}
	}
	api := map[string]http.Handler{
		snapshot.PathStatus:    http.HandlerFunc(s.handleStatus),
		snapshot.PathService:   http.HandlerFunc(s.handleService),
		snapshot.PathChanges:   http.HandlerFunc(s.handleChanges),
		snapshot.PathEvents:    http.HandlerFunc(s.handleEvents),
		snapshot.PathIncidents: http.HandlerFunc(s.handleIncidents),
		snapshot.PathCheck:     http.HandlerFunc(s.handleCheck),
		snapshot.PathExport:    http.HandlerFunc(s.handleExport),
		snapshot.PathHealthz:   http.HandlerFunc(s.handleHealthz),
		snapshot.PathReadyz:    http.HandlerFunc(s.handleReadyz),
	}
	s.api = s.recoverer(s.common(s.router(api, false)))
	// The MCP tools call the API in-process: a tool call was already counted
	// by the limiter and logged as one POST /mcp, and must not be counted again.
	mcpServer := mcpserver.New(mcpserver.InProcess(s.api), opts.Version, mcpserver.WithCatalog(opts.Catalog))
	public := maps.Clone(api)
	public[snapshot.PathMCP] = noStore(mcpProblems(mcpGuard(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer },
		&mcp.StreamableHTTPOptions{
			// Stateless: every POST stands alone, so there is no session memory
			// to bound and any instance behind a load balancer can answer it.
			Stateless:    true,
			JSONResponse: true,
			// The SDK's DNS-rebinding guard rejects a loopback peer with a public
			// Host — exactly a reverse proxy on the same machine. It protects
			// local servers with private tools; this one is public and read-only.
			DisableLocalhostProtection: true,
		}))))
	s.handler = s.recoverer(s.accessLog(s.common(s.router(public, true))))
	return s
}

// router routes the paths of snapshot.Routes to handlers, the API namespace's
// unknown paths to a 404 and everything else to the snapshot's files. A
// route without a handler of its own serves its file. With limited, the
// routes the table marks as rate-limited (and the API namespace) are
// wrapped in the per-client limit; static content is not.
//
// A request for a route's exact path is dispatched by one map lookup, not
// the ServeMux's pattern matching (a tenth of what our code costs a static
// response); the ServeMux gets everything else: patterns with wildcards,
// paths to clean or redirect, the 404s.
func (s *Server) router(handlers map[string]http.Handler, limited bool) http.Handler {
	wrap := func(h http.Handler, rateLimited bool) http.Handler {
		if limited && rateLimited {
			return s.limit(h)
		}
		return h
	}
	mux := http.NewServeMux()
	exact := map[string]http.Handler{}
	for _, rt := range snapshot.Routes() {
		h := handlers[rt.Path]
		switch {
		case h != nil:
		case rt.File != "" && !strings.Contains(rt.File, snapshot.SlugParam):
			h = s.file(rt.File)
		case rt.Path == snapshot.PathMCP:
			continue // the in-process API (APIHandler) has no /mcp
		default:
			// A route added to the table without a handler: a programming
			// error that every test of the server would hit at once.
			panic("serve: no handler for route " + rt.Path)
		}
		h = wrap(h, rt.RateLimited)
		mux.Handle(rt.Path, h)
		if !strings.Contains(rt.Path, "{") {
			exact[rt.Path] = h
		}
	}
	mux.Handle(snapshot.APINamespace, wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		problem(w, http.StatusNotFound, "", "no such endpoint: see "+snapshot.PathOpenAPI)
	}), true))
	mux.HandleFunc("/", s.handleStatic)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := exact[r.URL.Path]; h != nil {
			h.ServeHTTP(w, r)
			return
		}
		if s.serveFileAt(w, r) {
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// serveFileAt serves the snapshot's file when the path, outside the API
// namespace, names one exactly (GET /status.json). Such a path is clean, so
// the ServeMux would only have routed it to handleStatic after cleaning,
// unescaping and matching it: a third of what our code costs a static
// response (bench/README.md). Everything else — "/", pages without their
// .html, paths to clean, names of no file served, no snapshot yet — is left
// to it.
func (s *Server) serveFileAt(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if len(p) < 2 || p[0] != '/' || strings.HasPrefix(p, snapshot.APINamespace) {
		return false
	}
	snap := s.store.Current()
	if snap == nil {
		return false
	}
	rep := snap.files[p[1:]]
	if rep == nil {
		return false
	}
	rep.serve(w, r)
	return true
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// APIHandler returns the API's router with the common headers but without
// rate limiting, access log or /mcp: for in-process calls (the MCP tools,
// aistatus mcp --dir), which are limited and logged where they come in.
func (s *Server) APIHandler() http.Handler { return s.api }

// Store returns the snapshot store, to reload it after a build.
func (s *Server) Store() *Store { return s.store }

// Watch reloads the snapshot every interval until ctx ends; with an
// Origin, it syncs from the origin every poll of the Origin instead.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	if s.opts.Origin != nil {
		s.opts.Origin.Run(ctx, s.store)
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.reload()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) reload() {
	swapped, err := s.store.Reload()
	s.dirSource.polled(s.opts.Now(), swapped, err)
	switch {
	case err != nil:
		s.opts.Log.Error().Err(err).Str("dir", s.opts.Dir).Msg("snapshot not loaded; serving the previous one")
	case swapped:
		m := s.store.Current().Manifest
		s.opts.Log.Info().Time("generatedAt", m.GeneratedAt).Msg("snapshot loaded")
	}
}

// ListenAndServe serves on addr until ctx ends, then shuts down gracefully,
// letting in-flight requests finish.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Serve is ListenAndServe on an existing listener, with the connection
// caps of Options (MaxConnsPerClient, MaxConns) applied to it.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.opts.MaxConnsPerClient > 0 || s.opts.MaxConns > 0 {
		perClient, total := s.opts.MaxConnsPerClient, s.opts.MaxConns
		if perClient < 0 {
			perClient = math.MaxInt
		}
		if total < 0 {
			total = math.MaxInt
		}
		ln = limits.NewListener(ln, perClient, total, s.opts.TrustedProxies, s.opts.Log, s.opts.Now)
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.timeouts.readHeader,
		ReadTimeout:       s.timeouts.read,
		WriteTimeout:      s.timeouts.write,
		IdleTimeout:       s.timeouts.idle,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          httpErrorLog(s.opts.Log),
		ConnContext:       limits.PeerContext,
	}
	// Event streams never go idle: Shutdown would wait for them until its
	// deadline. They are ended at its start instead.
	srv.RegisterOnShutdown(s.events.shutdown)
	s.opts.Log.Info().Str("addr", ln.Addr().String()).Int("maxConnsPerClient", s.opts.MaxConnsPerClient).
		Int("maxConns", s.opts.MaxConns).Msg("serving")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	if s.opts.Drain > 0 {
		// Not ready first, still serving: the load balancer's next health
		// checks take this instance out before its listener closes. Keep-alives
		// end so that clients reconnect to another instance.
		s.draining.Store(true)
		srv.SetKeepAlivesEnabled(false)
		s.opts.Log.Info().Dur("drain", s.opts.Drain).Msg("draining: reporting not ready before shutting down")
		t := time.NewTimer(s.opts.Drain)
		select {
		case <-t.C:
		case err := <-done:
			t.Stop()
			return err
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdown)
	if e := <-done; !errors.Is(e, http.ErrServerClosed) {
		err = errors.Join(err, e)
	}
	return err
}

// snapshotOr503 returns the current snapshot, or answers 503 when there is none yet.
func (s *Server) snapshotOr503(w http.ResponseWriter) *Snapshot {
	snap := s.store.Current()
	if snap == nil {
		w.Header().Set("Retry-After", "10")
		problem(w, http.StatusServiceUnavailable, "", "the first snapshot is still being built; try again shortly")
	}
	return snap
}

// snapshotAndQuery is the start of every handler that computes its answer:
// the current snapshot (else a 503) and the parsed query (else a 400).
func (s *Server) snapshotAndQuery(w http.ResponseWriter, r *http.Request) (*Snapshot, url.Values, bool) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return nil, nil, false
	}
	q, ok := parseQuery(w, r)
	return snap, q, ok
}

// file serves one file of the snapshot.
func (s *Server) file(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if snap := s.snapshotOr503(w); snap != nil {
			snap.files[name].serve(w, r)
		}
	}
}

func (s *Server) handleService(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	slug := r.PathValue("slug")
	rep := snap.files[snapshot.ServiceFile(slug)]
	if _, tracked := snap.status[slug]; !tracked || rep == nil {
		problem(w, http.StatusNotFound, "slug", fmt.Sprintf("%q is not a tracked service: see %s for the list", truncate(slug, 64), snapshot.PathStatus))
		return
	}
	q, ok := parseQuery(w, r)
	if !ok {
		return
	}
	if !q.Has("at") {
		rep.serve(w, r)
		return
	}
	at, ok := s.parseAt(w, snap, q)
	if !ok {
		return
	}
	serveJSON(w, r, snapshot.ServiceAtDoc{At: at, Service: snap.serviceAt(slug, at), LogStart: snap.changesSince.UTC(),
		Timestamp: snap.Manifest.GeneratedAt, License: snapshot.License})
}

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	q, ok := parseQuery(w, r)
	if !ok {
		return
	}
	if f := q.Get("format"); q.Has("format") && f != "csv" {
		problem(w, http.StatusBadRequest, "format", fmt.Sprintf("unsupported format %q: only csv is supported", truncate(f, 32)))
		return
	}
	s.file(snapshot.FileExport)(w, r)
}

// handleStatic serves the snapshot's other files at their own paths
// (/status.json, /services/openai.json, /badges/openai.svg, …), for parity
// with static hosting, and the pages as static hosts do: / is index.html and
// /services/openai is services/openai.html.
func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	name := r.URL.Path[1:]
	switch {
	case name == "":
		name = "index.html"
	case path.Ext(name) == "" && snap.files[name] == nil:
		name += ".html"
	}
	if rep := snap.files[name]; rep != nil {
		rep.serve(w, r)
		return
	}
	problem(w, http.StatusNotFound, "", "not found: the API lives under "+snapshot.APIBase+" (see "+snapshot.PathOpenAPI+")")
}

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
			problem(w, http.StatusMethodNotAllowed, "", fmt.Sprintf("method %s is not allowed: this API is read-only (%s)", truncate(r.Method, 16), methods))
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
		d := s.limiter.Decide(r.Context(), limits.LimitKey(limits.ClientAddr(r, s.opts.TrustedProxies)))
		h := w.Header()
		h["Access-Control-Expose-Headers"] = exposeHeaders
		h.Set("RateLimit-Policy", policy)
		h.Set("RateLimit", fmt.Sprintf(`"free";r=%d;t=%d`, d.Remaining, ceilSeconds(d.Reset)))
		if !d.Allowed {
			h.Set("Retry-After", strconv.Itoa(ceilSeconds(d.RetryAfter)))
			problem(w, http.StatusTooManyRequests, "", fmt.Sprintf(
				"rate limit of %d requests per minute exceeded; retry in %d s (higher limits by arrangement with the operator)",
				s.opts.RateLimit, ceilSeconds(d.RetryAfter)))
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
		var addr [64]byte // the client's address, formatted without an allocation
		s.opts.Log.Info().Str("method", r.Method).Str("path", truncate(r.URL.Path, 256)).
			Int("status", rec.status).Int("bytes", rec.bytes).
			Int64("us", time.Since(start).Microseconds()).Bytes("client", limits.ClientAddr(r, s.opts.TrustedProxies).AppendTo(addr[:0])).
			Msg("request")
	})
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

// truncate shortens user input before it is echoed in a message or a log.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

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

// SharedStatus reports whether the rate limit and probe cache are currently
// shared through Redis or kept locally.
func (s *Server) SharedStatus() limits.SharedStatus {
	if s.shared == nil {
		return limits.SharedStatus{}
	}
	return s.shared.Status()
}
