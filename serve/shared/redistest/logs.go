package redistest

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// FailLogs is a zerolog hook counting the log lines that say Redis failed,
// for the tests that make it fail: a replica must say so once, not per
// request.
type FailLogs struct{ failed atomic.Int32 }

// Run counts msg when it says Redis failed.
func (c *FailLogs) Run(_ *zerolog.Event, _ zerolog.Level, msg string) {
	if strings.HasPrefix(msg, "redis failed") {
		c.failed.Add(1)
	}
}

// Failed is how many lines said so.
func (c *FailLogs) Failed() int32 { return c.failed.Load() }

// Bulk is s as a RESP bulk string.
func Bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
