package snapshot

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestLockFolder(t *testing.T) {
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
