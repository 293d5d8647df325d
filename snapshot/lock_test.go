package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLockFolder(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the folder lock is flock(2), Linux only")
	}
	dir := filepath.Join(t.TempDir(), "public")
	first, err := LockFolder(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a second holder waits until its context ends", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if l, err := LockFolder(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
			if l != nil {
				l.Unlock()
			}
			t.Fatalf("LockFolder while held = %v, want context.DeadlineExceeded", err)
		}
	})

	t.Run("Publish without the lock fails", func(t *testing.T) {
		l := &Lock{dir: dir}
		if err := l.Publish(gen(1)); err == nil {
			t.Fatal("Publish on a lock not held succeeded")
		}
	})

	t.Run("the lock passes on after Unlock", func(t *testing.T) {
		got := make(chan error, 1)
		go func() {
			l, err := LockFolder(context.Background(), dir)
			if err == nil {
				err = l.Publish(gen(2))
				l.Unlock()
			}
			got <- err
		}()
		select {
		case err := <-got:
			t.Fatalf("second LockFolder returned %v while the first was held", err)
		case <-time.After(100 * time.Millisecond):
		}
		if err := first.Publish(gen(1)); err != nil {
			t.Fatal(err)
		}
		first.Unlock()
		first.Unlock() // a second Unlock does nothing
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		diffTree(t, "after both", tree(t, dir), expectTree(gen(2), nil))
	})
}

// TestPublishKeepsNewestCorruptHistories: history.corrupt-* files were
// carried over for good; only the newest MaxCorruptHistories stay.
func TestPublishKeepsNewestCorruptHistories(t *testing.T) {
	t.Parallel()
	corrupt := func(hour int) string {
		return CorruptHistoryName(time.Date(2026, 11, 1, hour, 0, 0, 0, time.UTC))
	}
	lookAlike := "history.corrupt-by-hand.json" // not a name Build makes: kept
	dir := filepath.Join(t.TempDir(), "public")
	mustPublish(t, dir, gen(0))
	if err := os.WriteFile(filepath.Join(dir, lookAlike), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		write []int // hours of the corrupt histories this publish writes
		want  []int // hours kept afterwards
	}{
		{"first", []int{1}, []int{1}},
		{"none written, carried over", nil, []int{1}},
		{"second", []int{2}, []int{1, 2}},
		{"third", []int{3}, []int{1, 2, 3}},
		{"fourth drops the oldest", []int{4}, []int{2, 3, 4}},
		{"carried over, still three", nil, []int{2, 3, 4}},
		{"fifth", []int{5}, []int{3, 4, 5}},
	}
	for _, tt := range tests {
		files := gen(1)
		for _, h := range tt.write {
			files[corrupt(h)] = []byte("bad")
		}
		mustPublish(t, dir, files)
		var got, want []string
		for _, name := range names(t, dir) {
			if strings.HasPrefix(name, "history.corrupt-") {
				got = append(got, name)
			}
		}
		for _, h := range tt.want {
			want = append(want, corrupt(h))
		}
		want = append(want, lookAlike)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: kept %v, want %v", tt.name, got, want)
		}
	}
}
