package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// noSnapshotWarnEvery is how often serve repeats that it still has no
// snapshot: often enough to be seen in a log tail, rarely enough not to
// drown it.
const noSnapshotWarnEvery = 30 * time.Second

// warnWhileNoSnapshot warns at once and then every interval, until ctx ends
// or loaded reports a snapshot, whenever dir does not exist or holds no
// snapshot manifest. Serving 503 until a builder fills the folder is right;
// doing it silently is not: a typo in --dir would look like a build that
// never finishes. The path is logged absolute, as a relative one hides which
// working directory it was taken from.
//
// A folder that holds a manifest the server has not loaded yet is not
// warned about: the watcher loads it within one reload interval, or logs why
// it cannot.
func warnWhileNoSnapshot(ctx context.Context, log zerolog.Logger, dir string, loaded func() bool, interval time.Duration) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if loaded() {
			return
		}
		if reason := whyNoSnapshot(abs); reason != "" {
			log.Warn().Str("dir", abs).Str("reason", reason).
				Msg("no snapshot to serve yet: the API answers 503 until a build publishes one in --dir (a typo in --dir?)")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// whyNoSnapshot says why dir cannot hold a snapshot, or "" when it holds a
// manifest.
func whyNoSnapshot(dir string) string {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "the folder does not exist"
	case err != nil:
		return err.Error()
	case !fi.IsDir():
		return "not a folder"
	}
	switch _, err := os.Stat(filepath.Join(dir, snapshot.FileManifest)); {
	case errors.Is(err, fs.ErrNotExist):
		return "the folder holds no " + snapshot.FileManifest
	case err != nil:
		return err.Error()
	}
	return ""
}
