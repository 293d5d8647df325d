package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/serve/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
)

// mcpOptions are the flags of aistatus mcp.
type mcpOptions struct {
	dir     string
	catalog string
	api     string
}

func newMCPCmd(g *globals) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the MCP tools over stdio, from a snapshot folder or a remote instance (for AI agents)",
		Example: `  aistatus mcp --dir public
  aistatus mcp --api https://status.example.com`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), g, &o)
		},
	}
	cmd.Flags().StringVar(&o.dir, "dir", "public", "snapshot folder to answer from, in-process")
	cmd.Flags().StringVar(&o.catalog, "catalog", "", "catalog JSON file, for check_service with --dir and the tools' example slugs (default: the embedded one)")
	// --api wins over --dir rather than excluding it: AISTATUS_DIR may be set
	// in the environment for serve, and must not break mcp --api.
	cmd.Flags().StringVar(&o.api, "api", "", "address of a running aistatus instance to answer from; wins over --dir (https://status.example.com)")
	return cmd
}

// runMCP serves MCP on stdin/stdout until stdin closes or ctx ends. Stdout
// carries the protocol, so everything else — logs included — goes to stderr.
func runMCP(ctx context.Context, g *globals, o *mcpOptions) error {
	log, err := g.logger()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the snapshot watcher when the client goes away
	api := mcpserver.API{BaseURL: o.api, Client: outbound.NewClient(outbound.Options{AllowedURLs: []string{o.api}})}
	from := o.api
	if u, err := url.Parse(o.api); o.api != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		// Said once at start, not as an error on every tool call.
		return fmt.Errorf("--api %q: want the absolute http(s) address of an aistatus instance", o.api)
	}
	// The catalog also gives the tool descriptions their example slugs: with
	// --api it should be the remote instance's (the embedded one by default).
	cat, err := catalog.Load(o.catalog)
	if err != nil {
		return err
	}
	var server *mcp.Server
	if o.api == "" {
		// With --dir the snapshot swaps are seen here, so clients may
		// subscribe to the resources; with --api they are not (the remote
		// instance's /api/v1/events is the push channel there).
		server, err = localServer(ctx, log, o, cat)
		if err != nil {
			return err
		}
		from = o.dir
	} else {
		server = mcpserver.New(api, versionString(), mcpserver.WithCatalog(cat))
	}
	log.Info().Str("from", from).Msg("serving MCP on stdio")
	err = server.Run(ctx, &mcp.StdioTransport{})
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // interrupted: a normal way to stop
	}
	return err
}

// localServer is the MCP server answering from the snapshot in o.dir
// in-process, picking up newer snapshots as a build publishes them, as
// aistatus serve does, and telling the clients subscribed to its resources
// on each swap. The tools' attribution names the base URL the snapshot was
// built with.
func localServer(ctx context.Context, log zerolog.Logger, o *mcpOptions, cat catalog.Catalog) (*mcp.Server, error) {
	srv := serve.New(serve.Options{Dir: o.dir, Catalog: cat, Log: zerolog.Nop(), Now: time.Now,
		Client: outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(cat)}), Version: versionString(),
		NoCrowd: true}) // one caller on its own machine: no crowd to count
	server := mcpserver.New(mcpserver.InProcess(srv.APIHandler()), versionString(), mcpserver.WithCatalog(cat), mcpserver.WithSubscriptions())
	if _, err := srv.Store().Reload(); err != nil {
		return nil, err
	}
	// After the first load, which no client has seen yet: told of it (late,
	// from its goroutine), a client that had just subscribed would take the
	// snapshot it reads for a newer one. In a goroutine: the swap must not
	// wait on a slow client's pipe.
	srv.OnSwap(func() { go mcpserver.SnapshotSwapped(ctx, server, cat) })
	if srv.Store().Current() == nil {
		// Not fatal: an MCP client starts its servers when it starts, maybe
		// alongside the first build; the tools say "not ready" until then.
		log.Warn().Str("dir", o.dir).Msgf("no snapshot yet: the tools answer 'not ready' until 'aistatus build --out %s' publishes one", o.dir)
	}
	go srv.Watch(ctx, 2*time.Second)
	return server, nil
}
