package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/serve/shared"
	"github.com/aistatus/aistatus/vantage"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// serveOptions are the flags of the thin server, shared by serve and run.
type serveOptions struct {
	dir string
	// buildsHere is set by aistatus run, which builds what it serves.
	buildsHere     bool
	addr           string
	rateLimit      int
	maxClients     int
	trustedProxies []string
	accessLog      bool
	reload         time.Duration
	connsPerClient int
	conns          int
	origin         string
	poll           time.Duration
	maxSetBytes    int64
	drain          time.Duration
	redis          string
	// vantage names the place this replica probes from; vantageEvery is
	// how often.
	vantage      string
	vantageEvery time.Duration
	// streamsPerClient and streamLifetime bound the /events streams.
	streamsPerClient int
	streamLifetime   time.Duration
}

func (o *serveOptions) register(fs *pflag.FlagSet, withDir bool) {
	if withDir {
		fs.StringVar(&o.dir, "dir", "public", "snapshot folder to serve")
		fs.StringVar(&o.origin, "origin", "", "published site to serve the snapshot of instead of a folder (a replica), e.g. https://owner.github.io/aistatus")
		fs.DurationVar(&o.poll, "poll", 30*time.Second, "with --origin: how often to look for a new snapshot there")
		fs.Int64Var(&o.maxSetBytes, "max-set-bytes", serve.DefaultMaxTotalBytes, "with --origin: most bytes the files of one snapshot may take in all; a larger snapshot is refused (a replica needs up to 4 times this in memory while it swaps one in)")
	}
	fs.DurationVar(&o.drain, "drain", 5*time.Second, "on SIGTERM, report not ready (/readyz 503) this long before shutting down, so a load balancer stops sending; 0 turns it off")
	fs.StringVar(&o.addr, "addr", ":8080", "address to listen on (HOST:PORT)")
	fs.IntVar(&o.rateLimit, "rate-limit", 30, "requests per minute per client IP; 0 turns limiting off (behind a CDN that limits)")
	fs.IntVar(&o.maxClients, "rate-limit-clients", limits.DefaultMaxClients, "most clients the rate limiter remembers (bounds its memory)")
	fs.StringSliceVar(&o.trustedProxies, "trusted-proxy", nil, "CIDR or address of a reverse proxy or CDN whose X-Forwarded-For is trusted (repeatable)")
	fs.BoolVar(&o.accessLog, "access-log", true, "log one compact line per request")
	fs.DurationVar(&o.reload, "reload", 2*time.Second, "how often to look for a newer snapshot in the folder")
	fs.IntVar(&o.connsPerClient, "max-conns-per-client", limits.DefaultMaxConnsPerClient, "most open connections from one client IP (IPv6 by /64); -1 turns the cap off")
	fs.StringVar(&o.redis, "redis", "", "Redis URL (redis://HOST:PORT/DB) shared by replicas: one rate-limit budget per client and one /check probe per service per "+check.LiveTTL.String()+" across all; falls back to local state while Redis is down")
	fs.StringVar(&o.vantage, "vantage", "", "with --redis: make this replica a vantage point named after its region or place (e.g. eu-west-1): it probes every tracked API host every --vantage-every and shares what it sees, signed with the key in $"+vantage.KeyEnv+" (without it, nothing), so a build with --redis and the same key tells a regional problem from the provider's")
	fs.DurationVar(&o.vantageEvery, "vantage-every", vantage.DefaultEvery, fmt.Sprintf("with --vantage: time between two rounds of probes (%v to %v, each jittered by a tenth)", vantage.MinEvery, vantage.MaxEvery))
	fs.IntVar(&o.conns, "max-conns", limits.DefaultMaxConns, "most open connections in all (lowered to 3/4 of the open-file limit); -1 turns the cap off")
	fs.IntVar(&o.streamsPerClient, "max-event-streams-per-client", serve.DefaultMaxEventStreamsPerClient, "most open /events streams of one client IP (IPv6 by /64); -1 turns the cap off")
	fs.DurationVar(&o.streamLifetime, "event-stream-lifetime", serve.DefaultEventStreamLifetime, "how long an /events stream stays open before it ends and the client resumes from Last-Event-ID; -1s never ends one")
}

func (o *serveOptions) server(log zerolog.Logger, cat catalog.Catalog) (*serve.Server, error) {
	trusted, err := limits.ParseTrustedProxies(o.trustedProxies)
	if err != nil {
		return nil, err
	}
	if o.vantage != "" {
		if err := vantage.ValidName(o.vantage); err != nil {
			return nil, fmt.Errorf("--vantage: %w", err)
		}
		if o.redis == "" {
			return nil, errors.New("--vantage needs --redis: a vantage shares what it sees through Redis")
		}
		if o.vantageEvery < vantage.MinEvery || o.vantageEvery > vantage.MaxEvery {
			return nil, fmt.Errorf("--vantage-every %v: give a time from %v to %v", o.vantageEvery, vantage.MinEvery, vantage.MaxEvery)
		}
	}
	// Without the key the replica writes nothing, and says so once when
	// its prober starts (serve.ProbeFromVantage).
	var key vantage.Key
	if o.vantage != "" {
		if key, err = vantageKey(); err != nil {
			return nil, err
		}
		if o.buildsHere {
			// run builds too: its key is the build's, and its vantage
			// signs with its own, as every other vantage does.
			key = key.For(o.vantage)
		}
	}
	var origin *serve.Origin
	if o.origin != "" {
		if o.maxSetBytes <= 0 {
			return nil, fmt.Errorf("--max-set-bytes %d: give a positive number of bytes", o.maxSetBytes)
		}
		if origin, err = serve.NewOrigin(serve.OriginOptions{URL: o.origin, Client: outbound.NewClient(outbound.Options{AllowedURLs: []string{o.origin}}),
			Poll: o.poll, Log: log, Now: time.Now, MaxTotalBytes: o.maxSetBytes}); err != nil {
			return nil, err
		}
	}
	opts := serve.Options{
		Dir:               o.dir,
		BuildsHere:        o.buildsHere,
		Catalog:           cat,
		RateLimit:         o.rateLimit,
		MaxClients:        o.maxClients,
		TrustedProxies:    trusted,
		MaxConnsPerClient: o.connsPerClient,
		MaxConns:          o.conns,
		AccessLog:         o.accessLog,
		Log:               log,
		Now:               time.Now,
		Client:            outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(cat)}),
		Version:           versionString(),
		Origin:            origin,
		Drain:             o.drain,
		Vantage:           o.vantage,
		VantageEvery:      o.vantageEvery,
		VantageKey:        key,

		MaxEventStreamsPerClient: o.streamsPerClient,
		EventStreamLifetime:      o.streamLifetime,
	}
	if o.redis != "" {
		// The client lives as long as the process: there is one per server
		// and the server runs until the process ends.
		rdb, err := shared.NewRedisClient(o.redis)
		if err != nil {
			return nil, fmt.Errorf("--redis: %w", err)
		}
		opts.Redis = rdb
		// go-redis logs every failed dial on its own; the server logs each
		// change between Redis and the fallback once, so theirs are debug.
		redis.SetLogger(redisLog{log})
	}
	return serve.New(opts), nil
}

// redisLog sends go-redis's own messages to the log at debug level.
type redisLog struct{ log zerolog.Logger }

func (l redisLog) Printf(_ context.Context, format string, v ...any) {
	l.log.Debug().Str("from", "go-redis").Msgf(format, v...)
}

func newServeCmd(g *globals) *cobra.Command {
	var o serveOptions
	var catalog string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a snapshot folder, or a published site with --origin (the thin server); picks up newer snapshots without a restart",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), g, &o, catalog)
		},
	}
	o.register(cmd.Flags(), true)
	cmd.MarkFlagsMutuallyExclusive("dir", "origin")
	cmd.Flags().StringVar(&catalog, "catalog", "", "catalog JSON file: the hosts /check may probe on an internal address, and /check's catalog for a snapshot that carries none of its own (default: the embedded one)")
	return cmd
}

func runServe(ctx context.Context, g *globals, o *serveOptions, catalogPath string) error {
	log, err := g.logger()
	if err != nil {
		return err
	}
	cat, err := catalog.Load(catalogPath)
	if err != nil {
		return err
	}
	srv, err := o.server(log, cat)
	if err != nil {
		return err
	}
	// The watchers end with the server, even when it fails to listen.
	// They are waited for, so that none logs after runServe returns.
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { srv.Watch(ctx, o.reload) })
	wg.Go(func() { srv.ProbeFromVantage(ctx) })
	if o.origin != "" {
		// A replica logs each failed sync itself, with the origin's answer.
		return srv.ListenAndServe(ctx, o.addr)
	}
	// Only serve warns: run's own first build fills the folder, and saying
	// it is empty meanwhile would be noise.
	wg.Go(func() {
		warnWhileNoSnapshot(ctx, log, o.dir, func() bool { return srv.Store().Current() != nil }, noSnapshotWarnEvery)
	})
	return srv.ListenAndServe(ctx, o.addr)
}
