package serve

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aistatus/aistatus/logbatch"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// BenchmarkStaticLoopback serves /status.json (the path of bench/load.sh's
// ratio line) over real loopback connections —
// net/http's server, the connection caps, timeouts and our handler — beside
// the least net/http handler sending the same bytes with the same four
// headers (bench/minimal), so that a CPU profile of the whole static path
// shows what is ours and what is Go's:
//
//	go test -run '^$' -bench StaticLoopback -cpuprofile cpu.out ./serve
//	go tool pprof -top -focus 'serve\.' serve.test cpu.out
//
// Each parallel worker holds one keep-alive connection and reads every
// response fully before the next request, as wrk does.
func BenchmarkStaticLoopback(b *testing.B) {
	ts := newSynthServer(b, 1000, 0)
	body := ts.Store().Current().files[snapshot.FileStatus].body
	for _, tc := range []struct {
		name  string
		serve func(ctx context.Context, ln net.Listener)
	}{
		{"minimal", func(ctx context.Context, ln net.Listener) {
			srv := &http.Server{Handler: minimalHandler(body)}
			go func() { <-ctx.Done(); srv.Close() }()
			srv.Serve(ln)
		}},
		{"aistatus", func(ctx context.Context, ln net.Listener) { ts.Serve(ctx, ln) }},
		// The access log as `aistatus serve` writes it by default: JSON lines
		// to a file, line by line under a lock (as before BatchWriter) and
		// in batches.
		{"aistatus+accesslog-per-line", func(ctx context.Context, ln net.Listener) {
			opts := ts.opts
			opts.AccessLog, opts.Log = true, zerolog.New(zerolog.SyncWriter(logFile(b)))
			srv := New(opts)
			srv.Store().Reload()
			srv.Serve(ctx, ln)
		}},
		{"aistatus+accesslog-batched", func(ctx context.Context, ln net.Listener) {
			opts := ts.opts
			bw := logbatch.New(logFile(b), 100*time.Millisecond)
			defer bw.Flush()
			opts.AccessLog, opts.Log = true, zerolog.New(bw)
			srv := New(opts)
			srv.Store().Reload()
			srv.Serve(ctx, ln)
		}},
		// `aistatus serve` at its defaults, as bench/load.sh's ratio line
		// runs it: the rate limit on (status.json, a file, is not under
		// it), the connection caps and the access log, in batches, with
		// the command's timestamped logger.
		{"aistatus-defaults", func(ctx context.Context, ln net.Listener) {
			opts := ts.opts
			bw := logbatch.New(logFile(b), 100*time.Millisecond)
			defer bw.Flush()
			opts.AccessLog, opts.Log = true, zerolog.New(bw).With().Timestamp().Logger()
			opts.RateLimit = 30
			opts.MaxConnsPerClient, opts.MaxConns = limits.DefaultMaxConnsPerClient, limits.DefaultMaxConns
			srv := New(opts)
			srv.Store().Reload()
			srv.Serve(ctx, ln)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { tc.serve(ctx, ln) })
			defer func() { cancel(); ln.Close(); wg.Wait() }()
			req := []byte("GET /status.json HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\n\r\n")
			b.SetParallelism(8) // 8 × GOMAXPROCS connections, like wrk -c
			cpu0 := processCPU()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					b.Error(err)
					return
				}
				defer c.Close()
				r := bufio.NewReaderSize(c, 16<<10)
				for pb.Next() {
					if _, err := c.Write(req); err != nil {
						b.Error(err)
						return
					}
					if err := readResponse(r, len(body)); err != nil {
						b.Error(err)
						return
					}
				}
			})
			// On a shared machine wall time per request swings with other
			// jobs; the process's CPU time per request (server and client:
			// the client's share is the same in every case) is steadier.
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// logFile is a file for an access log, removed with the benchmark.
func logFile(b *testing.B) *os.File {
	f, err := os.Create(filepath.Join(b.TempDir(), "access.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readResponse reads one response's head and its Content-Length body,
// checking the status and size, with less work than http.ReadResponse.
func readResponse(r *bufio.Reader, want int) error {
	n, status := -1, ""
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		if status == "" {
			status = string(line)
			continue
		}
		if len(line) <= 2 {
			break
		}
		if len(line) > 16 && (line[0] == 'C' || line[0] == 'c') && string(line[:16]) == "Content-Length: " {
			n, _ = strconv.Atoi(string(line[16 : len(line)-2]))
		}
	}
	if n != want || len(status) < 12 || status[9:12] != "200" {
		return fmt.Errorf("response %q with %d bytes, want 200 with %d", status, n, want)
	}
	_, err := r.Discard(n)
	return err
}

// minimalHandler is bench/minimal's handler.
func minimalHandler(body []byte) http.Handler {
	header := http.Header{"Content-Length": {strconv.Itoa(len(body))}, "Content-Type": {snapshot.ContentJSON}}
	for _, h := range snapshot.CommonHeaders() {
		if h.Name == "License" || h.Name == "Cache-Control" || h.Name == "Access-Control-Allow-Origin" {
			header.Set(h.Name, h.Value)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for k, v := range header {
			h[k] = v
		}
		w.Write(body)
	})
}
