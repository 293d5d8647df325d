package snapshot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Lock is the exclusive hold of one build on a snapshot folder. A build
// takes it before reading the folder's history and releases it after
// publishing: a second build on the same folder (aistatus run plus a manual
// aistatus build) waits, then reads the history the first one published,
// instead of both starting from the same history and the later publish
// silently dropping the earlier one's cycle.
type Lock struct {
	dir    string
	unlock func()
}

// lockPoll is how often a build waiting for the folder lock tries again; the
// wait is a poll so that a cancelled build stops waiting at once.
const lockPoll = 20 * time.Millisecond

// LockFolder takes the exclusive lock on the snapshot folder dir (a lock
// file beside it, so that it survives the folder being swapped), waiting for
// a build that holds it until ctx ends. The caller must Unlock it.
func LockFolder(ctx context.Context, dir string) (*Lock, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	parent, base := filepath.Split(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(ctx, filepath.Join(parent, "."+base+".lock"))
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return &Lock{dir: dir, unlock: unlock}, nil
}

// Unlock releases the lock; later calls do nothing.
func (l *Lock) Unlock() {
	if l.unlock != nil {
		l.unlock()
		l.unlock = nil
	}
}

// Publish makes files (slash-separated relative path → content) the new
// content of dir, all at once, under the folder lock (see Lock.Publish).
func Publish(dir string, files map[string][]byte) error {
	l, err := LockFolder(context.Background(), dir)
	if err != nil {
		return err
	}
	defer l.Unlock()
	return l.Publish(files)
}

// Publish makes files (slash-separated relative path → content) the new
// content of the locked folder, all at once (see Stage).
func (l *Lock) Publish(files map[string][]byte) error {
	st, err := l.Stage()
	if err != nil {
		return err
	}
	defer st.Abort()
	names := slices.Sorted(maps.Keys(files))
	for _, name := range names {
		if err := st.Put(name, files[name]); err != nil {
			return err
		}
	}
	return st.Commit()
}

// Staging is a new snapshot being written into a staging folder beside the
// locked one, file by file as it is rendered, so that a build never holds
// the whole snapshot in memory. Commit makes it the folder's content in one
// atomic rename (renameat2 RENAME_EXCHANGE on Linux); Abort, or a crash at
// any point before, leaves the previous snapshot as it was. A reader sees
// either the complete previous snapshot or the complete new one, never a
// mix or a torn file; leftovers of an interrupted build are removed by the
// next one.
//
// Top-level entries of the previous folder that the new snapshot does not
// write (a README, a CNAME file for a static host, …) are carried over at
// Commit, so nothing already published is lost — except that only the
// newest MaxCorruptHistories history.corrupt-* files are kept.
type Staging struct {
	lock *Lock
	dir  string
	// dirs are the folders made so far (slash-separated, "." the root),
	// each synced at Commit; written are the names put.
	dirs    map[string]bool
	written map[string]bool
	done    bool
	// buf is the write buffer, one for every file in turn.
	buf *bufio.Writer
}

// Stage starts a new snapshot of the locked folder. The caller must Commit
// or Abort it (Abort after Commit does nothing).
func (l *Lock) Stage() (*Staging, error) {
	if l.unlock == nil {
		return nil, errors.New("publish: folder lock not held")
	}
	parent, base := filepath.Split(l.dir)
	if err := recoverPrevious(l.dir); err != nil {
		return nil, err
	}
	removeLeftovers(parent, base)
	dir, err := os.MkdirTemp(parent, "."+base+".staging-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Staging{lock: l, dir: dir, dirs: map[string]bool{".": true}, written: map[string]bool{}}, nil
}

// Put writes one file (a slash-separated path relative to the snapshot).
// A name may be written once. Every file is on disk before Commit swaps.
func (s *Staging) Put(name string, data []byte) error {
	return s.Stream(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Stream writes one file as write produces it, so that a large file is
// never held whole. A name may be written once.
func (s *Staging) Stream(name string, write func(io.Writer) error) error {
	if s.done {
		return errors.New("publish: staging already committed or aborted")
	}
	if !fs.ValidPath(name) || name == "." {
		return fmt.Errorf("publish: invalid file name %q", name)
	}
	if s.written[name] {
		return fmt.Errorf("publish: %s is written twice", name)
	}
	if d := path.Dir(name); !s.dirs[d] {
		if err := os.MkdirAll(filepath.Join(s.dir, filepath.FromSlash(d)), 0o755); err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		for ; !s.dirs[d]; d = path.Dir(d) {
			s.dirs[d] = true
		}
	}
	if s.buf == nil {
		s.buf = bufio.NewWriterSize(nil, 64<<10)
	}
	if err := writeFileSync(filepath.Join(s.dir, filepath.FromSlash(name)), s.buf, write); err != nil {
		return fmt.Errorf("publish: %s: %w", name, err)
	}
	s.written[name] = true
	return nil
}

// Commit carries over what the previous snapshot had beside the files put,
// then swaps the staging folder in.
func (s *Staging) Commit() error {
	if s.done {
		return errors.New("publish: staging already committed or aborted")
	}
	defer s.Abort() // after a successful swap the staging folder holds the previous snapshot
	if err := carryOver(s.lock.dir, s.dir, s.written); err != nil {
		return fmt.Errorf("publish: carrying over %s: %w", s.lock.dir, err)
	}
	// Everything is on disk before the swap makes it the snapshot.
	if err := syncStaged(s.dir); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	for d := range s.dirs {
		if err := syncDir(filepath.Join(s.dir, filepath.FromSlash(d))); err != nil {
			return fmt.Errorf("publish: %w", err)
		}
	}
	if err := swapDirs(s.dir, s.lock.dir); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	parent, _ := filepath.Split(s.lock.dir)
	return syncDir(parent)
}

// Abort removes the staging folder; the previous snapshot stays.
func (s *Staging) Abort() {
	if !s.done {
		s.done = true
		os.RemoveAll(s.dir)
	}
}

// removeLeftovers deletes staging folders of builds that were interrupted.
// It runs under the lock, so no other build is using them.
func removeLeftovers(parent, base string) {
	leftovers, _ := filepath.Glob(filepath.Join(parent, "."+base+".staging-*"))
	for _, l := range leftovers {
		os.RemoveAll(l)
	}
}

// writeFileSync creates the file name with what write writes through bw
// (reset to the file), and syncs it where each file is synced
// (syncEachFile; elsewhere Commit syncs them all).
func writeFileSync(name string, bw *bufio.Writer, write func(io.Writer) error) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	bw.Reset(f)
	defer bw.Reset(nil) // hold no file
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && syncEachFile {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return err
	}
	defer d.Close()
	// Some file systems cannot sync a directory; the rename is still atomic.
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// carryOver copies the top-level entries of prev that the new snapshot does
// not write into next.
func carryOver(prev, next string, files map[string]bool) error {
	entries, err := os.ReadDir(prev)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	written := map[string]bool{}
	for name := range files {
		written[strings.SplitN(name, "/", 2)[0]] = true
	}
	dropped := oldCorruptHistories(entries, written)
	for _, e := range entries {
		if written[e.Name()] || dropped[e.Name()] {
			continue
		}
		src, dst := filepath.Join(prev, e.Name()), filepath.Join(next, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			var target string
			if target, err = os.Readlink(src); err == nil {
				err = os.Symlink(target, dst)
			}
		case e.IsDir():
			err = os.CopyFS(dst, os.DirFS(src))
		case e.Type().IsRegular():
			err = writeFileSync(dst, bufio.NewWriter(nil), func(w io.Writer) error {
				f, err := os.Open(src)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = io.Copy(w, f)
				return err
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// oldCorruptHistories picks the history.corrupt-* files of the previous
// snapshot not to carry over: all but the newest MaxCorruptHistories,
// counting those the new snapshot writes. Their names sort by time.
func oldCorruptHistories(prev []fs.DirEntry, written map[string]bool) map[string]bool {
	var names []string
	for name := range written {
		if isCorruptHistoryName(name) {
			names = append(names, name)
		}
	}
	for _, e := range prev {
		if !written[e.Name()] && e.Type().IsRegular() && isCorruptHistoryName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) <= MaxCorruptHistories {
		return nil
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	drop := map[string]bool{}
	for _, name := range names[MaxCorruptHistories:] {
		if !written[name] {
			drop[name] = true
		}
	}
	return drop
}

// MaxCorruptHistories is how many history.corrupt-* files a snapshot keeps,
// the newest: enough to repair the latest by hand, and a bound, because each
// is as large as a history and, carried over from snapshot to snapshot, they
// would otherwise pile up for good (a clock that keeps jumping ahead adds
// one per build).
const MaxCorruptHistories = 3

// corruptHistoryLayout is the time in a corrupt history's name: fixed width,
// so that the names sort by time.
const corruptHistoryLayout = "20060102T150405Z"

// CorruptHistoryName is the file name under which an unusable history is
// kept in the next snapshot, so that no recorded data is silently dropped.
func CorruptHistoryName(now time.Time) string {
	return "history.corrupt-" + now.UTC().Format(corruptHistoryLayout) + ".json"
}

// isCorruptHistoryName reports a name CorruptHistoryName made. Other files,
// even named alike by hand, are carried over as any other file is.
func isCorruptHistoryName(name string) bool {
	stamp, ok := strings.CutPrefix(name, "history.corrupt-")
	if !ok {
		return false
	}
	stamp, ok = strings.CutSuffix(stamp, ".json")
	if !ok {
		return false
	}
	_, err := time.Parse(corruptHistoryLayout, stamp)
	return err == nil
}
