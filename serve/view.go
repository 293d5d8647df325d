package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/history"
)

// What the check engine reads of a snapshot (check.View, check.ModelView),
// and the index of the incidents it counts, made at load.

// Catalog is the catalog the snapshot was built with (its catalog.json),
// its text cleaned (cleanCatalogText), and false for a snapshot without
// one or whose catalog does not parse: what /check answers by, here and in
// `aistatus check --dir`, once DropForeignAliases has passed over it.
func (s *Snapshot) Catalog() (catalog.Catalog, bool) {
	if s.catalog == nil {
		return catalog.Catalog{}, false
	}
	return *s.catalog, true
}

// Age is how old the snapshot is at now, never negative, and whether its
// data must be called stale. A snapshot generated more than
// history.MaxClockSkew in the future was written by a generator whose clock
// was ahead: taken at face value its age would be negative and it would never
// turn stale however old it really is, so it is reported stale, with age 0.
func (s *Snapshot) Age(now time.Time) (age time.Duration, stale bool) {
	age = now.Sub(s.Manifest.GeneratedAt)
	if age < 0 {
		return 0, futureBeyondSkew(s.Manifest.GeneratedAt, now)
	}
	return age, s.Manifest.Stale(now)
}

// futureBeyondSkew tells a generation time that cannot be right at now: more
// than history.MaxClockSkew ahead of it.
func futureBeyondSkew(generatedAt, now time.Time) bool {
	return generatedAt.Sub(now) > history.MaxClockSkew
}

// BuildProbe is the service's probe in the latest build (check.View).
func (s *Snapshot) BuildProbe(slug string) (check.Live, bool) {
	p, ok := s.probes[slug]
	return p, ok
}

// Model is a watched model's entry of models.json (check.ModelView).
func (s *Snapshot) Model(id string) (api.ModelDoc, bool) {
	m, ok := s.models[id]
	return m, ok
}

// WatchedModels are models.json's models, in its order
// (check.LifecycleView).
func (s *Snapshot) WatchedModels() []api.ModelDoc { return s.modelList }

// Retirement is the model's entry of the retirement calendar
// (check.LifecycleView).
func (s *Snapshot) Retirement(id string) (api.ModelRetirement, bool) {
	r, ok := s.retirements[id]
	return r, ok
}

// Retirements are the retirement calendar (check.LifecycleView).
func (s *Snapshot) Retirements() []api.ModelRetirement { return s.retirementList }

// ModelNames are the watched and retired models by name, indexed at load
// (check.ModelNamer).
func (s *Snapshot) ModelNames() *check.ModelNames {
	if s.modelNames == nil { // a snapshot not made by load
		return check.IndexModelNames(s.modelList, s.retirementList)
	}
	return s.modelNames
}

// Measured is the service's measured completions in the latest build
// (check.View).
func (s *Snapshot) Measured(slug string) []api.MeasuredModel { return s.measured[slug] }

// Vantages is what every vantage saw of the service's API host in the
// latest build, from sources.json (check.View).
func (s *Snapshot) Vantages(slug string) (api.Vantages, bool) {
	v, ok := s.vantages[slug]
	return v, ok
}

// Reliability is the service's row of reliability.json (check.View).
func (s *Snapshot) Reliability(slug string) (api.Reliability, bool) {
	r, ok := s.reliability[slug]
	return r, ok
}

// GeneratedAt is when the snapshot was built (check.View).
func (s *Snapshot) GeneratedAt() time.Time { return s.Manifest.GeneratedAt }

// Summary is a service's entry of status.json (check.View).
func (s *Snapshot) Summary(slug string) (api.ServiceSummary, bool) {
	sum, ok := s.status[slug]
	return sum, ok
}

// OpenIncidents are a service's open incidents, newest first (check.View),
// from the index kept at load: /check cites them on every request.
func (s *Snapshot) OpenIncidents(slug string) []*api.Incident {
	var open []*api.Incident
	for _, i := range s.openByService[slug] {
		open = append(open, &s.incidents[i])
	}
	return open
}

// IncidentsSince counts a service's incidents that started at or after
// since and returns the newest (check.View). A service's incidents are
// newest first, so those are a prefix, found by binary search: with 100 000
// retained incidents a pass over a service's share, copying each, took 95 %
// of a /check (190 µs, 200 KB allocated; BenchmarkCheck).
func (s *Snapshot) IncidentsSince(slug string, since time.Time) (int, *api.Incident) {
	idx := s.byService[slug]
	n := sort.Search(len(idx), func(k int) bool { return s.incidents[idx[k]].StartedAt.Before(since) })
	if n == 0 {
		return 0, nil
	}
	return n, &s.incidents[idx[0]]
}

// decodeIncidents decodes incidents.json's list, newest first, with each
// incident's JSON: the file's own bytes, which the build writes with
// json.Marshal (compact, as /incidents sends them), so the list is neither
// encoded again nor held twice; only an incident that is not valid UTF-8
// is encoded again, and an indented one compacted. Encoding 100 000
// incidents again took a third of a second at load and held another 37 MB
// (BenchmarkLoadFullRetention). Anything after the list is only checked to
// be JSON.
//
// The list is read by history's parser, made for the shape a build writes:
// encoding/json's decoder, one incident at a time, was 70 % of loading a
// snapshot at the retention cap. A file of another shape is decoded by
// decodeIncidentsJSON, whose result the fast one equals (FuzzDecodeIncidents).
func decodeIncidents(body []byte) ([]api.Incident, [][]byte, error) {
	list, spans, ok := history.DecodeIncidentList(body)
	if !ok {
		return decodeIncidentsJSON(body)
	}
	raws := make([][]byte, len(list))
	for i, span := range spans {
		raw, err := sendable(body[span[0]:span[1]], list[i])
		if err != nil {
			return nil, nil, err
		}
		raws[i] = raw
	}
	sortIncidents(list, raws)
	return list, raws, nil
}

// decodeIncidentsJSON is decodeIncidents by encoding/json.
func decodeIncidentsJSON(body []byte) ([]api.Incident, [][]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var (
		list []api.Incident
		raws [][]byte
	)
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		if key != "incidents" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, err
			}
			continue
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		if tok == nil { // "incidents": null, an empty list
			continue
		}
		if tok != json.Delim('[') {
			return nil, nil, errors.New("incidents is not a list")
		}
		for dec.More() {
			start := dec.InputOffset()
			var inc api.Incident
			if err := dec.Decode(&inc); err != nil {
				return nil, nil, err
			}
			// The offset before an element is at the comma that precedes it.
			raw, err := sendable(bytes.TrimLeft(body[start:dec.InputOffset()], ", \t\r\n"), inc)
			if err != nil {
				return nil, nil, err
			}
			list, raws = append(list, inc), append(raws, raw)
		}
		if _, err := dec.Token(); err != nil { // the closing ]
			return nil, nil, err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing }
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("data after the object")
	}
	sortIncidents(list, raws)
	return list, raws, nil
}

// sendable is what /incidents sends of inc, read from raw, its bytes in
// the file: raw itself, but re-encoded when it is not UTF-8 (the decoder
// replaced what was not; send what it read) and compacted when it is
// indented (compact JSON has no raw newline, not even in its strings).
func sendable(raw []byte, inc api.Incident) ([]byte, error) {
	switch {
	case !utf8.Valid(raw):
		return json.Marshal(inc)
	case bytes.IndexByte(raw, '\n') >= 0:
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	return raw, nil
}

// sortIncidents orders list newest first (api.SortIncidents) and raws,
// each incident's JSON, with it. Our builds write them in that order.
func sortIncidents(list []api.Incident, raws [][]byte) {
	if slices.IsSortedFunc(list, api.CompareIncidents) {
		return
	}
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return api.CompareIncidents(list[a], list[b]) })
	sortedList, sortedRaws := make([]api.Incident, len(list)), make([][]byte, len(list))
	for k, i := range order {
		sortedList[k], sortedRaws[k] = list[i], raws[i]
	}
	copy(list, sortedList)
	copy(raws, sortedRaws)
}

// indexIncidents builds the per-service indexes of s.incidents (newest
// first) that the computed routes read.
func (s *Snapshot) indexIncidents() {
	s.byService, s.openByService = map[string][]int{}, map[string][]int{}
	for i, inc := range s.incidents {
		s.byService[inc.Service] = append(s.byService[inc.Service], i)
		if inc.Open() {
			s.openByService[inc.Service] = append(s.openByService[inc.Service], i)
		}
	}
	s.latestEnd = map[string][]time.Time{}
	for slug, idx := range s.byService {
		ends := make([]time.Time, len(idx))
		var latest time.Time
		for k := len(idx) - 1; k >= 0; k-- {
			if e := s.incidents[idx[k]].EndedAt; e != nil && e.After(latest) {
				latest = *e
			}
			ends[k] = latest
		}
		s.latestEnd[slug] = ends
	}
}

// The snapshot answers /check for models too.
var _ check.ModelView = (*Snapshot)(nil)
