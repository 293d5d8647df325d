package serve

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// A snapshot's change log, read on first use (/changes?since, /events,
// point-in-time reads) from the history.json opened at load.

// changeLog is a snapshot's retained change log.
type changeLog struct {
	// changes are the entries, ids ascending, complete after since.
	changes []api.Change
	since   time.Time
	// statusChanges are each service's status changes, for ?at= (up to
	// 50 000 changes, across all services); openedAt is when the log first
	// reported each incident.
	statusChanges map[string][]api.Change
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
	changes, since, err := history.ReadChangeLog(heldHistory{s.history})
	s.history.Close()
	s.history = nil
	if err == nil {
		s.setLog(changes, since)
		return
	}
	s.logErr = err
	if err := s.loadChanges(); err != nil {
		s.log = changeLog{statusChanges: map[string][]api.Change{}, openedAt: map[string]time.Time{}}
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
	var list api.ChangeList
	if s.files[snapshot.FileChanges] != nil {
		if err := decodeFile(s.files, snapshot.FileChanges, &list); err != nil {
			return err
		}
	}
	s.setLog(list.Changes, list.LogStart)
	return nil
}

// heldHistory is the fs.FS of one file, the history.json a snapshot holds
// open, for history.ReadChangeLog: each Open reads it from its start.
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
func (s *Snapshot) setLog(changes []api.Change, since time.Time) {
	l := changeLog{changes: orderedLog(changes), since: since,
		openedAt: map[string]time.Time{}, statusChanges: map[string][]api.Change{}}
	for _, c := range l.changes {
		switch {
		case c.Type == api.ChangeStatus:
			l.statusChanges[c.Service] = append(l.statusChanges[c.Service], c)
		case c.Type == api.ChangeIncidentOpened && c.Incident != nil:
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
func orderedLog(log []api.Change) []api.Change {
	follows := func(prev, c api.Change) bool { return c.ID > prev.ID && !c.Time.Before(prev.Time) }
	inOrder := true
	for i := 1; i < len(log) && inOrder; i++ {
		inOrder = follows(log[i-1], log[i])
	}
	if inOrder {
		return log // the usual case: no copy
	}
	sorted := slices.Clone(log)
	slices.SortStableFunc(sorted, func(a, b api.Change) int { return cmp.Compare(a.ID, b.ID) })
	out := sorted[:0]
	for _, c := range sorted {
		if len(out) == 0 || follows(out[len(out)-1], c) {
			out = append(out, c)
		}
	}
	return out
}
