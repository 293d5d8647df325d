package limits

import (
	"context"
	"io"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/serve/shared"
	"github.com/aistatus/aistatus/serve/shared/redistest"
	"github.com/rs/zerolog"
)

// lyingRedis is a Redis that answers every command but the handshake with
// answer, and the shared state of a replica using it, on a clock that only
// moves when told.
func lyingRedis(t *testing.T, answer redistest.Answer) (*shared.Redis, *rlFakeClock, *redistest.FailLogs) {
	t.Helper()
	rdb, err := shared.NewRedisClient(redistest.Start(t, answer).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	clock, logs := newRLFakeClock(), &redistest.FailLogs{}
	conn := shared.NewRedis(rdb, zerolog.New(io.Discard).Hook(logs), clock.Now)
	if !conn.Status().OK {
		t.Fatal("the fake Redis does not answer PING")
	}
	return conn, clock, logs
}

// gcraReply is the rate-limit script's reply as Redis encodes it: allowed
// and remaining as integers, retry-after and reset in seconds as strings.
func gcraReply(allowed, remaining int, retryAfter, reset string) string {
	return "*4\r\n:" + strconv.Itoa(allowed) + "\r\n:" + strconv.Itoa(remaining) + "\r\n" + redistest.Bulk(retryAfter) + redistest.Bulk(reset)
}

// TestRedisLimiterBadReplies: a reply to the rate-limit script that is not
// the script's — another type, another shape, figures out of range — never
// reaches the client (no panic, no negative or absurd RateLimit figure): the
// limiter treats it as Redis failing, logs that once, and decides with the
// local limiter until Redis is tried again.
func TestRedisLimiterBadReplies(t *testing.T) {
	for _, tc := range []struct{ name, reply string }{
		{"status instead of the figures", "+OK\r\n"},
		{"integer", ":1\r\n"},
		{"nil", "$-1\r\n"},
		{"empty array", "*0\r\n"},
		{"three figures", "*3\r\n:1\r\n:29\r\n$2\r\n-1\r\n"},
		{"figures of the wrong types", "*4\r\n$1\r\n1\r\n:29\r\n:-1\r\n:2\r\n"},
		{"nested array", "*4\r\n*0\r\n:29\r\n$2\r\n-1\r\n$1\r\n2\r\n"},
		{"negative remaining", gcraReply(1, -5, "-1", "2")},
		{"remaining over the limit", gcraReply(1, 31, "-1", "2")},
		{"allowed twice", gcraReply(2, 29, "-1", "2")},
		{"negative reset", gcraReply(1, 29, "-1", "-2")},
		{"reset of a day", gcraReply(1, 29, "-1", "86400")},
		{"reset not a number", gcraReply(1, 29, "-1", "soon")},
		{"reset NaN", gcraReply(1, 29, "-1", "nan")},
		{"reset infinite", gcraReply(1, 29, "-1", "inf")},
		{"denied with no retry-after", gcraReply(0, 0, "-1", "60")},
		{"denied with a retry-after of a day", gcraReply(0, 0, "86400", "60")},
		{"allowed with a retry-after", gcraReply(1, 29, "5", "2")},
		{"error reply", "-ERR something\r\n"},
		{"garbage", "hello\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, clock, logs := lyingRedis(t, redistest.Replying(tc.reply))
			l := NewRedisLimiter(conn, NewRateLimiter(30, time.Minute, 100, clock.Now), 30, time.Minute)
			key := netip.MustParseAddr("192.0.2.1")
			for i := range 3 {
				want := Decision{Allowed: true, Limit: 30, Window: time.Minute, Remaining: 29 - i, Reset: time.Duration(i+1) * 2 * time.Second}
				if d := l.Decide(context.Background(), key); d != want {
					t.Fatalf("request %d: %+v, want the local limiter's %+v", i+1, d, want)
				}
			}
			if st := conn.Status(); st.OK {
				t.Errorf("status %v after a bad reply, want the fallback", st)
			}
			if n := logs.Failed(); n != 1 {
				t.Errorf("the failure was logged %d times, want once", n)
			}
		})
	}
}

// TestRedisLimiterGoodReplies: replies in range, including the rounding of
// Redis's clock at the edges, are the decision.
func TestRedisLimiterGoodReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		want  Decision
	}{
		{"first request", gcraReply(1, 29, "-1", "2"),
			Decision{Allowed: true, Limit: 30, Window: time.Minute, Remaining: 29, Reset: 2 * time.Second}},
		{"last of the burst", gcraReply(1, 0, "-1", "60"),
			Decision{Allowed: true, Limit: 30, Window: time.Minute, Remaining: 0, Reset: time.Minute}},
		{"reset a hair over the window", gcraReply(1, 0, "-1", "60.00000006"),
			Decision{Allowed: true, Limit: 30, Window: time.Minute, Remaining: 0, Reset: time.Minute}},
		{"denied", gcraReply(0, 0, "1.5", "59.5"),
			Decision{Limit: 30, Window: time.Minute, Reset: 59500 * time.Millisecond, RetryAfter: 1500 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, clock, _ := lyingRedis(t, redistest.Replying(tc.reply))
			l := NewRedisLimiter(conn, NewRateLimiter(30, time.Minute, 100, clock.Now), 30, time.Minute)
			if d := l.Decide(context.Background(), netip.MustParseAddr("192.0.2.1")); d != tc.want {
				t.Fatalf("%+v, want %+v", d, tc.want)
			}
			if st := conn.Status(); !st.OK {
				t.Fatalf("status %v", st)
			}
		})
	}
}

// endless writes head, then a never-ending line, until the client hangs
// up.
func endless(head string) redistest.Answer {
	return func(cmd []string, w io.Writer) {
		if redistest.Handshake(cmd, w) {
			return
		}
		chunk := []byte(strings.Repeat("a", 64<<10))
		if _, err := io.WriteString(w, head); err != nil {
			return
		}
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

// TestRedisReplyAllocation: a reply announcing more than the bound of a
// connection shared.NewRedisClient makes — a 100 GB string, a billion
// elements, a line that never ends — fails the connection before go-redis
// allocates it: the rate limit falls back, the
// process allocates nothing near what was announced (a 100 GB string used
// to end the process with "fatal error: runtime: out of memory"), and
// Redis counts as down. So does a reply that stops halfway.
func TestRedisReplyAllocation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer redistest.Answer
	}{
		{"a 1 GiB string", redistest.Replying("$1073741824\r\n")},
		{"an array of 100 million elements", redistest.Replying("*100000000\r\n")},
		{"a map of 50 million entries", redistest.Replying("%50000000\r\n")},
		{"arrays of a million elements nested", redistest.Replying(strings.Repeat("*1000000\r\n", 200))},
		{"a line that never ends", endless("+")},
		{"a string that never ends", endless("$100000000000\r\n")},
		{"a reply that stops halfway", redistest.Replying("*4\r\n:1\r\n:29\r\n$2\r\n-")},
		{"a 100 GB string", redistest.Replying("$107374182400\r\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, clock, logs := lyingRedis(t, tc.answer)
			l := NewRedisLimiter(conn, NewRateLimiter(30, time.Minute, 100, clock.Now), 30, time.Minute)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d := l.Decide(context.Background(), netip.MustParseAddr("192.0.2.1"))
			runtime.ReadMemStats(&after)
			if want := (Decision{Allowed: true, Limit: 30, Window: time.Minute, Remaining: 29, Reset: 2 * time.Second}); d != want {
				t.Errorf("%+v, want the local limiter's %+v", d, want)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
				t.Errorf("the request allocated %d MiB", n>>20)
			}
			if conn.Status().OK || logs.Failed() != 1 {
				t.Errorf("status %v, failure logged %d times; want the fallback, logged once", conn.Status(), logs.Failed())
			}
		})
	}
}
