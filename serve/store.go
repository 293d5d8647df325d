package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
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
	status map[string]api.ServiceSummary
	// incidents are all retained incidents, newest startedAt first, with
	// each one's JSON encoding at the same index.
	incidents     []api.Incident
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
	measured map[string][]api.MeasuredModel
	// vantages are the build's vantage readings by service (sources.json).
	vantages map[string]api.Vantages
	// reliability is each service's row of reliability.json, for /check's
	// expectedResolution; empty for a snapshot written before it existed.
	reliability map[string]api.Reliability
	// catalog is the catalog the snapshot was built with (FileCatalog),
	// for /check; nil in a snapshot written before it was published, or
	// when it does not parse (catalogErr: a newer build's schema), and the
	// server's own catalog answers then. Its text is cleaned at load
	// (cleanCatalogText): a replica's is its origin's word.
	catalog    *catalog.Catalog
	catalogErr error
	// order is the services' slugs in the order of status.json.
	order []string
	// models are models.json's models by id, for /check; none in a
	// snapshot written before there were models.
	models map[string]api.ModelDoc
	// modelList is models.json's models in its order, and retirements
	// (by id) and retirementList models/retirements.json's: /check
	// answers for models found in a gateway's list and for retired ones
	// (check.LifecycleView). None in a snapshot written before them.
	modelList      []api.ModelDoc
	retirements    map[string]api.ModelRetirement
	retirementList []api.ModelRetirement
	// modelNames indexes modelList and retirementList by name, for
	// /check (check.ModelNamer).
	modelNames *check.ModelNames
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
	case snapshot.FileManifest, snapshot.FileStatus, snapshot.FileSources, snapshot.FileModels, snapshot.FileModelRetirements,
		snapshot.FileReliability, snapshot.FileIncidents, snapshot.FileDatasets, snapshot.FileChanges, snapshot.FileCatalog:
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
	s := &Snapshot{files: map[string]*representation{}, status: map[string]api.ServiceSummary{}}
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

// parse decodes the documents the dynamic routes compute from.
func (s *Snapshot) parse() error {
	var status api.StatusDoc
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
	var sources api.SourcesDoc
	if s.files[snapshot.FileSources] != nil {
		if err := decodeFile(s.files, snapshot.FileSources, &sources); err != nil {
			return err
		}
	}
	s.measured = map[string][]api.MeasuredModel{}
	s.vantages = map[string]api.Vantages{}
	for _, src := range sources.Services {
		s.measured[src.Slug] = src.Measured
		if src.Vantages != nil {
			s.vantages[src.Slug] = *src.Vantages
		}
		if at := s.status[src.Slug].LastChecked; at != nil {
			s.probes[src.Slug] = check.Live{Probe: src.Probe, At: *at}
		}
	}
	s.models = map[string]api.ModelDoc{}
	if s.files[snapshot.FileModels] != nil {
		var models api.ModelsDoc
		if err := decodeFile(s.files, snapshot.FileModels, &models); err != nil {
			return err
		}
		for _, m := range models.Models {
			s.models[m.ID] = m
		}
		s.modelList = models.Models
	}
	s.retirements = map[string]api.ModelRetirement{}
	if s.files[snapshot.FileModelRetirements] != nil {
		var doc api.RetirementsDoc
		if err := decodeFile(s.files, snapshot.FileModelRetirements, &doc); err != nil {
			return err
		}
		for _, r := range doc.Retirements {
			s.retirements[r.ID] = r
		}
		s.retirementList = doc.Retirements
	}
	s.modelNames = check.IndexModelNames(s.modelList, s.retirementList)
	s.reliability = map[string]api.Reliability{}
	if s.files[snapshot.FileReliability] != nil {
		var doc api.ReliabilityDoc
		if err := decodeFile(s.files, snapshot.FileReliability, &doc); err != nil {
			return err
		}
		for _, r := range doc.Services {
			s.reliability[r.Slug] = r.Reliability
		}
	}
	if rep := s.files[snapshot.FileCatalog]; rep != nil {
		if cat, err := catalog.Parse(rep.body); err != nil {
			s.catalogErr = err
		} else {
			cleanCatalogText(&cat) // an origin's text, as a status page's (catalog.go)
			s.catalog = &cat
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
