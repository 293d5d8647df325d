// Package serve is the thin server: it serves a snapshot folder from memory
// with the API's headers, computes the route table's dynamic routes
// (snapshot.Routes, Dynamic) at request time, and rate-limits per client.
package serve

import (
	"context"
	"errors"
	"maps"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/fallback"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/serve/shared"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/aistatus/aistatus/vantage"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
)

// Options configure a Server. Every dependency is passed in.
type Options struct {
	// Dir is the snapshot folder to serve, unless Origin is set.
	Dir string
	// BuildsHere says that this process also builds the snapshots it serves
	// (aistatus run): before the first one, a 503 says it is being built,
	// rather than that none has been published yet.
	BuildsHere bool
	Catalog    catalog.Catalog
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
	// Client makes /check's live probes; ProbeTimeout bounds each. Nil means
	// an outbound client that may reach the catalog's hosts.
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
	// MaxEventStreamsPerClient caps the open /events streams of one client
	// (keyed as the rate limit keys it); 0 means
	// DefaultMaxEventStreamsPerClient, negative no cap.
	MaxEventStreamsPerClient int
	// EventStreamLifetime ends an /events stream that long after it opened
	// (by Now); the client reconnects and resumes. 0 means
	// DefaultEventStreamLifetime, negative no end.
	EventStreamLifetime time.Duration
	// Redis, when set, holds the state replicas share: the rate limit and
	// /check's probe cache (see shared.go). Nil keeps both local.
	Redis redis.UniversalClient
	// Vantage, when set, makes the server a vantage point of that name
	// (vantage.ValidName): it probes every tracked API host every
	// VantageEvery (ProbeFromVantage) and writes the results to Redis, its
	// live-probe cache is its vantage's own, and /check reads its probe as
	// its callers' region's. Needs Redis, and VantageKey to sign the
	// results: without it the server probes nothing for the build and
	// says so once in the log (a build believes no unsigned report).
	Vantage      string
	VantageEvery time.Duration
	VantageKey   vantage.Key
	// NoCrowd is for a server with one caller on its own machine (aistatus
	// mcp --dir): there is no crowd of callers to count, so /check counts
	// no reports and service documents carry no "reports".
	NoCrowd bool
}

// Server is the thin HTTP server.
type Server struct {
	opts    Options
	store   *Store
	limiter limits.Limiter
	shared  *shared.Redis // nil without Options.Redis
	// checker answers /check from the server's own catalog; a snapshot
	// that carries the catalog it was built with is answered from that
	// (checkerFor), through the same live probes and crowd.
	checker *check.Engine
	// planner makes /fallbacks' plans from the server's own catalog; a
	// snapshot's catalog plans its own (plannerFor).
	planner     *fallback.Planner
	liveProbes  *check.Cache
	snapChecker atomic.Pointer[snapshotChecker]
	// checkAnswers holds /check's answers of the current second.
	checkAnswers checkMemo
	// crowd counts /check's reports (the checker's too); reports caches
	// service documents with its count.
	crowd   check.Crowd
	reports withReports
	// situationReports caches the situation with the crowd's counts.
	situationReports withSituationReports
	// crowdMetrics caches /metrics with the crowd's series.
	crowdMetrics crowdOverlay
	handler      http.Handler
	// local is the crowd in memory (the fallback with Redis); Serve closes
	// its ended windows every forgetEvery (tests shorten it).
	local       *check.MemoryCrowd
	forgetEvery time.Duration
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
// messages of at most 64 KiB. net/http (Go 1.26) sets both deadlines on
// every request whatever their values: a timer update each, equal or not.
var defaultTimeouts = httpTimeouts{readHeader: 5 * time.Second, read: 5 * time.Second, write: 30 * time.Second, idle: 60 * time.Second}

// New returns a server for opts. Call Store().Reload (or Watch) to load the
// snapshot; until one exists the API answers 503.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxClients <= 0 {
		opts.MaxClients = limits.DefaultMaxClients
	}
	if opts.MaxConnsPerClient == 0 {
		opts.MaxConnsPerClient = limits.DefaultMaxConnsPerClient
	}
	if opts.MaxConns == 0 {
		opts.MaxConns = limits.Affordable(limits.DefaultMaxConns)
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = check.DefaultProbeTimeout
	}
	if opts.Client == nil {
		opts.Client = outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(opts.Catalog)})
	}
	if opts.MaxEventStreams <= 0 {
		opts.MaxEventStreams = DefaultMaxEventStreams
	}
	if opts.MaxEventStreamsPerClient == 0 {
		opts.MaxEventStreamsPerClient = DefaultMaxEventStreamsPerClient
	}
	if opts.EventStreamLifetime == 0 {
		opts.EventStreamLifetime = DefaultEventStreamLifetime
	}
	if opts.VantageEvery <= 0 {
		opts.VantageEvery = vantage.DefaultEvery
	}
	s := &Server{
		opts:      opts,
		store:     NewStore(opts.Dir),
		timeouts:  defaultTimeouts,
		events:    newEventHub(opts.MaxEventStreams, opts.MaxEventStreamsPerClient),
		heartbeat: defaultHeartbeat,

		forgetEvery: crowdForgetEvery,
	}
	s.store.swapped = s.events.wake
	s.dirSource = newSourceTracker("dir", opts.Dir)
	if opts.Redis != nil {
		s.shared = shared.NewRedis(opts.Redis, opts.Log, opts.Now)
		if s.opts.SharedState == nil {
			s.opts.SharedState = redisHealth{s.shared}
		}
	}
	var probes check.Shared
	if s.shared != nil {
		probes = s.shared.ProbeCache(opts.ProbeTimeout, opts.Vantage)
	}
	s.liveProbes = check.NewCache(opts.Client, opts.ProbeTimeout, opts.Now, probes)
	if !opts.NoCrowd {
		local := check.NewMemoryCrowd(opts.Now())
		s.crowd, s.local = local, local
		if s.shared != nil {
			s.crowd = s.shared.Crowd(local)
		}
	}
	s.checker = s.newChecker(opts.Catalog)
	s.planner = fallback.New(opts.Catalog)
	if opts.RateLimit > 0 {
		local := limits.NewRateLimiter(opts.RateLimit, time.Minute, opts.MaxClients, opts.Now)
		s.limiter = local
		if s.shared != nil {
			s.limiter = limits.NewRedisLimiter(s.shared, local, opts.RateLimit, time.Minute)
		}
	}
	api := map[string]http.Handler{
		snapshot.PathStatus:         http.HandlerFunc(s.handleStatus),
		snapshot.PathService:        http.HandlerFunc(s.handleService),
		snapshot.PathServiceHistory: http.HandlerFunc(s.handleServiceHistory),
		snapshot.PathModel:          http.HandlerFunc(s.handleModel),
		snapshot.PathChanges:        http.HandlerFunc(s.handleChanges),
		snapshot.PathEvents:         http.HandlerFunc(s.handleEvents),
		snapshot.PathIncidents:      http.HandlerFunc(s.handleIncidents),
		snapshot.PathCheck:          http.HandlerFunc(s.handleCheck),
		snapshot.PathFallbacks:      http.HandlerFunc(s.handleFallbacks),
		snapshot.PathStatusline:     http.HandlerFunc(s.handleStatusline),
		snapshot.PathExport:         http.HandlerFunc(s.handleExport),
		snapshot.PathSituation:      http.HandlerFunc(s.handleSituation),
		snapshot.PathMetrics:        http.HandlerFunc(s.handleMetrics),
		snapshot.PathHealthz:        http.HandlerFunc(s.handleHealthz),
		snapshot.PathReadyz:         http.HandlerFunc(s.handleReadyz),
		snapshot.PathStatusAt:       http.HandlerFunc(s.handleStatusAt),
		snapshot.PathServiceAt:      http.HandlerFunc(s.handleServiceAt),
	}
	s.api = s.recoverer(s.common(s.router(api, false)))
	public := maps.Clone(api)
	public[snapshot.PathMCP] = s.mcpHandler()
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
		// /mcp charges the limit per message itself (mcpGuard): a
		// notification or a 405 costs nothing.
		h = wrap(h, rt.RateLimited && rt.Path != snapshot.PathMCP)
		if rt.ContentType == snapshot.ContentText {
			// Outside the limit, so that its 429 is a line of text too.
			h = refuseInText(h)
		}
		pattern := rt.Path
		if strings.HasSuffix(pattern, "/") {
			// A folder's own address (the API index), not everything under
			// it; and the same without the slash.
			pattern += "{$}"
			exact[strings.TrimSuffix(rt.Path, "/")] = h
		}
		mux.Handle(pattern, h)
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

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// APIHandler returns the API's router with the common headers but without
// rate limiting, access log or /mcp: for in-process calls (the MCP tools,
// aistatus mcp --dir), which are limited and logged where they come in.
func (s *Server) APIHandler() http.Handler { return s.api }

// Store returns the snapshot store, to reload it after a build.
func (s *Server) Store() *Store { return s.store }

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
	var connState func(net.Conn, http.ConnState)
	if s.opts.MaxConnsPerClient > 0 || s.opts.MaxConns > 0 {
		perClient, total := s.opts.MaxConnsPerClient, s.opts.MaxConns
		if perClient < 0 {
			perClient = math.MaxInt
		}
		if total < 0 {
			total = math.MaxInt
		}
		capped := limits.NewListener(ln, perClient, total, s.opts.TrustedProxies, s.opts.Log)
		// The listener closes idle connections of the heaviest clients to
		// admit others at the total cap: it learns which are idle here.
		ln, connState = capped, capped.ConnState
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
		ConnState:         connState,
	}
	// Event streams never go idle: Shutdown would wait for them until its
	// deadline. They are ended at its start instead.
	srv.RegisterOnShutdown(s.events.shutdown)
	s.opts.Log.Info().Str("addr", ln.Addr().String()).Int("maxConnsPerClient", s.opts.MaxConnsPerClient).
		Int("maxConns", s.opts.MaxConns).Msg("serving")
	if s.local != nil {
		// Ends with Serve, even when the listener fails.
		forget, stop := context.WithCancel(ctx)
		defer stop()
		go s.local.ForgetEvery(forget, s.forgetEvery, s.opts.Now)
	}
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
