package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// The makers' own deprecation pages (docs/api.md, "The lifecycle"): read
// once a day (history.MakerPageEvery), conditionally, each through the
// door (feed.AdmitDeprecations) and the plausibility check (plausiblePage);
// a page that fails or is not believed leaves its last good read
// standing, and costs only its own source, never the cycle.

// PageRead is one maker's page read this cycle.
type PageRead struct {
	Page feed.DeprecationPage
	// Err is the failed read; nil when the page proved itself (or was
	// unchanged) and was believed.
	Err error
	// Suspect is set, with Err, for a read that proved itself as a
	// document but was not believed.
	Suspect *history.SuspectList
}

// ObserveMakerPages asks every enabled page that is due for it, bounded
// by opts.Timeout, with the validators of the last good read. The result
// is by the page's id; a page not asked this cycle is absent.
func ObserveMakerPages(ctx context.Context, opts Options, mh *history.ModelHistory, now time.Time) map[string]PageRead {
	out := map[string]PageRead{}
	formats := feed.DeprecationFormats()
	for _, p := range opts.Catalog.Models.Lifecycle {
		format := formats[p.Format]
		if !p.Enabled || format == nil {
			continue
		}
		var last *history.MakerPage
		if mh != nil {
			last = mh.Pages[p.ID]
		}
		if !last.Due(now) {
			continue
		}
		var v feed.Validators
		if last != nil && len(last.Deprecations) > 0 {
			v = feed.Validators{ETag: last.ETag, LastModified: last.LastModified}
		}
		log := opts.Log.With().Str("page", p.ID).Logger()
		rctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		page, err := feed.ReadDeprecations(rctx, opts.Client, p.URL, format, v)
		cancel()
		var dropped []string
		if err == nil {
			page, dropped, err = feed.AdmitDeprecations(page)
		}
		leftOut(log, dropped, "deprecation page entry left out")
		r := PageRead{Page: page, Err: err}
		if err == nil && !page.Unchanged {
			r.Suspect, r.Err = stillSuspect(plausiblePage(last, page.Deprecations, now), p.URL, now, log)
		}
		out[p.ID] = r
	}
	return out
}

// plausiblePage says whether a read of a page is suspect against last, the
// last good read: a page only grows (a retired model stays in its
// history), so a read that lacks more than SuspectLoss of the models the
// last good read named is a cut or broken answer, not news; and a maker
// announces a family at a time, so a read that dates more than
// SuspectNewDates models, and more than SuspectLoss of the last good
// read's, otherwise than it did (a new date, or a model it did not name)
// is a misread table, not news, as a list's flood of dates is. nil when it
// is plausible.
func plausiblePage(last *history.MakerPage, read []feed.Deprecation, now time.Time) *history.SuspectList {
	if last == nil || last.ReadAt.IsZero() || len(last.Deprecations) == 0 {
		return nil
	}
	named := make(map[string]bool, len(read))
	said := make([]string, 0, len(read)) // model and date, the read's fingerprint
	for _, d := range read {
		named[d.Model] = true
		said = append(said, d.Model+" "+d.Date)
	}
	known := make([]string, 0, len(last.Deprecations))
	dated := make(map[string]string, len(last.Deprecations))
	for _, d := range last.Deprecations {
		known = append(known, d.Model)
		dated[d.Model] = d.Date
	}
	redated := map[string]bool{}
	for _, d := range read {
		if date, ok := dated[d.Model]; !ok || date != d.Date {
			redated[d.Model] = true
		}
	}
	var why string
	switch lost := lacking(named, known); {
	case beyondLoss(lost, len(known)):
		why = fmt.Sprintf("it lacks %d of the %d models the last good read named", lost, len(known))
	case len(redated) > SuspectNewDates && beyondLoss(len(redated), len(known)):
		why = fmt.Sprintf("it dates %d models otherwise than the last good read did, or anew (of the %d it named)", len(redated), len(known))
	default:
		return nil
	}
	return suspectOf(last.Suspect, said, why, now)
}

// pagesAfter is each page once this cycle's reads are taken in, as
// listedAfter is for the lists: a good read replaces the page, an
// unchanged, failed or suspect one leaves the last good read standing.
func pagesAfter(mh *history.ModelHistory, reads map[string]PageRead, now time.Time) map[string]*history.MakerPage {
	var last map[string]*history.MakerPage
	if mh != nil {
		last = mh.Pages
	}
	return takenIn(last, reads, func(_ string, p *history.MakerPage, r PageRead) {
		if p.Took(now, r.Err != nil, r.Suspect, r.Page.Unchanged, r.Page.Validators.ETag, r.Page.Validators.LastModified) {
			p.Deprecations = make([]history.PageDeprecation, 0, len(r.Page.Deprecations))
			for _, d := range r.Page.Deprecations {
				p.Deprecations = append(p.Deprecations, history.PageDeprecation{Model: d.Model, Date: d.Date, Alias: d.Alias, Of: d.Of})
			}
		}
	})
}

// AssembleMakerPages takes this cycle's reads of the makers' pages into
// the history, and keeps each page's health as a model source's.
func AssembleMakerPages(h *history.History, cat catalog.Catalog, reads map[string]PageRead, now time.Time, log zerolog.Logger) {
	if len(cat.Models.Pinned) == 0 {
		return
	}
	if h.Models == nil {
		h.Models = &history.ModelHistory{At: now, Models: []api.ModelDoc{}, Sources: []api.ModelSourceHealth{}}
	}
	h.Models.Pages = pagesAfter(h.Models, reads, now)
	for _, p := range cat.Models.Lifecycle {
		r, asked := reads[p.ID]
		health := makerPageHealth(h.Models, p, r, asked, now, log)
		i := slices.IndexFunc(h.Models.Sources, func(s api.ModelSourceHealth) bool { return s.ID == health.ID })
		if i < 0 {
			h.Models.Sources = append(h.Models.Sources, health)
		} else {
			h.Models.Sources[i] = health
		}
	}
}

// makerPageHealth keeps a page's health across cycles, as listHealth does
// for a list: a page not asked for this cycle (it is read once a day)
// keeps its recorded health.
func makerPageHealth(mh *history.ModelHistory, p catalog.LifecyclePage, r PageRead, asked bool, now time.Time, log zerolog.Logger) api.ModelSourceHealth {
	return oneReadHealth(mh, api.ModelSourceHealth{ID: p.ID, Kind: api.ModelSourceLifecycle, Name: p.Name, Enabled: p.Enabled,
		URL: p.URL, Attribution: p.Attribution}, r.Err, asked, now, log)
}
