//go:build !linux

package snapshot

// swapDirs replaces dir by next with two renames: a crash between them leaves
// dir missing and the previous snapshot beside it (previousName), which the
// next Publish puts back.
func swapDirs(next, dir string) error { return swapByRename(next, dir) }

// lockDir is a no-op where flock is not available: run one build at a time.
func lockDir(string) (func(), error) { return func() {}, nil }
