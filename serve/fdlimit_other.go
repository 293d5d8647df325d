//go:build !unix

package serve

// fdLimit is unknown where there is no getrlimit.
func fdLimit() uint64 { return 0 }
