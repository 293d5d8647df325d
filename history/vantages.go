package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
)

// ReadVantages is the regional rule, applied after rule 1 and before the
// probe is counted. probe is the builder's own (the vantage named self,
// probed at at), others the other vantages' fresh results. The points are
// the builder's probe (when it reports: not absent, not set aside by rule
// 1) and the others:
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
// It returns the reading, and sets probe's attempts or sets it aside as
// the rule says.
func ReadVantages(probe *api.ProbeSource, self string, at time.Time, others []api.VantagePoint) *api.Vantages {
	var points []api.VantagePoint
	if probe.State == api.ProbeOK || probe.State == api.ProbeFailed {
		points = append(points, api.VantagePoint{Name: self, State: probe.State, LatencyMs: probe.LatencyMs, At: at})
	}
	points = append(points, others...)
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
		if probe.State == api.ProbeFailed {
			probe.Attempts = max(1, probe.Attempts) + len(others)
		}
	case probe.State == api.ProbeFailed && len(reaching) < api.MinOthersReaching:
		v.Reading = api.VantageTooFew
		v.Detail = fmt.Sprintf("The API host fails from %s while only %s reach it: at least %d other vantages must reach it to set the builder's failed probe aside as regional, so it counts.",
			strings.Join(failing, ", "), strings.Join(reaching, ", "), api.MinOthersReaching)
	default:
		v.Reading = api.VantageRegional
		v.Detail = fmt.Sprintf("The API host fails from %s while %s reach it: a regional or network path problem seen from %s, not a service outage.",
			strings.Join(failing, ", "), strings.Join(reaching, ", "), strings.Join(failing, ", "))
		if probe.State == api.ProbeFailed {
			probe.State = api.ProbeDiscarded
			probe.Error = "failed from " + self + " while other vantages reach the host (a regional or path problem): " + probe.Error
		}
	}
	return v
}
