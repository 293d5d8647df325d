package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// previousName is where swapByRename keeps the previous snapshot between its
// two renames. It does not match the staging pattern, so a build that
// crashed there is recovered (recoverPrevious), not cleaned away.
func previousName(dir string) string {
	return filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".previous")
}

// swapByRename moves dir aside and next into its place, then moves the
// previous snapshot to next's name for the caller to remove.
func swapByRename(next, dir string) error {
	aside := previousName(dir)
	hadPrevious := true
	if err := os.Rename(dir, aside); errors.Is(err, fs.ErrNotExist) {
		hadPrevious = false
	} else if err != nil {
		return err
	}
	if err := os.Rename(next, dir); err != nil {
		if hadPrevious {
			os.Rename(aside, dir) // put the previous snapshot back
		}
		return err
	}
	if !hadPrevious {
		return nil
	}
	return os.Rename(aside, next)
}

// recoverPrevious finishes or undoes a swapByRename that a crash cut short:
// with dir missing, the previous snapshot set aside goes back in its place;
// with dir present, the copy set aside is stale and removed.
func recoverPrevious(dir string) error {
	aside := previousName(dir)
	if _, err := os.Stat(aside); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(aside, dir)
	}
	return os.RemoveAll(aside)
}
