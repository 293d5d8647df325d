// Package models is the models' side of a build cycle (docs/api.md,
// "Models" and "The lifecycle"): which models are watched (the catalog's
// pinned ones and, by rule, those the gateways' lists carry), the reads of
// the gateways' model lists, of their per-model documents and of the
// makers' deprecation pages, the lifecycle's retirement calendar, and each
// watched model's providers and status, kept in history.ModelHistory and
// published as models.json, the models' own documents and
// models/retirements.json.
//
// The gateways it reads are the rows of Gateways (gateways.go). build runs
// the cycle: it calls Observe beside its own reads of the status pages,
// then Assemble, and renders what Doc, Document and RetirementsDoc give.
// Nothing here imports build.
package models

import (
	"context"
	"net/http"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// SourceAlarmAfter is how long a model source may fail before it is an
// alarm in the log, not a warning: as long as an official source may
// (build.SourceAlarmAfter, which a test of build holds to it).
const SourceAlarmAfter = time.Hour

// Options configure a cycle's reads of the model sources: the build's own.
type Options struct {
	Catalog catalog.Catalog
	// Client makes every read: outbound.NewClient, allowing the catalog's
	// hosts.
	Client *http.Client
	// Timeout bounds each request.
	Timeout time.Duration
	Log     zerolog.Logger
}

// Reads are one cycle's reads of the model sources.
type Reads struct {
	// Lists are the gateways' model lists, by gateway id (ObserveModelLists).
	Lists map[string]ListRead
	// Pages are the makers' deprecation pages, by page id (ObserveMakerPages).
	Pages map[string]PageRead
	// Gateways are the gateways' documents of the models due this cycle,
	// by gateway id, then model id (ObserveGateways).
	Gateways map[string]map[string]GatewayRead
}

// Observe makes the cycle's reads of the model sources, given mh, the
// history's models as the last cycle left them (nil for none): the
// gateways' lists first, as they say which models are watched, then the
// makers' pages (once a day), then the gateways' documents of the watched
// models due this cycle (dueForRead). mh is only read: Assemble takes the
// reads into the history.
func Observe(ctx context.Context, opts Options, mh *history.ModelHistory, now time.Time) Reads {
	var r Reads
	r.Lists = ObserveModelLists(ctx, opts, mh, now)
	r.Pages = ObserveMakerPages(ctx, opts, mh, now)
	lists := listedAfter(opts.Catalog, mh, r.Lists, now)
	r.Gateways = ObserveGateways(ctx, opts, dueForRead(watchList(opts.Catalog, lists, now), mh), lists)
	return r
}

// Assemble takes the cycle's reads into h.Models: the lists
// (AssembleModelLists), the makers' pages (AssembleMakerPages), then each
// watched model and the calendar (AssembleModels). components are the
// status pages' components this cycle, by service slug, of each page that
// was read; a page that could not be read is absent.
func Assemble(h *history.History, cat catalog.Catalog, components map[string][]api.Component, r Reads, now time.Time, log zerolog.Logger) {
	AssembleModelLists(h, cat, r.Lists, now, log)
	AssembleMakerPages(h, cat, r.Pages, now, log)
	AssembleModels(h, cat, components, r.Gateways, now, log)
}
