package redistest

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Real is a redis-server of the test's own, on a free loopback port,
// without persistence; it is killed when the test ends.
type Real struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
}

// StartReal starts a redis-server for the test, or skips the test when
// there is none (CI installs Debian's redis-server, so they run there).
func StartReal(t testing.TB) *Real {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not found: install it (apt-get install redis-server) to run the shared-state tests")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	r := &Real{t: t, port: port}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// URL is the server's address as --redis takes it.
func (r *Real) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// Start starts the server again after Stop, on the same port.
func (r *Real) Start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "warning")
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port), DisableIdentity: true})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			r.Stop()
			r.t.Fatalf("redis-server on port %d did not answer: %v", r.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (a Redis outage); Start brings it back.
func (r *Real) Stop() {
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	r.cmd = nil
}
