package build

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// Which models are watched (docs/api.md, "Models"): the catalog's pinned
// models, always, and by rule each model a gateway's list carries of a
// maker the catalog maps to a service, added to the list in the last
// WatchRecent, newest first, up to MaxWatched in all. Each cycle reads the
// gateway documents of at most EndpointReadsPerCycle of them, those read
// longest ago first, so that every watched model is read at least every
// ceil(MaxWatched / EndpointReadsPerCycle) = 3 cycles (15 minutes at the
// usual 5-minute cycle); a model not read this cycle keeps what was read
// of it last.
const (
	WatchRecent           = 365 * 24 * time.Hour
	MaxWatched            = 150
	EndpointReadsPerCycle = 50
)

// modelListReaders read a gateway's model list, by gateway id.
var modelListReaders = map[string]func(ctx context.Context, client *http.Client, url string, v feed.Validators) (feed.ModelList, error){
	catalog.GatewayOpenRouter: feed.ReadOpenRouterModels,
}

// ListRead is one gateway's model list read this cycle.
type ListRead struct {
	List feed.ModelList
	// Err is the failed read; nil when the list proved itself (or was
	// unchanged).
	Err error
}

// ObserveModelLists asks every enabled gateway with a list for it, when
// it is due (history.ModelListEvery), bounded by opts.Timeout, with the
// validators of the last good read. The result is by gateway id; a
// gateway not asked this cycle is absent.
func ObserveModelLists(ctx context.Context, opts Options, mh *history.ModelHistory, now time.Time) map[string]ListRead {
	out := map[string]ListRead{}
	for _, g := range opts.Catalog.Models.Gateways {
		read := modelListReaders[g.ID]
		if !g.Enabled || g.ListURL == "" || read == nil {
			continue
		}
		var last *history.ModelList
		if mh != nil {
			last = mh.Lists[g.ID]
		}
		if !last.Due(now) {
			continue
		}
		var v feed.Validators
		if last != nil && len(last.Models) > 0 {
			v = feed.Validators{ETag: last.ETag, LastModified: last.LastModified}
		}
		rctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		list, err := read(rctx, opts.Client, g.ListURL, v)
		cancel()
		out[g.ID] = ListRead{List: list, Err: err}
	}
	return out
}

// listedAfter is each gateway's list once this cycle's reads are taken in:
// a good read replaces the list, kept to the models that can be watched or
// retired (of a mapped maker, or pinned); an unchanged one, or a failed
// one, leaves the last good list standing. Only CheckedAt moves on a
// failure, so that a failing list is asked for once an hour, not every
// cycle.
func listedAfter(cat catalog.Catalog, mh *history.ModelHistory, reads map[string]ListRead, now time.Time) map[string]*history.ModelList {
	out := map[string]*history.ModelList{}
	if mh != nil {
		for id, l := range mh.Lists {
			out[id] = l
		}
	}
	for id, r := range reads {
		l := &history.ModelList{}
		if prev := out[id]; prev != nil {
			*l = *prev
		}
		l.CheckedAt = now
		switch {
		case r.Err != nil:
		case r.List.Unchanged:
			l.ReadAt = now
		default:
			l.ReadAt, l.ETag, l.LastModified = now, r.List.Validators.ETag, r.List.Validators.LastModified
			l.Models = []history.ListedModel{}
			for _, m := range r.List.Models {
				author, _, _ := strings.Cut(m.ID, "/")
				if _, pinned := cat.Models.Lookup(m.ID); !pinned && cat.Models.Makers[author] == "" {
					continue
				}
				l.Models = append(l.Models, history.ListedModel{ID: m.ID, Name: m.Name, Created: m.Created, Expires: m.Expires})
			}
		}
		out[id] = l
	}
	return out
}

// watchList is the models watched at now: the pinned ones, then by rule
// those of mapped makers in the lists, newest first, MaxWatched in all. A
// listed id that is not a valid watched id (OpenRouter's "…:free"
// variants, "~author/…" aliases) is not watched: it is another name of a
// model, not one.
func watchList(cat catalog.Catalog, lists map[string]*history.ModelList, now time.Time) []catalog.Model {
	out := slices.Clone(cat.Models.Pinned)
	seen := map[string]bool{}
	for _, md := range out {
		seen[md.ID] = true
	}
	var found []history.ListedModel
	for _, g := range cat.Models.Gateways {
		l := lists[g.ID]
		if !g.Enabled || l == nil {
			continue
		}
		for _, m := range l.Models {
			author, _, _ := strings.Cut(m.ID, "/")
			if seen[m.ID] || !catalog.ValidModelID(m.ID) || cat.Models.Makers[author] == "" || m.Created.Before(now.Add(-WatchRecent)) {
				continue
			}
			seen[m.ID] = true
			found = append(found, m)
		}
	}
	slices.SortStableFunc(found, func(a, b history.ListedModel) int {
		return cmp.Or(b.Created.Compare(a.Created), strings.Compare(a.ID, b.ID))
	})
	for _, m := range found[:min(len(found), max(0, MaxWatched-len(out)))] {
		author, _, _ := strings.Cut(m.ID, "/")
		out = append(out, catalog.Model{ID: m.ID, Name: listedName(m), Author: author, Service: cat.Models.Makers[author]})
	}
	return out
}

// listedName is a listed model's name without the maker OpenRouter puts
// before it ("Anthropic: Claude Opus 4.7" → "Claude Opus 4.7"), or its id
// when it has none.
func listedName(m history.ListedModel) string {
	name := m.Name
	if _, rest, ok := strings.Cut(name, ": "); ok && rest != "" {
		name = rest
	}
	if strings.TrimSpace(name) == "" {
		return m.ID
	}
	return name
}

// dueForRead is which of the watched models this cycle reads: at most
// EndpointReadsPerCycle, those whose documents were requested longest ago
// first (never before: first of all), in watch order among equals.
func dueForRead(watched []catalog.Model, mh *history.ModelHistory) []catalog.Model {
	var readAt map[string]time.Time
	if mh != nil {
		readAt = mh.ReadAt
	}
	due := slices.Clone(watched)
	slices.SortStableFunc(due, func(a, b catalog.Model) int { return readAt[a.ID].Compare(readAt[b.ID]) })
	return due[:min(len(due), EndpointReadsPerCycle)]
}

// listHealth keeps a gateway's model list's health across cycles, as
// gatewayHealth does for its documents: a list not asked for this cycle
// keeps its recorded health.
func listHealth(mh *history.ModelHistory, g catalog.Gateway, r ListRead, asked bool, now time.Time, log zerolog.Logger) api.ModelSourceHealth {
	id := g.ID + "-models"
	prev, _ := mh.Source(id)
	out := api.ModelSourceHealth{ID: id, Kind: api.ModelSourceList, Name: g.Name + "'s model list", Enabled: g.Enabled,
		URL: g.ListURL, Attribution: g.Name + ": the models it lists as served, from its public model list", State: prev.State, LastOKAt: prev.LastOKAt,
		ConsecutiveFailures: prev.ConsecutiveFailures, FailingSince: prev.FailingSince, Error: prev.Error, Failure: prev.Failure}
	if !g.Enabled {
		out.State, out.ConsecutiveFailures, out.FailingSince, out.Error, out.Failure = api.ModelSourceDisabled, 0, nil, "", ""
		return out
	}
	if !asked {
		if out.State == "" {
			out.State = api.FeedError
			out.Error = "not read yet"
		}
		return out
	}
	out.Reads, out.Failed = 1, 0
	var failed []string
	if r.Err != nil {
		out.Failed, failed = 1, []string{}
	}
	trackSource(&out, r.Err, failed, now, log)
	return out
}
