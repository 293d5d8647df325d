package models

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
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

// ListRead is one gateway's model list read this cycle.
type ListRead struct {
	List feed.ModelList
	// Err is the failed read; nil when the list proved itself (or was
	// unchanged) and was believed.
	Err error
	// Suspect is set, with Err, for a read that proved itself as a
	// document but was not believed (plausibleList).
	Suspect *history.SuspectList
}

// The plausibility of a model list read (docs/api.md, "Models"): a read
// that lacks more than SuspectLoss of the models the last good read
// listed, or of the pinned models it listed (all pinned models before a
// first good read), is suspect, not news: a cut or partial answer would
// otherwise retire most models at once, in the change log, on webhooks and
// in /check. So is a read that dates more models than SuspectNewDates, and
// more than SuspectLoss of the last good read's, that it did not date
// (undated there, or not listed): a maker retires a family at a time, and
// a flood of new dates would otherwise fill the calendar and the change
// log at once. A suspect read changes nothing, and the last good list
// stands. Only the same list read again and again for SuspectStands is
// taken: then it is the world's word, not a broken answer.
const (
	SuspectLoss     = 0.10
	SuspectNewDates = 10
	SuspectStands   = 24 * time.Hour
)

// ObserveModelLists asks every enabled gateway with a list for it, with
// its row's reader (Gateways), when it is due (history.ModelListEvery),
// bounded by opts.Timeout, with the validators of the last good read. A
// gateway with a list but no row fails its read. Each list passes the door
// (feed.AdmitModels) and the plausibility check against the last good
// read. The result is by gateway id; a gateway not asked this cycle is
// absent.
func ObserveModelLists(ctx context.Context, opts Options, mh *history.ModelHistory, now time.Time) map[string]ListRead {
	out := map[string]ListRead{}
	for _, g := range opts.Catalog.Models.Gateways {
		if !g.Enabled || g.ListURL == "" {
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
		row, ok := LookupGateway(g.ID)
		if !ok {
			// Never here (TestGateways), but never silent.
			out[g.ID] = ListRead{Err: fmt.Errorf("no reader of gateway %q's list (models.Gateways)", g.ID)}
			continue
		}
		log := opts.Log.With().Str("gateway", g.ID).Logger()
		rctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		list, err := row.ReadList(rctx, opts.Client, g.ListURL, v)
		cancel()
		var dropped []string
		if err == nil {
			list, dropped, err = feed.AdmitModels(list, now)
		}
		leftOut(log, dropped, "model list entry left out")
		r := ListRead{List: list, Err: err}
		if err == nil && !list.Unchanged {
			r.Suspect, r.Err = stillSuspect(plausibleList(opts.Catalog, last, keptModels(opts.Catalog, g, list.Models), row.ListsPinned, now),
				g.ListURL, now, log)
		}
		out[g.ID] = r
	}
	return out
}

// keptModels are the models g lists that can be watched or retired: of a
// mapped maker, or pinned; each by the catalog's id of it (g.CatalogID),
// so that a model two gateways list is one model.
func keptModels(cat catalog.Catalog, g catalog.Gateway, listed []feed.ListedModel) []history.ListedModel {
	out := []history.ListedModel{}
	for _, m := range listed {
		id := g.CatalogID(m.ID)
		author, _, _ := strings.Cut(id, "/")
		if _, pinned := cat.Models.Lookup(id); !pinned && cat.Models.Makers[author] == "" {
			continue
		}
		kept := history.ListedModel{ID: id, Name: m.Name, Created: m.Created, Expires: m.Expires}
		if id != m.ID {
			kept.GatewayID = m.ID
		}
		out = append(out, kept)
	}
	return out
}

// plausibleList says whether a read of a list, kept to the models it
// keeps, is suspect against last, the last good read: nil when it is
// plausible. A suspect read of the same models as the one already
// suspect keeps that one's Since.
//
// The pinned models are a gateway's yardstick only when listsPinned
// (models.Gateway.ListsPinned): the catalog pins OpenRouter's models, and
// Vercel's list lacking a third of them is Vercel's catalogue, not a cut
// answer.
func plausibleList(cat catalog.Catalog, last *history.ModelList, read []history.ListedModel, listsPinned bool, now time.Time) *history.SuspectList {
	listed := make(map[string]bool, len(read))
	for _, m := range read {
		listed[m.ID] = true
	}
	var known, pinned []string
	var hadList bool
	if last != nil && !last.ReadAt.IsZero() && len(last.Models) > 0 {
		hadList = true
		for _, m := range last.Models {
			known = append(known, m.ID)
		}
	}
	for _, md := range cat.Models.Pinned {
		if listsPinned && (!hadList || slices.Contains(known, md.ID)) {
			pinned = append(pinned, md.ID)
		}
	}
	// Newly dated: entries with an expiration date the last good read did
	// not give them (undated there, or not listed).
	newlyDated := 0
	if hadList {
		dated := map[string]bool{}
		for _, m := range last.Models {
			if m.Expires != "" {
				dated[m.ID] = true
			}
		}
		for _, m := range read {
			if m.Expires != "" && !dated[m.ID] {
				newlyDated++
			}
		}
	}
	var why string
	switch n := lacking(listed, known); {
	case beyondLoss(n, len(known)):
		why = fmt.Sprintf("it lacks %d of the %d models the last good read listed", n, len(known))
	case newlyDated > SuspectNewDates && beyondLoss(newlyDated, len(known)):
		why = fmt.Sprintf("it dates %d models the last good read did not (of the %d it listed)", newlyDated, len(known))
	default:
		if n := lacking(listed, pinned); beyondLoss(n, len(pinned)) {
			why = fmt.Sprintf("it lacks %d of the %d pinned models", n, len(pinned))
			if hadList {
				why = fmt.Sprintf("it lacks %d of the %d pinned models the last good read listed", n, len(pinned))
			}
		}
	}
	if why == "" {
		return nil
	}
	var prev *history.SuspectList
	if last != nil {
		prev = last.Suspect
	}
	said := make([]string, 0, len(read)) // id and date, the read's fingerprint
	for _, m := range read {
		said = append(said, m.ID+" "+m.Expires)
	}
	return suspectOf(prev, said, why, now)
}

// lacking is how many of ids a read lacks, named being the ids it names.
func lacking(named map[string]bool, ids []string) int {
	n := 0
	for _, id := range ids {
		if !named[id] {
			n++
		}
	}
	return n
}

// beyondLoss reports whether n of all is more than SuspectLoss of them:
// more models than a read may lack, or newly date, and be believed.
func beyondLoss(n, all int) bool {
	return float64(n) > SuspectLoss*float64(all)
}

// leftOut logs each entry of a source's read the door (feed.AdmitModels,
// feed.AdmitDeprecations) left out, as msg, to the source's log.
func leftOut(log zerolog.Logger, dropped []string, msg string) {
	for _, why := range dropped {
		log.Warn().Str("entry", why).Msg(msg)
	}
}

// stillSuspect is a suspect read of url (nil for a plausible one) as the
// cycle takes it: one that has stood SuspectStands is the source's word
// after all, taken and logged; else it is not believed, and fails the read
// as a FailureSuspect.
func stillSuspect(s *history.SuspectList, url string, now time.Time, log zerolog.Logger) (*history.SuspectList, error) {
	switch {
	case s == nil:
		return nil, nil
	case now.Sub(s.Since) >= SuspectStands:
		log.Warn().Str("why", s.Why).Time("since", s.Since).
			Msg("suspect read taken: the same read stood long enough to be the source's word")
		return nil, nil
	}
	return s, &feed.Error{Kind: api.FailureSuspect, Err: fmt.Errorf("GET %s: suspect read, not believed: %s", url, s.Why)}
}

// suspectOf is a suspect read saying said (each model's id and date), for
// why; a suspect read saying the same as prev, the one already suspect,
// keeps prev's Since, so that the same read given again and again stands
// once it has for SuspectStands, and a read dating the same models
// otherwise starts afresh.
func suspectOf(prev *history.SuspectList, said []string, why string, now time.Time) *history.SuspectList {
	said = slices.Clone(said)
	slices.Sort(said)
	said = slices.Compact(said)
	sum := sha256.Sum256([]byte(strings.Join(said, "\n")))
	s := &history.SuspectList{Since: now, Fingerprint: hex.EncodeToString(sum[:16]), Why: why}
	if prev != nil && prev.Fingerprint == s.Fingerprint && !prev.Since.After(now) {
		s.Since = prev.Since
	}
	return s
}

// listedAfter is each gateway's list once this cycle's reads are taken in:
// a good read replaces the list, kept to the models that can be watched or
// retired (keptModels); an unchanged one, a failed one or a suspect one
// leaves the last good list standing. Only CheckedAt moves on a failure,
// so that a failing list is asked for once an hour, not every cycle; a
// suspect read is remembered, to be taken once it has stood.
func listedAfter(cat catalog.Catalog, mh *history.ModelHistory, reads map[string]ListRead, now time.Time) map[string]*history.ModelList {
	var last map[string]*history.ModelList
	if mh != nil {
		last = mh.Lists
	}
	return takenIn(last, reads, func(id string, l *history.ModelList, r ListRead) {
		if l.Took(now, r.Err != nil, r.Suspect, r.List.Unchanged, r.List.Validators.ETag, r.List.Validators.LastModified) {
			g, _ := cat.Models.Gateway(id)
			l.Models = keptModels(cat, g, r.List.Models)
		}
	})
}

// takenIn is each source's last good read once this cycle's reads are
// taken in (listedAfter, pagesAfter): last, by source id, with a copy of
// the last good read (a zero one before any) of each source read, on
// which take records that source's read. last itself is left as it was.
func takenIn[S, R any](last map[string]*S, reads map[string]R, take func(id string, s *S, r R)) map[string]*S {
	out := make(map[string]*S, len(last))
	maps.Copy(out, last)
	for id, r := range reads {
		s := new(S)
		if prev := out[id]; prev != nil {
			*s = *prev
		}
		take(id, s, r)
		out[id] = s
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
		out = append(out, catalog.Model{ID: m.ID, Name: m.DisplayName(), Author: author, Service: cat.Models.Makers[author]})
	}
	return out
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
	return oneReadHealth(mh, api.ModelSourceHealth{ID: g.ID + "-models", Kind: api.ModelSourceList, Name: g.Name + "'s model list",
		Enabled: g.Enabled, URL: g.ListURL, Attribution: g.Name + ": the models it lists as served, from its public model list"},
		r.Err, asked, now, log)
}

// oneReadHealth is the health of a source read once when due (a model
// list, a maker's page), made of its fixed fields: the recorded health
// carried over (but a page's disagreements, which sayDisagreements sets
// afresh each cycle), disabled when it is switched off, kept as it was when not
// asked this cycle, else tracked with this read's outcome (err).
func oneReadHealth(mh *history.ModelHistory, out api.ModelSourceHealth, err error, asked bool, now time.Time, log zerolog.Logger) api.ModelSourceHealth {
	prev, _ := mh.Source(out.ID)
	out.State, out.LastOKAt, out.ConsecutiveFailures, out.FailingSince = prev.State, prev.LastOKAt, prev.ConsecutiveFailures, prev.FailingSince
	out.Error, out.Failure = prev.Error, prev.Failure
	if !out.Enabled {
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
	if err != nil {
		out.Failed, failed = 1, []string{}
	}
	trackSource(&out, err, failed, now, log)
	return out
}
