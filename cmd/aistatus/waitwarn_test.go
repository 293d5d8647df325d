package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// syncBuffer is a bytes.Buffer safe for a logger writing from one goroutine
// while a test reads from another.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logLine is the part of a JSON log line the tests look at.
type logLine struct {
	Level, Message, Dir, Reason string
}

// warnings returns the "no snapshot" warnings among the JSON log lines in out.
func warnings(t *testing.T, out string) []logLine {
	t.Helper()
	var found []logLine
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var l logLine
		if json.Unmarshal([]byte(line), &l) == nil && strings.HasPrefix(l.Message, "no snapshot to serve yet") {
			found = append(found, l)
		}
	}
	return found
}

func TestWhyNoSnapshot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	file := filepath.Join(root, "file")
	empty := filepath.Join(root, "empty")
	full := filepath.Join(root, "full")
	for _, err := range []error{
		os.WriteFile(file, nil, 0o644),
		os.Mkdir(empty, 0o755),
		os.Mkdir(full, 0o755),
		os.WriteFile(filepath.Join(full, snapshot.FileManifest), []byte("{}"), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ name, dir, want string }{
		{"missing", filepath.Join(root, "pubilc"), "the folder does not exist"},
		{"a file", file, "not a folder"},
		{"empty", empty, "the folder holds no snapshot.json"},
		{"with a manifest", full, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := whyNoSnapshot(tc.dir); got != tc.want {
				t.Errorf("whyNoSnapshot = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWarnWhileNoSnapshot runs the warner on a fake clock: it warns at
// start with the absolute path, again every interval while the folder stays
// empty, and stops for good once a snapshot is loaded.
func TestWarnWhileNoSnapshot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A relative path, as typed on the command line, is logged absolute.
		t.Chdir(t.TempDir())
		cwd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		var out syncBuffer
		log := zerolog.New(&out)
		var loaded atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			warnWhileNoSnapshot(context.Background(), log, "pubilc", loaded.Load, 30*time.Second)
		}()

		synctest.Wait()
		w := warnings(t, out.String())
		if len(w) != 1 || w[0].Level != "warn" || w[0].Dir != filepath.Join(cwd, "pubilc") || w[0].Reason != "the folder does not exist" {
			t.Fatalf("at start: %+v", w)
		}
		time.Sleep(29 * time.Second)
		synctest.Wait()
		if w := warnings(t, out.String()); len(w) != 1 {
			t.Fatalf("warned again before the interval: %+v", w)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if w := warnings(t, out.String()); len(w) != 2 {
			t.Fatalf("after one interval: %+v", w)
		}

		// The folder appears, still empty: the reason changes.
		if err := os.Mkdir("pubilc", 0o755); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if w := warnings(t, out.String()); len(w) != 3 || w[2].Reason != "the folder holds no snapshot.json" {
			t.Fatalf("empty folder: %+v", w)
		}

		// A snapshot is loaded: no more warnings, and the warner is gone.
		loaded.Store(true)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("the warner still runs after the snapshot was loaded")
		}
		if w := warnings(t, out.String()); len(w) != 3 {
			t.Fatalf("warned after the snapshot was loaded: %+v", w)
		}
	})
}

// TestWarnWhileNoSnapshotStopsWithContext: a server that shuts down before
// any snapshot arrives takes its warner with it.
func TestWarnWhileNoSnapshotStopsWithContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			warnWhileNoSnapshot(ctx, zerolog.Nop(), filepath.Join(t.TempDir(), "missing"), func() bool { return false }, 30*time.Second)
		}()
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("the warner outlived its context")
		}
	})
}
