package snapshot

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

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

func lockDir(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}
