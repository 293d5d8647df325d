package main

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/vantage"
	"github.com/spf13/cobra"
)

func newRunCmd(g *globals) *cobra.Command {
	var (
		b     buildOptions
		s     serveOptions
		every time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Build a snapshot every cycle and serve it, in one process (the default main job)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("stale-after") && 3*every > b.staleAfter {
				b.staleAfter = 3 * every
			}
			if err := b.defaultBaseURL(cmd.Flags(), s.addr); err != nil {
				return err
			}
			return runRun(cmd.Context(), g, &b, &s, every)
		},
	}
	b.register(cmd.Flags())
	s.register(cmd.Flags(), false)
	cmd.Flags().DurationVar(&every, "every", 60*time.Second, "time between build cycles")
	// run serves what it builds: its links default to the address it listens on.
	baseURL := cmd.Flags().Lookup("base-url")
	baseURL.DefValue = ""
	baseURL.Usage = "public address of the site, used in openapi.json and attribution (default: derived from --addr, e.g. :9090 → http://localhost:9090)"
	return cmd
}

// runRun serves the snapshot folder and rebuilds it every cycle. The server
// starts at once, serving the previous snapshot if there is one, so that a
// slow first cycle (no network) never keeps the API down.
func runRun(ctx context.Context, g *globals, b *buildOptions, s *serveOptions, every time.Duration) error {
	log, err := g.logger()
	if err != nil {
		return err
	}
	cat, err := catalog.Load(b.catalog)
	if err != nil {
		return err
	}
	s.dir, s.buildsHere = b.out, true
	srv, err := s.server(log, cat)
	if err != nil {
		return err
	}
	// The builder reads the vantages from serve's Redis, and is at this
	// server's vantage when it has one.
	b.redis, b.vantage = s.redis, cmp.Or(s.vantage, vantage.Builder)
	opts, err := b.options(log, cat)
	if err != nil {
		return err
	}
	// Webhooks outlive the signal that stops run: once the build loop has
	// stopped (the defers run last first), what it queued gets 5 s to be
	// delivered.
	notifier, err := b.notifier(context.WithoutCancel(ctx), log, cat)
	if err != nil {
		return err
	}
	if notifier != nil {
		defer func() {
			drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			notifier.Close(drain)
		}()
	}
	// The watcher and the build loop end with the server, even when it fails
	// to listen, and are waited for, so that no build is still writing and
	// nothing logs when run returns.
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { srv.Watch(ctx, s.reload) })
	wg.Go(func() { srv.ProbeFromVantage(ctx) })
	wg.Go(func() {
		opts.Notifier = notifier
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if res, err := build.Build(ctx, opts); err != nil {
				if ctx.Err() == nil {
					log.Error().Err(err).Msg("build failed; the previous snapshot stays published")
				}
			} else {
				log.Info().Str("summary", summarise(res.Statuses)).Msg("snapshot published")
				if _, err := srv.Store().Reload(); err != nil {
					log.Error().Err(err).Msg("reloading the new snapshot")
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return srv.ListenAndServe(ctx, s.addr)
}
