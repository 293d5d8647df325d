package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Publish makes files (slash-separated relative path → content) the new
// content of dir, all at once. Everything is written and synced into a
// staging folder beside dir, which then takes dir's place in one atomic
// rename (renameat2 RENAME_EXCHANGE on Linux). A reader, or a crash at any
// point, sees either the complete previous snapshot or the complete new one,
// never a mix or a torn file; leftovers of an interrupted build are removed
// by the next one.
//
// Top-level entries of the previous dir that the new snapshot does not write
// (a README, a CNAME file for a static host, …) are carried over, so nothing
// already published is lost.
func Publish(dir string, files map[string][]byte) (err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return err
	}
	parent, base := filepath.Split(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	unlock, err := lockDir(filepath.Join(parent, "."+base+".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if err := recoverPrevious(dir); err != nil {
		return err
	}
	removeLeftovers(parent, base)

	staging, err := os.MkdirTemp(parent, "."+base+".staging-")
	if err != nil {
		return err
	}
	defer func() {
		// After a successful swap staging holds the previous snapshot.
		os.RemoveAll(staging)
	}()
	if err := os.Chmod(staging, 0o755); err != nil {
		return err
	}
	if err := writeTree(staging, files); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := carryOver(dir, staging, files); err != nil {
		return fmt.Errorf("publish: carrying over %s: %w", dir, err)
	}
	if err := swapDirs(staging, dir); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	return syncDir(parent)
}

// removeLeftovers deletes staging folders of builds that were interrupted.
// It runs under the lock, so no other build is using them.
func removeLeftovers(parent, base string) {
	leftovers, _ := filepath.Glob(filepath.Join(parent, "."+base+".staging-*"))
	for _, l := range leftovers {
		os.RemoveAll(l)
	}
}

func writeTree(root string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		if !fs.ValidPath(name) || name == "." {
			return fmt.Errorf("invalid file name %q", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	dirs := map[string]bool{".": true}
	for _, name := range names {
		d := path.Dir(name)
		if !dirs[d] {
			if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
				return err
			}
			dirs[d] = true
		}
		if err := writeFileSync(filepath.Join(root, filepath.FromSlash(name)), files[name]); err != nil {
			return err
		}
	}
	for d := range dirs {
		if err := syncDir(filepath.Join(root, filepath.FromSlash(d))); err != nil {
			return err
		}
	}
	return nil
}

func writeFileSync(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
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
func carryOver(prev, next string, files map[string][]byte) error {
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
	for _, e := range entries {
		if written[e.Name()] {
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
			var data []byte
			if data, err = os.ReadFile(src); err == nil {
				err = writeFileSync(dst, data)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ReadHistory reads the history a previous build left in dir. A missing
// folder or file is an empty history. A file that cannot be decoded is an
// error wrapping ErrCorruptHistory; its bytes are returned so the caller can
// keep them.
func ReadHistory(dir string) (*History, []byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, FileHistory))
	if errors.Is(err, fs.ErrNotExist) {
		return NewHistory(), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	h := &History{}
	if err := json.Unmarshal(data, h); err != nil {
		return nil, data, fmt.Errorf("%w: %v", ErrCorruptHistory, err)
	}
	if h.Version != HistoryVersion {
		return nil, data, fmt.Errorf("%w: version %d, want %d", ErrCorruptHistory, h.Version, HistoryVersion)
	}
	if h.Services == nil {
		h.Services = map[string]*ServiceHistory{}
	}
	for slug, sh := range h.Services {
		if sh == nil {
			delete(h.Services, slug)
		}
	}
	return h, data, nil
}

// ErrCorruptHistory reports a history file that cannot be used.
var ErrCorruptHistory = errors.New("history file is corrupt")

// CorruptHistoryName is the file name under which an unusable history is
// kept in the next snapshot, so that no recorded data is silently dropped.
func CorruptHistoryName(now time.Time) string {
	return "history.corrupt-" + now.UTC().Format("20060102T150405Z") + ".json"
}
