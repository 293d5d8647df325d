package serve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/snapshot"
)

// Snapshot is one generated snapshot folder, held in memory: every file as
// ready-to-send representations, plus the parsed data the dynamic routes need.
// A Snapshot is never modified after Load; a newer one replaces it whole.
type Snapshot struct {
	Manifest snapshot.Manifest
	// files are the files served, by path: Load and a replica's sync leave
	// out what is not served (notServed), so a name found here is served.
	files map[string]*representation
	// status is status.json parsed, for /check.
	status map[string]snapshot.ServiceSummary
	// incidents are all retained incidents, newest startedAt first, with
	// each one's JSON encoding at the same index.
	incidents     []snapshot.Incident
	incidentsJSON [][]byte
	// byService lists each service's incidents as indexes into incidents,
	// in the same order: a service filter, the usual /incidents query,
	// scans only that service's share of up to 100 000.
	byService map[string][]int
	// openByService lists each service's open incidents the same way: /check
	// cites them on every request, and they may be anywhere in the list.
	openByService map[string][]int
	// latestEnd[slug][k] is the latest end of the service's ended incidents
	// from byService[slug][k] on (zero when none): a ?at= read stops where
	// every older incident had ended by then.
	latestEnd map[string][]time.Time
	// probes are each service's probe of the latest build, from its service
	// document, for /check: a live probe older than it is not the freshest
	// word.
	probes map[string]check.Live
	// measured are each service's measured completions, from sources.json.
	measured map[string][]snapshot.MeasuredModel
	// reliability is each service's row of reliability.json, for /check's
	// expectedResolution; empty for a snapshot written before it existed.
	reliability map[string]snapshot.Reliability
	// order is the services' slugs in the order of status.json.
	order []string
	// models are models.json's models by id, for /check; none in a
	// snapshot written before there were models.
	models map[string]snapshot.ModelDoc
	// log is the retained change log: read it through changeLog, which
	// reads a local folder's history.json on first use (see loadLog).
	log     changeLog
	logOnce sync.Once
	// history, when set, is the history.json of the folder the snapshot
	// was loaded from, opened at Load and read on first use: the
	// descriptor keeps the file of this snapshot even after a build
	// swapped the folder out and removed it. An unread one is closed by the
	// os.File's cleanup when the snapshot is collected.
	history *os.File
	// logErr is why history.json could not be read, if it could not;
	// logErrReported makes the server log it once.
	logErr         error
	logErrReported atomic.Bool
	// histories are each service's daily rows, for /history.
	histories map[string]serviceDays
	// frames are changes as the event stream sends them, each encoded once
	// for every stream (see eventFrames).
	frames eventFrames
}

// notServed are files of a snapshot folder that the server keeps to itself:
// the history is the generator's state, large and of no use over HTTP (a
// static host publishes it: the scheduled rebuild restores it from there).
func notServed(name string) bool {
	base := path.Base(name)
	// _headers and _redirects are rules for static hosts, not content.
	return strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || strings.HasPrefix(base, "history.")
}

// Load reads a snapshot folder. The folder is opened once and read through
// that handle, so a snapshot swapped in by a concurrent build is never mixed
// with the one being read; a read that races the old folder's removal fails
// and is retried by the caller.
func Load(dir string) (*Snapshot, error) { return load(dir, largeFileBytes) }

// largeFileBytes: a file of this size or more that the server only sends
// stays on disk (heldOnDisk). At the retention cap those are the dataset's
// monthly incident files, about 10 MB each, fetched rarely and in full.
const largeFileBytes = 4 << 20

// heldOnDisk tells whether the snapshot's file name, size bytes, is served
// from its open descriptor rather than from memory: a large file the
// server never reads itself. The documents it decodes or edits stay in
// memory, and so do the service documents, the hot path.
func heldOnDisk(name string, size, large int64) bool {
	if size < large || strings.HasPrefix(name, snapshot.DirServices+"/") {
		return false
	}
	switch name {
	case snapshot.FileManifest, snapshot.FileStatus, snapshot.FileSources, snapshot.FileModels,
		snapshot.FileReliability, snapshot.FileIncidents, snapshot.FileDatasets, snapshot.FileChanges:
		return false
	}
	return true
}

// load is Load keeping the files of large bytes or more on disk.
func load(dir string, large int64) (*Snapshot, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	fsys := root.FS()

	manifestData, err := fs.ReadFile(fsys, snapshot.FileManifest)
	if err != nil {
		return nil, fmt.Errorf("no snapshot in %s yet: %w", dir, err)
	}
	s := &Snapshot{files: map[string]*representation{}, status: map[string]snapshot.ServiceSummary{}}
	if err := json.Unmarshal(manifestData, &s.Manifest); err != nil {
		return nil, fmt.Errorf("%s: %w", snapshot.FileManifest, err)
	}
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Dot-folders are private (staging, locks), except .well-known
			// (RFC 8615), which holds the API catalog.
			if name != "." && strings.HasPrefix(d.Name(), ".") && name != wellKnown {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || notServed(name) {
			return nil
		}
		if info, err := d.Info(); err == nil && heldOnDisk(name, info.Size(), large) {
			rep, err := openRepresentation(root, name)
			if err != nil {
				return err
			}
			s.files[name] = rep
			return nil
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		s.files[name] = newRepresentation(data, snapshot.ContentTypeOf(name))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.parse(); err != nil {
		return nil, err
	}
	history, err := root.Open(snapshot.FileHistory)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No history (a folder written before it existed): the recent log
		// of changes.json, small, read now as a replica's is.
		if err := s.loadChanges(); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		s.history = history
	}
	return s, nil
}

// changeLog is a snapshot's retained change log.
type changeLog struct {
	// changes are the entries, ids ascending, complete after since.
	changes []snapshot.Change
	since   time.Time
	// statusChanges are each service's status changes, for ?at= (up to
	// 50 000 changes, across all services); openedAt is when the log first
	// reported each incident.
	statusChanges map[string][]snapshot.Change
	openedAt      map[string]time.Time
}

// changeLog returns the snapshot's change log, reading it on first use:
// decoding history.json's log (50 000 changes in 51 MB at the retention
// cap, most of it the incidents) took 0.4 s of the 1.2 s a full-retention
// snapshot took to be ready, for the routes that need all of it — /changes
// with since or limit, the event stream and ?at= — not for /status or a
// service (BenchmarkLoadFullRetention). Safe for concurrent use.
func (s *Snapshot) changeLog() *changeLog {
	s.logOnce.Do(s.loadLog)
	return &s.log
}

// changeLog is snap's change log, logging once why history.json's could
// not be read when it could not.
func (s *Server) changeLog(snap *Snapshot) *changeLog {
	log := snap.changeLog()
	if snap.logErr != nil && snap.logErrReported.CompareAndSwap(false, true) {
		s.opts.Log.Error().Err(snap.logErr).Time("generatedAt", snap.Manifest.GeneratedAt).
			Msg("change log not read; answering from changes.json's recent log")
	}
	return log
}

// loadLog reads history.json's log. One that cannot be read or decoded
// leaves the snapshot with changes.json's recent log, as a replica has,
// which says where it begins; the server logs why (Server.changeLog).
func (s *Snapshot) loadLog() {
	if s.history == nil {
		return // read at load (a replica, a folder without history.json)
	}
	changes, since, err := snapshot.ReadChangeLog(heldHistory{s.history})
	s.history.Close()
	s.history = nil
	if err == nil {
		s.setLog(changes, since)
		return
	}
	s.logErr = err
	if err := s.loadChanges(); err != nil {
		s.log = changeLog{statusChanges: map[string][]snapshot.Change{}, openedAt: map[string]time.Time{}}
	}
}

// openRepresentation opens the folder's file name as a representation
// served from its descriptor.
func openRepresentation(root *os.Root, name string) (*representation, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", name)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	rep, err := newFileRepresentation(f, info.Size(), snapshot.ContentTypeOf(name))
	if err != nil {
		f.Close()
		return nil, err
	}
	return rep, nil
}

// loadChanges reads the recent change log of changes.json: the log of a
// snapshot without a history (a replica of a published site fetches none),
// or whose history could not be read. Without changes.json it is empty.
func (s *Snapshot) loadChanges() error {
	var list snapshot.ChangeList
	if s.files[snapshot.FileChanges] != nil {
		if err := decodeFile(s.files, snapshot.FileChanges, &list); err != nil {
			return err
		}
	}
	s.setLog(list.Changes, list.LogStart)
	return nil
}

// heldHistory is the fs.FS of one file, the history.json a snapshot holds
// open, for snapshot.ReadChangeLog: each Open reads it from its start.
type heldHistory struct{ f *os.File }

func (h heldHistory) Open(name string) (fs.File, error) {
	if name != snapshot.FileHistory {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	info, err := h.f.Stat()
	if err != nil {
		return nil, err
	}
	return heldFile{io.NewSectionReader(h.f, 0, info.Size()), info}, nil
}

// heldFile reads a held file from its start; closing it leaves the
// descriptor open.
type heldFile struct {
	*io.SectionReader
	info fs.FileInfo
}

func (f heldFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f heldFile) Close() error               { return nil }

// setLog makes changes, complete after since, the snapshot's change log,
// with the indexes ?at= reads.
func (s *Snapshot) setLog(changes []snapshot.Change, since time.Time) {
	l := changeLog{changes: orderedLog(changes), since: since,
		openedAt: map[string]time.Time{}, statusChanges: map[string][]snapshot.Change{}}
	for _, c := range l.changes {
		switch {
		case c.Type == snapshot.ChangeStatus:
			l.statusChanges[c.Service] = append(l.statusChanges[c.Service], c)
		case c.Type == snapshot.ChangeIncidentOpened && c.Incident != nil:
			l.openedAt[c.Incident.ID] = c.Time
		}
	}
	s.log = l
}

// orderedLog returns the change log as every reader of it assumes it is:
// ids ascending and unique, times never going back, which the binary
// searches of /changes?since, the event stream's resume and ?at= rely on.
// Our own builds write it so; a log that is not (a hostile or broken origin's
// changes.json, a hand-edited history) is sorted by id, and an entry that
// repeats an id or goes back in time is dropped rather than believed.
func orderedLog(log []snapshot.Change) []snapshot.Change {
	follows := func(prev, c snapshot.Change) bool { return c.ID > prev.ID && !c.Time.Before(prev.Time) }
	inOrder := true
	for i := 1; i < len(log) && inOrder; i++ {
		inOrder = follows(log[i-1], log[i])
	}
	if inOrder {
		return log // the usual case: no copy
	}
	sorted := slices.Clone(log)
	slices.SortStableFunc(sorted, func(a, b snapshot.Change) int { return cmp.Compare(a.ID, b.ID) })
	out := sorted[:0]
	for _, c := range sorted {
		if len(out) == 0 || follows(out[len(out)-1], c) {
			out = append(out, c)
		}
	}
	return out
}

// parse decodes the documents the dynamic routes compute from.
func (s *Snapshot) parse() error {
	var status snapshot.StatusDoc
	if err := decodeFile(s.files, snapshot.FileStatus, &status); err != nil {
		return err
	}
	for _, sum := range status.Services {
		s.status[sum.Slug] = sum
		s.order = append(s.order, sum.Slug)
		if s.files[snapshot.ServiceFile(sum.Slug)] == nil {
			return fmt.Errorf("snapshot incomplete: %s is missing", snapshot.ServiceFile(sum.Slug))
		}
	}
	// The build's probes, from sources.json (small, where the service
	// documents carry every incident): optional, as an older snapshot may
	// not have it.
	s.probes = map[string]check.Live{}
	var sources snapshot.SourcesDoc
	if s.files[snapshot.FileSources] != nil {
		if err := decodeFile(s.files, snapshot.FileSources, &sources); err != nil {
			return err
		}
	}
	s.measured = map[string][]snapshot.MeasuredModel{}
	for _, src := range sources.Services {
		s.measured[src.Slug] = src.Measured
		if at := s.status[src.Slug].LastChecked; at != nil {
			s.probes[src.Slug] = check.Live{Probe: src.Probe, At: *at}
		}
	}
	s.models = map[string]snapshot.ModelDoc{}
	if s.files[snapshot.FileModels] != nil {
		var models snapshot.ModelsDoc
		if err := decodeFile(s.files, snapshot.FileModels, &models); err != nil {
			return err
		}
		for _, m := range models.Models {
			s.models[m.ID] = m
		}
	}
	s.reliability = map[string]snapshot.Reliability{}
	if s.files[snapshot.FileReliability] != nil {
		var doc snapshot.ReliabilityDoc
		if err := decodeFile(s.files, snapshot.FileReliability, &doc); err != nil {
			return err
		}
		for _, r := range doc.Services {
			s.reliability[r.Slug] = r.Reliability
		}
	}
	rep := s.files[snapshot.FileIncidents]
	if rep == nil {
		return fmt.Errorf("snapshot incomplete: %s is missing", snapshot.FileIncidents)
	}
	var err error
	if s.incidents, s.incidentsJSON, err = decodeIncidents(rep.body); err != nil {
		return fmt.Errorf("%s: %w", snapshot.FileIncidents, err)
	}
	s.indexIncidents()
	s.markImmutable()
	s.loadHistories()
	return nil
}

// decodeIncidents decodes incidents.json's list, newest first, with each
// incident's JSON: the file's own bytes, which the build writes with
// json.Marshal (compact, as /incidents sends them), so the list is neither
// encoded again nor held twice; only an incident that is not valid UTF-8
// is encoded again, and an indented one compacted. Encoding 100 000
// incidents again took a third of a second at load and held another 37 MB
// (BenchmarkLoadFullRetention). Anything after the list is only checked to
// be JSON.
func decodeIncidents(body []byte) ([]snapshot.Incident, [][]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var (
		list []snapshot.Incident
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
			var inc snapshot.Incident
			if err := dec.Decode(&inc); err != nil {
				return nil, nil, err
			}
			// The offset before an element is at the comma that precedes it.
			raw := bytes.TrimLeft(body[start:dec.InputOffset()], ", \t\r\n")
			switch {
			case !utf8.Valid(raw):
				// Unmarshal replaced what was not UTF-8; send what it read.
				if raw, err = json.Marshal(inc); err != nil {
					return nil, nil, err
				}
			case bytes.IndexByte(raw, '\n') >= 0:
				// Indented (compact JSON has no raw newline, not even in
				// its strings): compacted, as /incidents sends its list.
				var buf bytes.Buffer
				if err := json.Compact(&buf, raw); err != nil {
					return nil, nil, err
				}
				raw = buf.Bytes()
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

// sortIncidents orders list newest first (snapshot.SortIncidents) and raws,
// each incident's JSON, with it. Our builds write them in that order.
func sortIncidents(list []snapshot.Incident, raws [][]byte) {
	if slices.IsSortedFunc(list, snapshot.CompareIncidents) {
		return
	}
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return snapshot.CompareIncidents(list[a], list[b]) })
	sortedList, sortedRaws := make([]snapshot.Incident, len(list)), make([][]byte, len(list))
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

func decodeFile(files map[string]*representation, name string, v any) error {
	rep := files[name]
	if rep == nil {
		return fmt.Errorf("snapshot incomplete: %s is missing", name)
	}
	// Unmarshal reads the body in place; a Decoder would copy all of it
	// into a buffer it grows step by step (33 MB of incidents.json at the
	// retention cap).
	if err := json.Unmarshal(rep.body, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Age is how old the snapshot is at now, never negative, and whether its
// data must be called stale. A snapshot generated more than
// snapshot.MaxClockSkew in the future was written by a generator whose clock
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
// than snapshot.MaxClockSkew ahead of it.
func futureBeyondSkew(generatedAt, now time.Time) bool {
	return generatedAt.Sub(now) > snapshot.MaxClockSkew
}

// BuildProbe is the service's probe in the latest build (check.View).
func (s *Snapshot) BuildProbe(slug string) (check.Live, bool) {
	p, ok := s.probes[slug]
	return p, ok
}

// Model is a watched model's entry of models.json (check.ModelView).
func (s *Snapshot) Model(id string) (snapshot.ModelDoc, bool) {
	m, ok := s.models[id]
	return m, ok
}

// Measured is the service's measured completions in the latest build
// (check.View).
func (s *Snapshot) Measured(slug string) []snapshot.MeasuredModel { return s.measured[slug] }

// Reliability is the service's row of reliability.json (check.View).
func (s *Snapshot) Reliability(slug string) (snapshot.Reliability, bool) {
	r, ok := s.reliability[slug]
	return r, ok
}

// GeneratedAt is when the snapshot was built (check.View).
func (s *Snapshot) GeneratedAt() time.Time { return s.Manifest.GeneratedAt }

// Summary is a service's entry of status.json (check.View).
func (s *Snapshot) Summary(slug string) (snapshot.ServiceSummary, bool) {
	sum, ok := s.status[slug]
	return sum, ok
}

// OpenIncidents are a service's open incidents, newest first (check.View),
// from the index kept at load: /check cites them on every request.
func (s *Snapshot) OpenIncidents(slug string) []*snapshot.Incident {
	var open []*snapshot.Incident
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
func (s *Snapshot) IncidentsSince(slug string, since time.Time) (int, *snapshot.Incident) {
	idx := s.byService[slug]
	n := sort.Search(len(idx), func(k int) bool { return s.incidents[idx[k]].StartedAt.Before(since) })
	if n == 0 {
		return 0, nil
	}
	return n, &s.incidents[idx[0]]
}

// wellKnown is the one dot-folder of a snapshot that is served.
const wellKnown = ".well-known"

// Store holds the current snapshot and swaps in newer ones atomically.
type Store struct {
	dir string
	cur atomic.Pointer[Snapshot]
	// reloading makes concurrent Reloads (aistatus run has two: the watcher
	// and the build loop) take turns, so that a slow one never stores the
	// snapshot it read over a newer one that another stored meanwhile.
	reloading sync.Mutex
	// swapped, when set, is called after each swap (the event stream's
	// subscribers are woken to send the new snapshot's changes).
	swapped func()
}

// NewStore returns a store for the snapshot folder dir. It holds no snapshot
// until Reload succeeds.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// set makes next the current snapshot and tells the event streams. The
// caller holds st.reloading.
func (st *Store) set(next *Snapshot) {
	st.cur.Store(next)
	if st.swapped != nil {
		st.swapped()
	}
	if next.heldBytes() >= freeAfterSwapBytes {
		// The snapshot replaced is garbage now, as large as next, and so is
		// what building next took. Left to itself the collector frees it
		// only once the heap has grown to twice what it was at its last
		// cycle (run during the build, with both snapshots live), and gives
		// the pages back to the system slowly: a replica stayed at the
		// swap's peak, three times its live heap, and climbed on later
		// swaps (BenchmarkOriginSwapMemory). A collection now, with the
		// pages returned, costs well under a second once per swap: the
		// heap is mostly bytes, which the collector does not scan.
		debug.FreeOSMemory()
	}
}

// freeAfterSwapBytes: swapping in a snapshot holding this many bytes or
// more returns the memory of the one it replaced at once (see set). A
// snapshot of a few thousand incidents holds a few MB, where the collector's
// own pace is fine; at the retention cap (100 000 incidents) one holds
// about 166 MiB.
const freeAfterSwapBytes = 32 << 20

// heldBytes is what the snapshot's files take in memory when it is swapped
// in: their bodies (the gzip variants are made later, by the requests).
func (s *Snapshot) heldBytes() int64 {
	var n int64
	for _, rep := range s.files {
		n += int64(len(rep.body))
	}
	return n
}

// OnSwap adds f to what is called after each snapshot swap (the MCP server
// of aistatus mcp tells its subscribed clients). f runs while the swap holds
// the store's reload lock, so it must return quickly: hand slow work to a
// goroutine. Call it before Watch or Reload runs, not concurrently with them.
func (s *Server) OnSwap(f func()) {
	prev := s.store.swapped
	s.store.swapped = func() {
		if prev != nil {
			prev()
		}
		f()
	}
}

// Current returns the snapshot being served, or nil when none is loaded yet.
func (st *Store) Current() *Snapshot { return st.cur.Load() }

// Reload loads the folder's snapshot if it is newer than the current one and
// reports whether it swapped. A folder without a snapshot yet is not an error.
func (st *Store) Reload() (bool, error) {
	st.reloading.Lock()
	defer st.reloading.Unlock()
	cur := st.cur.Load()
	if cur != nil {
		var m snapshot.Manifest
		data, err := os.ReadFile(filepath.Join(st.dir, snapshot.FileManifest))
		if err == nil && json.Unmarshal(data, &m) == nil && m.GeneratedAt.Equal(cur.Manifest.GeneratedAt) {
			return false, nil
		}
	}
	var (
		next *Snapshot
		err  error
	)
	// A build may remove the folder being read; the next attempt reads the new one.
	for attempt := 0; attempt < 3; attempt++ {
		if next, err = Load(st.dir); err == nil {
			break
		}
		if errors.Is(err, fs.ErrNotExist) && cur == nil && attempt == 0 {
			if _, statErr := os.Stat(filepath.Join(st.dir, snapshot.FileManifest)); errors.Is(statErr, fs.ErrNotExist) {
				return false, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return false, err
	}
	st.set(next)
	return true, nil
}

// Watch reloads the snapshot every interval until ctx ends; with an
// Origin, it syncs from the origin every poll of the Origin instead.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	if s.opts.Origin != nil {
		s.opts.Origin.Run(ctx, s.store)
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.reload()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) reload() {
	swapped, err := s.store.Reload()
	s.dirSource.polled(s.opts.Now(), swapped, err)
	switch {
	case err != nil:
		s.opts.Log.Error().Err(err).Str("dir", s.opts.Dir).Msg("snapshot not loaded; serving the previous one")
	case swapped:
		m := s.store.Current().Manifest
		s.opts.Log.Info().Time("generatedAt", m.GeneratedAt).Msg("snapshot loaded")
	}
}

// The snapshot answers /check for models too.
var _ check.ModelView = (*Snapshot)(nil)
