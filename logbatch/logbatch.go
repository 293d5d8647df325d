// Package logbatch writes log lines in batches, so that a busy log (the
// server's access log, one line a request) costs a copy per line rather
// than a system call under a shared lock. Every command's JSON log goes
// through it.
package logbatch

import (
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Writer gathers log lines and writes them to the underlying writer in
// batches: when Size bytes have gathered, Interval after the first line of a
// batch, at a line of level warn or above (written at once, after the lines
// before it), and on Flush.
//
// Why: the access log writes one line per request. Written one by one
// through a mutex (zerolog.SyncWriter), every request paid a write system
// call while holding a lock all requests share; at 15–20 000 requests/s on
// two cores that took a fifth of the static path's throughput
// (bench/README.md). In batches, a line costs a copy. The price is that info
// lines reach the log up to Interval late, and are lost if the process is
// killed before the batch is written; warnings and errors never wait.
//
// A Writer is safe for concurrent use; lines keep their order.
type Writer struct {
	out      io.Writer
	interval time.Duration

	mu    sync.Mutex // guards buf, timer and armed
	buf   []byte
	timer *time.Timer // made once, reset by each batch's first line
	armed bool

	outMu sync.Mutex // serialises writes to out, keeping batches in order

	// free holds written batches' buffers for reuse: grown afresh from nil,
	// a 64 KiB batch allocated twice its size in steps, which was more than
	// everything else a static response allocates.
	free chan []byte
}

// Size is the size at which a batch is written without waiting.
const Size = 64 << 10

// New returns a Writer writing to out at least every interval.
func New(out io.Writer, interval time.Duration) *Writer {
	b := &Writer{out: out, interval: interval, free: make(chan []byte, 2)}
	// One timer for every batch, armed by a batch's first line. Real time,
	// not an injected clock: it only bounds how late a line reaches the log.
	b.timer = time.AfterFunc(interval, func() { b.Flush() })
	b.timer.Stop()
	return b
}

// Write adds p (one log line, as zerolog writes them) to the batch.
func (b *Writer) Write(p []byte) (int, error) {
	return b.WriteLevel(zerolog.InfoLevel, p)
}

// WriteLevel implements zerolog.LevelWriter: a warning or an error is
// written at once, with the batch before it.
func (b *Writer) WriteLevel(level zerolog.Level, p []byte) (int, error) {
	b.mu.Lock()
	if b.buf == nil {
		select {
		case b.buf = <-b.free:
		default:
			b.buf = make([]byte, 0, Size+4<<10) // a batch and its last line, mostly
		}
	}
	b.buf = append(b.buf, p...)
	if level < zerolog.WarnLevel && len(b.buf) < Size {
		if !b.armed {
			// A timer that fires just after a flush flushes the next batch
			// early: harmless.
			b.timer.Reset(b.interval)
			b.armed = true
		}
		b.mu.Unlock()
		return len(p), nil
	}
	return len(p), b.flushLocked()
}

// Flush writes what has gathered.
func (b *Writer) Flush() error {
	b.mu.Lock()
	return b.flushLocked()
}

// flushLocked takes the batch, releases b.mu and writes it: requests keep
// appending to a new batch while the system call runs.
func (b *Writer) flushLocked() error {
	batch := b.buf
	b.buf = nil
	if b.armed {
		b.timer.Stop()
		b.armed = false
	}
	// Taken before b.mu is released, so that batches are written in the
	// order they were taken.
	b.outMu.Lock()
	b.mu.Unlock()
	defer b.outMu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	_, err := b.out.Write(batch)
	if cap(batch) <= 2*Size { // not one huge line's buffer
		select {
		case b.free <- batch[:0]:
		default:
		}
	}
	return err
}
