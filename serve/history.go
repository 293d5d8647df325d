package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// serviceDays is a service's daily history as its static file holds it:
// every retained day, oldest first; /history answers a range of it.
type serviceDays struct {
	doc  api.HistoryDoc
	etag string
}

// loadHistories decodes each service's history file. A snapshot made
// before the files existed has none, and one that cannot be decoded is
// left out rather than failing the whole snapshot: those services answer
// an empty history.
func (s *Snapshot) loadHistories() {
	s.histories = map[string]serviceDays{}
	for _, slug := range s.order {
		name := snapshot.ServiceHistoryFile(slug)
		rep := s.files[name]
		if rep == nil {
			continue
		}
		var doc api.HistoryDoc
		if err := decodeFile(s.files, name, &doc); err != nil || !sort.SliceIsSorted(doc.Days, func(i, j int) bool { return doc.Days[i].Date < doc.Days[j].Date }) {
			continue
		}
		s.histories[slug] = serviceDays{doc: doc, etag: rep.etag}
	}
}

// markImmutable gives the dataset's closed files, as the index lists them,
// the year-long immutable caching: they never change again. Without a
// readable index every file keeps the usual short caching.
func (s *Snapshot) markImmutable() {
	var idx history.DatasetIndex
	if s.files[snapshot.FileDatasets] == nil || decodeFile(s.files, snapshot.FileDatasets, &idx) != nil {
		return
	}
	immutable := []string{snapshot.CacheImmutable}
	for _, f := range idx.Files {
		name, ok := strings.CutPrefix(f.Path, "/")
		if rep := s.files[name]; ok && f.Closed && rep != nil && rep.hdr != nil {
			rep.hdr.cacheControl = immutable
		}
	}
}

// historyRange is a validated /history request: the days from and to,
// both included, as YYYY-MM-DD.
type historyRange struct{ from, to string }

// parseHistoryRange validates from and to; on a bad one it returns the
// parameter's name and a message for the 400.
func parseHistoryRange(q url.Values, now time.Time) (hr historyRange, param, msg string) {
	if param, msg := paramTooLong(q, maxParamLen, "from", "to"); param != "" {
		return hr, param, msg
	}
	date := func(name string, def time.Time) (time.Time, string) {
		if !q.Has(name) {
			return def, ""
		}
		v := q.Get(name)
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return t, fmt.Sprintf("%s %q is not a date (YYYY-MM-DD, for example 2026-11-01)", name, api.Truncate(v, 64))
		}
		return t, ""
	}
	to, msg := date("to", now.UTC().Truncate(history.Day))
	if msg != "" {
		return hr, "to", msg
	}
	from, msg := date("from", to.AddDate(0, 0, -(api.DefaultHistoryDays-1)))
	if msg != "" {
		return hr, "from", msg
	}
	if from.After(to) {
		return hr, "from", fmt.Sprintf("from %s is after to %s", from.Format(time.DateOnly), to.Format(time.DateOnly))
	}
	if days := int(to.Sub(from)/history.Day) + 1; days > api.MaxHistoryDays {
		return hr, "to", fmt.Sprintf("from %s to %s is %d days; at most %d per request", from.Format(time.DateOnly),
			to.Format(time.DateOnly), days, api.MaxHistoryDays)
	}
	return historyRange{from: from.Format(time.DateOnly), to: to.Format(time.DateOnly)}, "", ""
}

func (s *Server) handleServiceHistory(w http.ResponseWriter, r *http.Request) {
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	slug := r.PathValue("slug")
	if _, tracked := snap.status[slug]; !tracked {
		problem(w, http.StatusNotFound, "slug", fmt.Sprintf("%q is not a tracked service: see %s for the list", api.Truncate(slug, 64), snapshot.PathStatus))
		return
	}
	hr, param, msg := parseHistoryRange(q, snap.Manifest.GeneratedAt)
	if msg != "" {
		problem(w, http.StatusBadRequest, param, msg)
		return
	}
	days := snap.histories[slug]
	// The answer is a function of the service's file and the range.
	etag := etagOf(fmt.Appendf(nil, "%q %s %s %s %s", s.opts.Version, slug, days.etag, hr.from, hr.to))
	serveComputed(w, r, etag, func() ([]byte, error) {
		doc := days.doc
		all := doc.Days
		lo := sort.Search(len(all), func(i int) bool { return all[i].Date >= hr.from })
		hi := sort.Search(len(all), func(i int) bool { return all[i].Date > hr.to })
		doc.From, doc.To, doc.Days = hr.from, hr.to, all[lo:max(lo, hi)]
		if doc.Days == nil {
			doc.Days = []api.HistoryDay{}
		}
		if doc.Service == "" { // no file: an older snapshot
			doc = api.HistoryDoc{Service: slug, From: hr.from, To: hr.to, Basis: history.HistoryBasis,
				Days: []api.HistoryDay{}, Timestamp: snap.Manifest.GeneratedAt, License: api.License,
				Dataset: snap.Manifest.BaseURL + "/" + snapshot.FileDatasets}
		}
		data, err := json.Marshal(doc)
		return append(data, '\n'), err
	})
}
