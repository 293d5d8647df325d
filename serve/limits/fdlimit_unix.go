//go:build unix

package limits

import "syscall"

// fdLimit is the process's soft limit on open files, 0 when unknown.
func fdLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return rl.Cur
}
