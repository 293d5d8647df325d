package buildtest

import (
	"os"
	"runtime"
	"testing"
)

// Main runs a package's tests (call it from TestMain) with their temporary
// folders in memory where the machine offers it: Linux's /dev/shm, unless
// TMPDIR already names a folder. Every build publishes a snapshot of some
// 560 files and syncs the file system before the swap; on a disk, that sync
// flushes what every test running beside it wrote, and most of a test run
// went to it (the build package: 124 s on disk, 38 s in memory, on the same
// machine). The publishing code runs unchanged: only the disk's flush,
// which no test can observe, costs nothing.
func Main(m *testing.M) {
	dir, ok := memoryTempDir()
	if !ok {
		os.Exit(m.Run())
	}
	os.Setenv("TMPDIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// memoryTempDir makes a folder for the run under /dev/shm, when TMPDIR is
// unset and /dev/shm is there to write in.
func memoryTempDir() (string, bool) {
	if runtime.GOOS != "linux" || os.Getenv("TMPDIR") != "" {
		return "", false
	}
	dir, err := os.MkdirTemp("/dev/shm", "aistatus-test-")
	return dir, err == nil
}

// DiskDir makes a folder for a benchmark's snapshot on a disk, as a user's
// is, where Main put the temporary folders in memory: in AISTATUS_BENCH_DIR
// when set, else in the working folder (the package's). On a disk, writing
// the snapshot's files and syncing them costs the kernel what it costs a
// build run by hand, which a folder in memory hides. The folder is removed
// when the benchmark ends.
func DiskDir(tb testing.TB) string {
	tb.Helper()
	parent := os.Getenv("AISTATUS_BENCH_DIR")
	if parent == "" {
		parent = "."
	}
	dir, err := os.MkdirTemp(parent, ".bench-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
