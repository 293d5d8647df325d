package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// syncEachFile is false on Linux: syncStaged flushes the staging folder's
// whole file system at once, which costs a build far less (one journal
// commit instead of one per file: 90 ms of CPU for 560 files) and also
// covers what was carried over.
const syncEachFile = false

// syncStaged writes everything under dir to disk with syncfs(2).
func syncStaged(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}

// swapDirs makes next appear at dir in one atomic step. When dir exists, the
// two are exchanged (so that the previous snapshot ends up at next, to be
// removed); otherwise next is simply renamed.
func swapDirs(next, dir string) error {
	err := unix.Renameat2(unix.AT_FDCWD, next, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOENT):
		if _, statErr := os.Stat(dir); errors.Is(statErr, fs.ErrNotExist) {
			return os.Rename(next, dir)
		}
		return err
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		// The file system cannot exchange: fall back to two renames.
		return swapByRename(next, dir)
	default:
		return err
	}
}

// lockDir takes an exclusive flock on the file name, polling until ctx ends.
// Each call opens the file anew, so two builds in one process exclude each
// other as two processes do (flock locks belong to the open file).
func lockDir(ctx context.Context, name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	var tick *time.Ticker
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, err
		}
		if tick == nil {
			tick = time.NewTicker(lockPoll)
			defer tick.Stop()
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another build: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}
