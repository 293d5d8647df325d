package build

import (
	"context"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/probe"
)

// Confirm configures the quick re-probes that confirm a failed probe
// within the cycle: a hard outage then needs one cycle plus
// Reprobes×Spacing to reach api.ProbeIncidentAfter failures, not
// ProbeIncidentAfter cycles, while a single lost packet is answered by the
// first re-probe and changes nothing. The zero value re-probes nothing.
type Confirm struct {
	// Reprobes is how many re-probes follow a failed probe at most; each
	// failed one counts as one more failed probe in a row.
	Reprobes int
	// Spacing is the wait before each re-probe.
	Spacing time.Duration
	// Sleep waits d or until ctx ends (tests inject one); nil: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// confirmFailure re-probes after the failed probe first, spaced out, until
// one answers or Reprobes have failed, within ctx (the service's timeout).
// The result is the answer, or the last failure, with Attempts counting
// every probe of this cycle.
func confirmFailure(ctx context.Context, opts Options, svc catalog.Service, first api.ProbeSource) api.ProbeSource {
	c := opts.Confirm
	sleep := c.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	result := first
	for i := range c.Reprobes {
		if sleep(ctx, c.Spacing) != nil {
			break // the service's time is up: what failed so far counts
		}
		again := probe.Probe(ctx, opts.Client, svc.ProbeURL)
		again.Attempts = i + 2
		if again.State != api.ProbeFailed {
			opts.Log.Debug().Str("service", svc.Slug).Int("attempts", again.Attempts).Msg("probe failed once, answered again")
			return again
		}
		result = again
	}
	return result
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
