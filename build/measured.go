package build

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/completion"
	"github.com/aistatus/aistatus/history"
)

// Completions configure the measured completions of a build.
type Completions struct {
	// Keys are the operator's keys by environment variable name
	// (catalog.CompletionProbe.KeyEnv); a service whose variable is
	// absent or empty is not measured. The keys go to the service's API
	// alone: never to a log, a file or an error.
	Keys map[string]string
	// Every is the least time between two measurements of a service;
	// zero measures every cycle. A measurement is due once 90% of Every
	// has passed, so that a cycle a second early does not skip one.
	Every time.Duration
}

// completionsDue decides, from the history, which services' completions
// are due this cycle.
func completionsDue(h *history.History, c Completions, now time.Time) func(string) bool {
	return func(slug string) bool {
		if c.Every <= 0 {
			return true
		}
		last := h.Lookup(slug).LastCompletionAt()
		return last.IsZero() || now.Sub(last) >= c.Every*9/10
	}
}

// measureCompletions sends the service's completions when its key is set
// and they are due; nil otherwise (nothing sent).
func measureCompletions(ctx context.Context, opts Options, svc catalog.Service) map[string]api.CompletionSample {
	p := svc.Completion
	if p == nil {
		return nil
	}
	key := opts.Completions.Keys[p.KeyEnv]
	if key == "" || (opts.due != nil && !opts.due(svc.Slug)) {
		return nil
	}
	samples := completion.MeasureAll(ctx, completion.Request{
		Client: opts.Client, Probe: *p, Key: key, Now: opts.Now,
		Codes: func(code string, status int) (catalog.ErrorCode, bool) {
			return opts.Catalog.ErrorCode(svc, code, status)
		},
	})
	for id, s := range samples {
		// Outcome, status and code only: a sample never holds the key.
		ev := opts.Log.Debug()
		if s.Outcome != api.OutcomeOK {
			ev = opts.Log.Info()
		}
		if s.Outcome == api.OutcomeKeyRefused || s.Outcome == api.OutcomeQuota || s.Outcome == api.OutcomeRequestRefused {
			ev = opts.Log.Warn()
		}
		ev.Str("service", svc.Slug).Str("model", id).Str("outcome", string(s.Outcome)).
			Int("httpStatus", s.HTTPStatus).Str("code", s.Code).Msg("measured completion")
	}
	return samples
}

// cleanStoredCodes holds the samples already in the history to the rule
// new ones follow: a code stays only while the service's error table lists
// it and it holds no piece of a configured key, else it becomes
// api.OtherErrorCode. A history written before the rule may hold a
// key a provider echoed as its code, which every build would publish again
// for as long as samples are kept. It returns how many codes it replaced
// and the variables (by name) whose key one of them held.
func cleanStoredCodes(h *history.History, cat catalog.Catalog, keys map[string]string) (int, []string) {
	replaced, leaked := 0, map[string]bool{}
	for slug, sh := range h.Services {
		if sh == nil {
			continue
		}
		svc, _ := cat.Lookup(slug) // a service no longer tracked has no table
		for _, samples := range sh.Completions {
			for i, s := range samples {
				if s.Code == "" || s.Code == api.OtherErrorCode {
					continue
				}
				ok := cat.ListsErrorCode(svc, s.Code)
				for env, key := range keys {
					if completion.LeaksKey(s.Code, key) {
						ok, leaked[env] = false, true
					}
				}
				if !ok {
					samples[i].Code = api.OtherErrorCode
					replaced++
				}
			}
		}
	}
	envs := slices.Sorted(maps.Keys(leaked))
	return replaced, envs
}

// recordCompletions adds this cycle's samples to the history. When most
// probes failed at once (offline: our own network), a completion that got
// no answer is recorded as discarded: no evidence about the provider.
func recordCompletions(sh *history.ServiceHistory, o Observation, offline bool) {
	ids := make([]string, 0, len(o.Completions))
	for id := range o.Completions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s := o.Completions[id]
		if offline && (s.Outcome == api.OutcomeNetwork || s.Outcome == api.OutcomeTimeout) {
			s.Outcome = api.OutcomeDiscarded
		}
		sh.RecordCompletion(id, s)
	}
}
