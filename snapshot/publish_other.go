//go:build !linux

package snapshot

import "context"

// swapDirs replaces dir by next with two renames: a crash between them leaves
// dir missing and the previous snapshot beside it (previousName), which the
// next Publish puts back.
func swapDirs(next, dir string) error { return swapByRename(next, dir) }

// syncEachFile is true where there is no syncfs: each file is synced as
// it is written.
const syncEachFile = true

func syncStaged(string) error { return nil }

// lockDir is a no-op where flock is not available: there, run one build at a
// time on a folder, or cycles can be lost.
func lockDir(context.Context, string) (func(), error) { return func() {}, nil }
