//go:build !unix

package limits

// FDLimit is unknown where there is no getrlimit.
func FDLimit() uint64 { return 0 }
