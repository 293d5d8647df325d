// Package build is the generator: one cycle probes every service, reads its
// official feed, merges the results into the history kept in the snapshot
// folder and publishes a new snapshot atomically.
package build

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/notify"
	"github.com/aistatus/aistatus/probe"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/aistatus/aistatus/vantage"
	"github.com/rs/zerolog"
)

// DefaultTimeout bounds one service's feed and probe when Options.Timeout is unset.
const DefaultTimeout = 15 * time.Second

// Options configure one build cycle. Every dependency is passed in.
type Options struct {
	// Out is the snapshot folder: it is read for the previous history and
	// replaced by the new snapshot.
	Out     string
	Site    Site
	Catalog catalog.Catalog
	// Timeout bounds the work on one service (feed and probe together).
	Timeout time.Duration
	// Client makes every feed read and probe: outbound.NewClient, allowing
	// the catalog's hosts (outbound.CatalogURLs).
	Client *http.Client
	Now    func() time.Time
	Log    zerolog.Logger
	// Adapters read the official feeds by format; formats without one are
	// probe-only ("unsupported" in the data).
	Adapters map[catalog.FeedFormat]feed.Adapter
	// Notifier, when set, is handed each cycle's new changes once the
	// snapshot is published (webhooks).
	Notifier *notify.Notifier
	// Confirm configures the re-probes that confirm a failed probe within
	// the cycle; the zero value re-probes nothing.
	Confirm Confirm
	// Completions configure the measured completions: without keys,
	// nothing is sent.
	Completions Completions

	// Vantages, when set, reads the other vantage points' latest signed
	// reports (vantage.Read through Redis: build --redis); Vantage is the
	// builder's own vantage name ("" is vantage.Builder). Without it the
	// builder's probe is weighed alone, as it always was; so it is when
	// it fails (vantage.ErrNoKey: no key to check the reports with).
	Vantages func(ctx context.Context) (vantage.Reading, error)
	Vantage  string

	// due reports whether a service's completions are due this cycle
	// (Completions.Every); Build sets it from the history, nil: all are.
	due func(slug string) bool
}

// Result summarises a published cycle.
type Result struct {
	GeneratedAt time.Time
	Statuses    map[string]api.Status
	// Changes are the change log entries this cycle added.
	Changes []api.Change
}

// Build runs one cycle and publishes its snapshot. If ctx is cancelled before
// the snapshot is published, nothing is written and the previous snapshot
// and its history stay as they were. A build on a folder that another build
// is working on waits for it (until ctx ends) rather than overlap it.
func Build(ctx context.Context, opts Options) (Result, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	// The folder lock is held from reading the history to publishing the
	// snapshot built on it: a build that overlaps another on the same folder
	// waits for it, then reads what it published, so no cycle is lost.
	lock, err := snapshot.LockFolder(ctx, opts.Out)
	if err != nil {
		return Result{}, err
	}
	defer lock.Unlock()
	hist, previous, err := history.ReadHistory(opts.Out)
	if err == nil {
		if clockErr := hist.CheckClock(opts.Now()); clockErr != nil {
			// ReadHistory returns the bytes of a file it cannot decode
			// only; this one decodes, but the clock cannot use it.
			previous, err = os.ReadFile(filepath.Join(opts.Out, snapshot.FileHistory))
			if err == nil {
				err = clockErr
			}
		}
	}
	var corrupt []byte
	switch {
	case errors.Is(err, history.ErrCorruptHistory):
		// Start afresh, but keep the unreadable file in the new snapshot: it
		// may be repaired by hand, and nothing recorded is silently dropped.
		opts.Log.Error().Err(err).Msg("history unreadable: starting a new one and keeping the old file beside it")
		hist, corrupt = history.New(), previous
	case err != nil:
		return Result{}, fmt.Errorf("reading history: %w", err)
	default:
		for _, why := range hist.CleanIncidents(opts.Now()) {
			opts.Log.Warn().Str("dropped", why).Msg("history: an incident that cannot be published was dropped")
		}
		replaced, leaked := cleanStoredCodes(hist, opts.Catalog, opts.Completions.Keys)
		if len(leaked) > 0 {
			opts.Log.Error().Strs("keyEnvs", leaked).Msg("history: a stored completion code held part of a key, which an earlier build published: rotate the key")
		}
		if replaced > 0 {
			opts.Log.Warn().Int("codes", replaced).Msg("history: stored completion codes the error tables do not list are published as other")
		}
	}

	// The daily rows and the dataset's closed months live in the previous
	// snapshot's monthly files, not in history.json.
	problems, err := history.ReadArchive(opts.Out, hist)
	if err != nil {
		return Result{}, fmt.Errorf("reading the dataset: %w", err)
	}
	for _, p := range problems {
		opts.Log.Error().Str("file", p).Msg("dataset file unreadable or not as published: kept as it was, its days left out of the long windows")
	}

	opts.due = completionsDue(hist, opts.Completions, opts.Now())
	// The status pages, probes and completions, and the model gateways, are
	// read at once: neither waits for the other, and both are bounded per
	// request.
	var obs map[string]Observation
	var modelReads models.Reads
	var observing sync.WaitGroup
	observing.Go(func() { obs = Observe(ctx, opts) })
	observing.Go(func() {
		// The history is only read here, and written once both are done.
		modelReads = models.Observe(ctx, opts.models(), hist.Models, opts.Now())
	})
	observing.Wait()
	site := opts.Site
	site.Vantages = observeVantages(ctx, opts, obs)
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("build interrupted, previous snapshot kept: %w", err)
	}
	now := opts.Now()
	lastID := history.LastChangeID(hist.Changes)
	states := Assemble(hist, opts.Catalog, obs, now, opts.Log)
	models.Assemble(hist, opts.Catalog, pageComponents(obs), modelReads, now, opts.Log)
	// Each file goes to the staging folder as it is rendered; the
	// snapshot is swapped in whole once all are written.
	staging, err := lock.Stage()
	if err != nil {
		return Result{}, err
	}
	defer staging.Abort()
	if err := RenderTo(staging, site, opts.Catalog, hist, states, now); err != nil {
		return Result{}, err
	}
	if corrupt != nil {
		if err := staging.Put(snapshot.CorruptHistoryName(now), corrupt); err != nil {
			return Result{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("build interrupted, previous snapshot kept: %w", err)
	}
	if err := staging.Commit(); err != nil {
		return Result{}, err
	}
	res := Result{GeneratedAt: now, Statuses: map[string]api.Status{},
		Changes: slices.Clone(history.ChangesAfter(hist.Changes, lastID))}
	if opts.Notifier != nil {
		// Queued, never awaited: a slow or failing receiver cannot hold up
		// or fail the cycle.
		opts.Notifier.NotifyCycle(res.Changes, notify.Facts{Basis: bases(states),
			Outages: endedOutages(hist.Changes, len(hist.Changes)-len(res.Changes))})
	}
	for slug, st := range states {
		res.Statuses[slug] = st.Status
	}
	return res, nil
}

// models are the options of the cycle's reads of the model sources.
func (opts Options) models() models.Options {
	return models.Options{Catalog: opts.Catalog, Client: opts.Client, Timeout: opts.Timeout, Log: opts.Log}
}

// pageComponents are the components of each status page read this cycle,
// by slug, for the models with a component on one (models.Assemble); a
// page that could not be read is absent.
func pageComponents(obs map[string]Observation) map[string][]api.Component {
	out := make(map[string][]api.Component, len(obs))
	for slug, o := range obs {
		if o.Feed.State == api.FeedOK {
			out[slug] = o.Components
		}
	}
	return out
}

// Observe reads every service's feed and probes its API, all concurrently,
// each service bounded by opts.Timeout. Failures are recorded in the
// observations, never returned.
func Observe(ctx context.Context, opts Options) map[string]Observation {
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		obs = make(map[string]Observation, len(opts.Catalog.Services))
	)
	for _, svc := range opts.Catalog.Services {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
			defer cancel()
			o := observe(ctx, opts, svc)
			mu.Lock()
			obs[svc.Slug] = o
			mu.Unlock()
		})
	}
	wg.Wait()
	return obs
}

// observe reads one service's feed and probes its API in parallel.
func observe(ctx context.Context, opts Options, svc catalog.Service) Observation {
	var o Observation
	var wg sync.WaitGroup
	wg.Go(func() {
		var res feed.Result
		o.Feed, res, o.Surfaces = readFeed(ctx, opts, svc)
		o.Incidents, o.Components, o.Tags, o.Timeline = res.Incidents, res.Components, res.Tags, res.Timeline
	})
	wg.Go(func() { o.Probe = probeAPI(ctx, opts, svc) })
	wg.Go(func() { o.Completions = measureCompletions(ctx, opts, svc) })
	wg.Wait()
	return o
}

// readFeed reads the service's official feed: the source's state, what it
// declared for the API (zero when it failed) and for each other surface.
func readFeed(ctx context.Context, opts Options, svc catalog.Service) (api.FeedSource, feed.Result, []feed.SurfaceResult) {
	src := api.FeedSource{Format: svc.Feed.Format, URL: svc.Feed.URL, Note: svc.Feed.Note}
	if svc.Feed.Format == catalog.FormatNone {
		src.State = api.FeedNone
		return src, feed.Result{}, nil
	}
	adapter, ok := opts.Adapters[svc.Feed.Format]
	if !ok {
		src.State = api.FeedUnsupported
		return src, feed.Result{}, nil
	}
	// The API and every surface are read from the same documents, fetched once.
	req := feed.Request{Client: feed.Memo(opts.Client), Service: svc, Now: opts.Now()}
	res, dropped, err := feed.Read(ctx, adapter, req)
	surfaces := feed.ReadSurfaces(ctx, adapter, req)
	if err != nil {
		src.State, src.Error, src.Failure = api.FeedError, err.Error(), feed.Kind(err)
		opts.Log.Warn().Str("service", svc.Slug).Str("failure", string(src.Failure)).Err(err).Msg("feed failed")
		return src, feed.Result{}, surfaces
	}
	for _, why := range dropped {
		opts.Log.Warn().Str("service", svc.Slug).Str("reason", why).Msg("feed item dropped: it cannot be published")
	}
	src.State, src.Status = api.FeedOK, res.Status
	return src, res, surfaces
}

func probeAPI(ctx context.Context, opts Options, svc catalog.Service) api.ProbeSource {
	if svc.ProbeURL == "" {
		return api.ProbeSource{State: api.ProbeNone}
	}
	r := probe.Probe(ctx, opts.Client, svc.ProbeURL)
	if r.State == api.ProbeFailed && opts.Confirm.Reprobes > 0 {
		r = confirmFailure(ctx, opts, svc, r)
	}
	if r.State != api.ProbeOK {
		opts.Log.Debug().Str("service", svc.Slug).Str("error", r.Error).Msg("probe failed")
	}
	return r
}

// endedOutages are the outages the recoveries among log[from:] end, by
// the recovery's id (notify.Facts.Outages), read back in log
// (history.OutageEnded). An outage whose start the log no longer holds is
// left out.
func endedOutages(log []api.Change, from int) map[int64]notify.Outage {
	var out map[int64]notify.Outage
	for i := from; i < len(log); i++ {
		if since, worst, ok := history.OutageEnded(log[:i], log[i]); ok {
			if out == nil {
				out = map[int64]notify.Outage{}
			}
			out[log[i].ID] = notify.Outage{Since: since, Worst: worst}
		}
	}
	return out
}

// bases is each service's basis this cycle, by slug: what a chat
// notification gives as the evidence of a status change.
func bases(states map[string]ServiceState) map[string]api.Basis {
	out := make(map[string]api.Basis, len(states))
	for slug, st := range states {
		out[slug] = st.Basis
	}
	return out
}
