// Package procmem reads a process's resident memory from Linux's
// /proc/self/status, for the benchmarks that report memory: the Go heap
// figures leave out what the runtime has not returned to the system, and a
// memory budget is about what the machine sees.
package procmem

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strconv"
)

// Available reports whether the figures can be read and the peak reset.
func Available() bool {
	_, err := os.Stat("/proc/self/clear_refs")
	return err == nil
}

// MB reads a field of /proc/self/status given in kB (VmRSS, VmHWM), in MiB.
func MB(field string) (float64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok || string(name) != field {
			continue
		}
		kb, err := strconv.ParseFloat(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(value), []byte("kB")))), 64)
		if err != nil {
			return 0, err
		}
		return kb / 1024, nil
	}
	return 0, errors.New("no " + field + " in /proc/self/status")
}

// ResetPeak makes VmHWM start again from the current resident memory.
func ResetPeak() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
