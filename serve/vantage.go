package serve

import (
	"context"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/vantage"
)

// ProbeFromVantage makes the server a vantage point (Options.Vantage): every
// VantageEvery, jittered, it probes every tracked API host through its
// live-probe cache — the outbound client's dial guard and User-Agent, one
// request per URL however many /check callers ask at once, and none when a
// replica of the same vantage probed it in the last check.LiveTTL — and
// writes the results to Redis for the build, signed with VantageKey. It
// returns at once without a vantage or Redis, or without the key (logged
// once: a build believes no unsigned report, so probing would only cost
// the providers requests), and otherwise when ctx ends.
func (s *Server) ProbeFromVantage(ctx context.Context) {
	if s.opts.Vantage == "" || s.shared == nil {
		return
	}
	if !s.opts.VantageKey.Set() {
		s.opts.Log.Error().Str("vantage", s.opts.Vantage).Str("env", vantage.KeyEnv).
			Msg("vantage key not set: this replica writes no vantage reports, and the build counts it as silent")
		return
	}
	key := s.opts.VantageKey
	vantage.Prober{
		Name:  s.opts.Vantage,
		URLs:  s.vantageURLs,
		Probe: func(url string) (api.ProbeSource, time.Time) { r := s.liveProbes.Probe(url); return r.Probe, r.At },
		Write: func(ctx context.Context, r vantage.Report) error {
			return s.shared.Call(ctx, func(ctx context.Context) error { return vantage.Write(ctx, s.shared.Client(), key, r) })
		},
		Every: s.opts.VantageEvery,
		Now:   s.opts.Now,
		Log:   s.opts.Log,
	}.Run(ctx)
}

// vantageURLs are the probe URLs of the catalog the served snapshot was
// built with (the build keys the results by them), or of the server's own
// before a snapshot is loaded or when it carries none.
func (s *Server) vantageURLs() []string {
	cat := s.opts.Catalog
	if snap := s.store.Current(); snap != nil && snap.catalog != nil {
		cat = *snap.catalog
	}
	var urls []string
	for _, svc := range cat.Services {
		if svc.ProbeURL != "" {
			urls = append(urls, svc.ProbeURL)
		}
	}
	return urls
}
