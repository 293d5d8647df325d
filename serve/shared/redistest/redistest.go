// Package redistest is a scripted Redis on loopback for tests: a RESP server
// that answers each command with whatever the test chooses, however wrong, so
// that tests can play a Redis that lies, floods or stalls.
package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Answer writes the reply to one command: cmd holds the command's words,
// the name upper-cased. It may write anything, or nothing, and may block
// until the client hangs up (a write then fails).
type Answer func(cmd []string, w io.Writer)

// Server is a fake Redis on 127.0.0.1, stopped when its test ends.
type Server struct {
	ln     net.Listener
	answer Answer

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// Start starts a server answering every command with answer.
func Start(t testing.TB, answer Answer) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{ln: ln, answer: answer, conns: map[net.Conn]bool{}}
	s.wg.Go(s.accept)
	t.Cleanup(s.close)
	return s
}

// URL is the server's address as `serve --redis` takes it.
func (s *Server) URL() string { return "redis://" + s.ln.Addr().String() + "/0" }

func (s *Server) close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Go(func() {
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			rd := bufio.NewReader(c)
			for {
				cmd, err := readCommand(rd)
				if err != nil {
					return
				}
				s.answer(cmd, c)
			}
		})
	}
}

// readCommand reads one command as clients send them: an array of bulk
// strings.
func readCommand(rd *bufio.Reader) ([]string, error) {
	n, err := readHeader(rd, '*')
	if err != nil {
		return nil, err
	}
	cmd := make([]string, 0, min(n, 64))
	for range n {
		size, err := readHeader(rd, '$')
		if err != nil {
			return nil, err
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(rd, b); err != nil {
			return nil, err
		}
		cmd = append(cmd, string(b[:size]))
	}
	if len(cmd) > 0 {
		cmd[0] = strings.ToUpper(cmd[0])
	}
	return cmd, nil
}

func readHeader(rd *bufio.Reader, kind byte) (int, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return 0, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if len(line) < 2 || line[0] != kind {
		return 0, fmt.Errorf("redistest: unexpected %q", line)
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 || n > 1<<20 {
		return 0, fmt.Errorf("redistest: bad length in %q", line)
	}
	return n, nil
}

// Handshake answers what a client sends on connecting, and PING, as a Redis
// without HELLO would (so the client speaks RESP2), and reports whether cmd
// was one of those.
func Handshake(cmd []string, w io.Writer) bool {
	switch cmd[0] {
	case "HELLO":
		io.WriteString(w, "-ERR unknown command 'HELLO'\r\n")
	case "PING":
		io.WriteString(w, "+PONG\r\n")
	case "CLIENT", "SELECT", "AUTH":
		io.WriteString(w, "+OK\r\n")
	default:
		return false
	}
	return true
}

// Replying answers the handshake and PING properly and every other command
// with reply, written as is.
func Replying(reply string) Answer {
	return func(cmd []string, w io.Writer) {
		if !Handshake(cmd, w) {
			io.WriteString(w, reply)
		}
	}
}
