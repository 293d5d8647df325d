package build

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/vantage"
)

// VantageView is what the other vantage points (replicas started with
// serve --vantage) saw of one service's API host, for the regional rule.
type VantageView struct {
	// Self is the builder's own vantage name: its probe is one more point.
	Self string
	// At is when the builder probed (the cycle's time).
	At time.Time
	// Others are the other vantages' fresh results, by name.
	Others []api.VantagePoint
}

// vantageReadTimeout bounds reading the vantages' reports: Redis answers
// in a millisecond, and a build never waits on it for long.
const vantageReadTimeout = 2 * time.Second

// observeVantages reads the other vantages' latest reports (opts.Vantages)
// and gives each service with a probe the fresh results for its probe URL.
// It returns the source's health for sources.json, nil without vantages.
// Redis failing, no key to check the reports with, or a report dropped
// (unsigned, wrongly signed, dated ahead, or one this program could not
// have written) costs only that evidence: counted, and the cycle goes on
// without it.
func observeVantages(ctx context.Context, opts Options, obs map[string]Observation) *api.VantageSource {
	if opts.Vantages == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, vantageReadTimeout)
	defer cancel()
	read, err := opts.Vantages(ctx)
	switch {
	case errors.Is(err, vantage.ErrNoKey):
		// Said once when the process starts; each cycle's sources.json
		// says it too.
		return &api.VantageSource{State: api.VantageSourceUnkeyed,
			Detail: "No key to check the vantages' reports with (" + vantage.KeyEnv + "): none read, the builder's probe is weighed alone."}
	case err != nil:
		opts.Log.Error().Err(err).Msg("vantages not read from redis: this cycle weighs the builder's own probe alone")
		return &api.VantageSource{State: api.VantageSourceError,
			Detail: "Redis could not be read: the builder's probe is weighed alone this cycle."}
	}
	for _, why := range read.Bad {
		opts.Log.Warn().Str("why", why).Msg("a vantage report left out")
	}
	d := read.Dropped
	if d.Unsigned+d.BadSignature+d.Future > 0 {
		opts.Log.Warn().Int("unsigned", d.Unsigned).Int("badSignature", d.BadSignature).Int("future", d.Future).
			Msg("vantage reports no replica holding the key wrote, or dated ahead of this clock: left out (someone else writes to redis, or a replica's key or clock is wrong)")
	}
	src := &api.VantageSource{State: api.VantageSourceOK, Read: len(read.Reports), Dropped: d,
		Detail: fmt.Sprintf("%d vantage report(s) read and believed.", len(read.Reports))}
	if dropped := d.Unsigned + d.BadSignature + d.Future + d.Invalid; dropped > 0 {
		src.Detail = fmt.Sprintf("%d vantage report(s) read and believed; %d left out (unsigned %d, wrongly signed %d, dated ahead %d, invalid %d).",
			len(read.Reports), dropped, d.Unsigned, d.BadSignature, d.Future, d.Invalid)
	}
	self := cmp.Or(opts.Vantage, vantage.Builder)
	now := opts.Now()
	for _, svc := range opts.Catalog.Services {
		if o, ok := obs[svc.Slug]; ok && svc.ProbeURL != "" {
			o.Vantages = vantageView(svc, self, read.Reports, now)
			obs[svc.Slug] = o
		}
	}
	return src
}

// vantageView is the results for svc's probe URL of every report but the
// builder's own name's (its own probe is fresher), that are still fresh.
func vantageView(svc catalog.Service, self string, reports []vantage.Report, now time.Time) *VantageView {
	v := &VantageView{Self: self, At: now.UTC()}
	for _, r := range reports {
		res, ok := r.Results[svc.ProbeURL]
		if r.Name == self || !ok || now.Sub(res.At) > time.Duration(r.FreshSeconds)*time.Second {
			continue
		}
		v.Others = append(v.Others, api.VantagePoint{Name: r.Name, State: res.State, LatencyMs: res.LatencyMs, At: res.At.UTC()})
	}
	slices.SortFunc(v.Others, func(a, b api.VantagePoint) int { return strings.Compare(a.Name, b.Name) })
	return v
}

// readVantages applies history.ReadVantages, the regional rule, to o:
// nil without a view (no vantages read).
func readVantages(o *Observation) *api.Vantages {
	if o.Vantages == nil {
		return nil
	}
	return history.ReadVantages(&o.Probe, o.Vantages.Self, o.Vantages.At, o.Vantages.Others)
}
