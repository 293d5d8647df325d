package snapshot

import (
	"errors"
	"io/fs"
	"os"
)

// swapByRename moves dir aside to next's name and next into dir's place.
func swapByRename(next, dir string) error {
	aside := next + ".prev"
	if err := os.Rename(dir, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(next, dir); err != nil {
		os.Rename(aside, dir) // put the previous snapshot back
		return err
	}
	return os.Rename(aside, next)
}
