//go:build !long

package buildtest

// Long is true in a run built with -tags long (see long.go).
const Long = false
