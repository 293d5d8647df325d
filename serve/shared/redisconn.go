package shared

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// maxRedisReply bounds what one Redis reply may make this server allocate.
// go-redis allocates what a reply announces before reading it — a string
// announced as "$107374182400" is a 100 GB make, an array of a billion
// elements 16 GB — and has no limit of its own. A reply counts the lengths
// its strings announce, its lines, and redisElementCost for each element
// its arrays, sets and maps announce; the replies this server asks for are
// a few hundred bytes, so a reply over the bound comes from a Redis that
// lies, and its connection is failed before go-redis reads the header.
const maxRedisReply = 4 << 20

// redisElementCost is what an announced element counts: go-redis makes a
// 16-byte interface slot for each element of an array, about 40 bytes for
// each entry of a map (two elements), and boxes the values.
const redisElementCost = 32

// maxRedisDepth bounds how deeply a reply's arrays and maps may nest:
// go-redis reads nested ones recursively. This server's replies nest at
// most twice (HELLO's modules).
const maxRedisDepth = 16

// errRedisReplyBound is a reply over maxRedisReply or maxRedisDepth, or one
// whose framing cannot be followed.
var errRedisReplyBound = errors.New("redis: reply out of bounds")

// boundReplies wraps a connection to Redis so that it fails, and closes,
// as soon as a reply it reads is out of bounds.
func boundReplies(c net.Conn) net.Conn {
	b := &boundedConn{Conn: c}
	if sc, ok := c.(syscall.Conn); ok {
		// go-redis peeks at an idle connection's socket to find one the
		// server closed; peeking consumes nothing, so the framing holds.
		return boundedSyscallConn{b, sc}
	}
	return b
}

// boundedConn is a connection to Redis that follows the framing of the
// replies as they arrive, ahead of go-redis's reader.
type boundedConn struct {
	net.Conn
	f   respFrames
	err error
}

func (c *boundedConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(p)
	if ferr := c.f.scan(p[:n]); ferr != nil {
		// None of this read reaches go-redis: not the header it would
		// allocate for, nor what comes before it on a connection that is
		// of no more use.
		c.err = ferr
		c.Conn.Close()
		return 0, ferr
	}
	return n, err
}

type boundedSyscallConn struct {
	*boundedConn
	sc syscall.Conn
}

func (c boundedSyscallConn) SyscallConn() (syscall.RawConn, error) { return c.sc.SyscallConn() }

// respFrames follows the framing of a stream of RESP2 and RESP3 replies:
// which bytes are a header line and which a string's payload, and where
// each reply ends, so that what a reply announces can be counted against
// maxRedisReply before go-redis reads the header that announces it.
type respFrames struct {
	// payload is how many bytes of a string (CRLF included) are still to
	// come.
	payload int
	// head is the start of the current line, long enough for a type and a
	// length; lineLen is the line's length so far.
	head    [24]byte
	lineLen int
	// open are the aggregates being read, innermost last.
	open []respAggregate
	// used is what the current reply has counted so far.
	used int
}

// respAggregate is an array, set, map, push or attribute being read.
type respAggregate struct {
	left int  // elements still to come
	attr bool // an attribute: metadata before a value, not an element
}

func (f *respFrames) scan(p []byte) error {
	for len(p) > 0 {
		if f.payload > 0 {
			k := min(f.payload, len(p))
			f.payload -= k
			p = p[k:]
			if f.payload == 0 {
				f.element()
			}
			continue
		}
		line, end := p, false
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			line, end = p[:i+1], true
		}
		if f.lineLen < len(f.head) {
			copy(f.head[f.lineLen:], line)
		}
		f.lineLen += len(line)
		if err := f.count(len(line)); err != nil {
			return err
		}
		p = p[len(line):]
		if end {
			n := f.lineLen
			f.lineLen = 0
			if err := f.header(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// count adds n to what the current reply has announced.
func (f *respFrames) count(n int) error {
	if n > maxRedisReply-f.used {
		return fmt.Errorf("%w: more than %d bytes in one reply", errRedisReplyBound, maxRedisReply)
	}
	f.used += n
	return nil
}

// header reads a complete line of n bytes, its start in f.head.
func (f *respFrames) header(n int) error {
	switch kind := f.head[0]; kind {
	case '+', '-', ':', ',', '#', '(', '_':
		// A simple string, an error, an integer, a double, a boolean, a big
		// number, a null: the line is the whole value.
		f.element()
		return nil
	case '$', '!', '=':
		// A bulk string, a bulk error, a verbatim string.
		size, err := f.length(n)
		if err != nil {
			return err
		}
		if size < 0 {
			f.element() // null
			return nil
		}
		if err := f.count(size); err != nil {
			return err
		}
		f.payload = size + 2
		return nil
	case '*', '~', '>', '%', '|':
		// An array, a set, a push, a map, an attribute.
		size, err := f.length(n)
		if err != nil {
			return err
		}
		attr := kind == '|'
		if size <= 0 {
			if !attr {
				f.element() // empty or null
			}
			return nil
		}
		if size > maxRedisReply/redisElementCost {
			return fmt.Errorf("%w: %d elements in one reply", errRedisReplyBound, size)
		}
		if kind == '%' || attr {
			size *= 2 // a key and a value each
		}
		if err := f.count(size * redisElementCost); err != nil {
			return err
		}
		if len(f.open) >= maxRedisDepth {
			return fmt.Errorf("%w: nested more than %d deep", errRedisReplyBound, maxRedisDepth)
		}
		f.open = append(f.open, respAggregate{left: size, attr: attr})
		return nil
	}
	return fmt.Errorf("%w: unknown type %q", errRedisReplyBound, f.head[0])
}

// length is the length a header line of n bytes announces: -1 for a null.
// A line that is not a type, a decimal integer and CRLF — go-redis would
// fail on it too — fails the connection: the framing cannot be followed.
func (f *respFrames) length(n int) (int, error) {
	if n < 4 || n > len(f.head) || f.head[n-2] != '\r' {
		return 0, fmt.Errorf("%w: header %q", errRedisReplyBound, f.head[:min(n, len(f.head))])
	}
	size, err := strconv.Atoi(string(f.head[1 : n-2]))
	if err != nil || size < -1 {
		return 0, fmt.Errorf("%w: header %q", errRedisReplyBound, f.head[:n])
	}
	return size, nil
}

// element records that a value is complete: an element of the innermost
// aggregate, or, outside any, a whole reply, which resets the count.
func (f *respFrames) element() {
	for len(f.open) > 0 {
		top := &f.open[len(f.open)-1]
		if top.left--; top.left > 0 {
			return
		}
		attr := top.attr
		f.open = f.open[:len(f.open)-1]
		if attr {
			return // the value it describes is still to come
		}
	}
	f.used = 0
}
