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
		opts.Log.Warn().Str("why", why).Msg("a vantage report this program could not have written: left out")
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

// readVantages is the regional rule, applied after rule 1 and before the
// probe is counted. The points are the builder's probe (when it reports:
// not absent, not set aside by rule 1) and the other vantages' fresh
// results:
//
//   - fewer than api.MinVantages report: too few to compare, and the
//     builder's probe counts as it would alone;
//   - every one reaches the host: reachable;
//   - none does: the provider's host fails (unreachable); each other
//     vantage failing counts as one more failed probe of the cycle, like a
//     confirming re-probe, so a host refused everywhere is an outage
//     within one cycle;
//   - the builder's own probe fails while fewer than
//     api.MinOthersReaching other vantages reach the host: too few to
//     overrule it (one report could be one vantage's mistake, or a lie),
//     and the builder's probe counts as it would alone;
//   - some fail while others reach it: a regional or network path problem
//     of the failing ones, never a service outage: a failed probe of the
//     builder's own is set aside (discarded), as rule 1 sets aside those
//     of a builder whose network is down.
//
// It returns the reading, nil without a view (no vantages read).
func readVantages(o *Observation) *api.Vantages {
	view := o.Vantages
	if view == nil {
		return nil
	}
	var points []api.VantagePoint
	if o.Probe.State == api.ProbeOK || o.Probe.State == api.ProbeFailed {
		points = append(points, api.VantagePoint{Name: view.Self, State: o.Probe.State, LatencyMs: o.Probe.LatencyMs, At: view.At})
	}
	points = append(points, view.Others...)
	var reaching, failing []string
	for _, p := range points {
		if p.State == api.ProbeOK {
			reaching = append(reaching, p.Name)
		} else {
			failing = append(failing, p.Name)
		}
	}
	v := &api.Vantages{Reporting: len(points), Reaching: len(reaching), Points: points}
	if v.Points == nil {
		v.Points = []api.VantagePoint{}
	}
	switch {
	case len(points) < api.MinVantages:
		v.Reading = api.VantageTooFew
		v.Detail = fmt.Sprintf("%d vantage(s) report: too few to tell a regional problem from the provider's.", len(points))
	case len(failing) == 0:
		v.Reading = api.VantageReachable
		v.Detail = fmt.Sprintf("The API host answers from every vantage that reports (%s).", strings.Join(reaching, ", "))
	case len(reaching) == 0:
		v.Reading = api.VantageUnreachable
		v.Detail = fmt.Sprintf("The API host fails from every vantage that reports (%s): the provider's host, not a path.", strings.Join(failing, ", "))
		if o.Probe.State == api.ProbeFailed {
			o.Probe.Attempts = max(1, o.Probe.Attempts) + len(view.Others)
		}
	case o.Probe.State == api.ProbeFailed && len(reaching) < api.MinOthersReaching:
		v.Reading = api.VantageTooFew
		v.Detail = fmt.Sprintf("The API host fails from %s while only %s reach it: at least %d other vantages must reach it to set the builder's failed probe aside as regional, so it counts.",
			strings.Join(failing, ", "), strings.Join(reaching, ", "), api.MinOthersReaching)
	default:
		v.Reading = api.VantageRegional
		v.Detail = fmt.Sprintf("The API host fails from %s while %s reach it: a regional or network path problem seen from %s, not a service outage.",
			strings.Join(failing, ", "), strings.Join(reaching, ", "), strings.Join(failing, ", "))
		if o.Probe.State == api.ProbeFailed {
			o.Probe.State = api.ProbeDiscarded
			o.Probe.Error = "failed from " + view.Self + " while other vantages reach the host (a regional or path problem): " + o.Probe.Error
		}
	}
	return v
}
