package shared

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/serve/shared/redistest"
	"github.com/rs/zerolog"
)

// storedProbes is a Redis holding one probe result, value, kept for pttl
// more milliseconds (":-2" and "$-1" when there is none), on which this
// replica wins the probe lock whenever it asks.
func storedProbes(value, pttl string) redistest.Answer {
	return func(cmd []string, w io.Writer) {
		switch {
		case redistest.Handshake(cmd, w):
		case cmd[0] == "GET":
			io.WriteString(w, value)
		case cmd[0] == "PTTL":
			io.WriteString(w, pttl)
		case cmd[0] == "SET":
			io.WriteString(w, "+OK\r\n")
		case cmd[0] == "DEL":
			io.WriteString(w, ":1\r\n")
		default:
			io.WriteString(w, "-ERR unexpected\r\n")
		}
	}
}

// TestProbeCacheStoredValues: a stored probe result is used only when it is
// one this server could have stored: a state a probe gives, a latency
// within the probe timeout, an HTTP status, a time near this replica's
// clock, at most 16 KiB, kept by Redis for at most check.LiveTTL. Any other
// is ignored (the caller probes locally) without taking the replica off
// Redis; one announcing more than the connection bound fails the connection
// and counts as Redis failing.
func TestProbeCacheStoredValues(t *testing.T) {
	clock := newFakeClock()
	at := clock.Now().Add(-10 * time.Second)
	ms := func(v float64) *float64 { return &v }
	result := func(p api.ProbeSource, at time.Time) string {
		b, err := json.Marshal(check.Live{Probe: p, At: at})
		if err != nil {
			t.Fatal(err)
		}
		return redistest.Bulk(string(b))
	}
	good := api.ProbeSource{State: api.ProbeOK, LatencyMs: ms(120), HTTPStatus: 401}
	probed := check.Live{Probe: api.ProbeSource{State: api.ProbeFailed, Error: "refused"}, At: clock.Now()}
	for _, tc := range []struct {
		name        string
		value, pttl string
		want        check.Live // the zero Live: Fetch reports false
		wantUntil   time.Duration
		probes      int  // how many times Fetch probes
		redisDown   bool // the replica falls back
	}{
		{"a result", result(good, at), ":20000\r\n", check.Live{Probe: good, At: at}, 20 * time.Second, 0, false},
		{"a failure", result(api.ProbeSource{State: api.ProbeFailed, HTTPStatus: 503, Error: "HTTP Service Unavailable"}, at), ":30000\r\n",
			check.Live{Probe: api.ProbeSource{State: api.ProbeFailed, HTTPStatus: 503, Error: "HTTP Service Unavailable"}, At: at}, 30 * time.Second, 0, false},
		{"none", "$-1\r\n", ":-2\r\n", probed, check.LiveTTL, 1, false},
		{"one that never expires", result(good, at), ":-1\r\n", probed, check.LiveTTL, 1, false},

		{"not JSON", redistest.Bulk("{not json"), ":20000\r\n", check.Live{}, 0, 0, false},
		{"an integer", ":7\r\n", ":20000\r\n", check.Live{}, 0, 0, false},
		{"an unknown state", result(api.ProbeSource{State: "fine"}, at), ":20000\r\n", check.Live{}, 0, 0, false},
		{"a negative latency", result(api.ProbeSource{State: api.ProbeOK, LatencyMs: ms(-5), HTTPStatus: 200}, at), ":20000\r\n", check.Live{}, 0, 0, false},
		{"a latency of an hour", result(api.ProbeSource{State: api.ProbeOK, LatencyMs: ms(3.6e6), HTTPStatus: 200}, at), ":20000\r\n", check.Live{}, 0, 0, false},
		{"an HTTP status of 42", result(api.ProbeSource{State: api.ProbeOK, LatencyMs: ms(1), HTTPStatus: 42}, at), ":20000\r\n", check.Live{}, 0, 0, false},
		{"no time", result(good, time.Time{}), ":20000\r\n", check.Live{}, 0, 0, false},
		{"a time in 2100", result(good, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)), ":20000\r\n", check.Live{}, 0, 0, false},
		{"an error of 20 KiB", result(api.ProbeSource{State: api.ProbeFailed, Error: strings.Repeat("x", 20<<10)}, at), ":20000\r\n", check.Live{}, 0, 0, false},
		{"kept for a day", result(good, at), ":86400000\r\n", check.Live{}, 0, 0, false},
		{"a value of 5 MiB", "$" + strconv.Itoa(5<<20) + "\r\n", ":20000\r\n", check.Live{}, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared, clock, logs := lyingRedis(t, storedProbes(tc.value, tc.pttl))
			probes := 0
			r, until, ok := shared.ProbeCache(5*time.Second, "").Fetch("https://api.example/", func() check.Live {
				probes++
				return probed
			})
			if wantOK := tc.want != (check.Live{}); ok != wantOK || !r.At.Equal(tc.want.At) || !jsonEqual(t, r, tc.want) {
				t.Fatalf("Fetch: %.200v, %v; want %.200v, %v", r, ok, tc.want, wantOK)
			}
			if ok && !until.Equal(clock.Now().Add(tc.wantUntil)) {
				t.Errorf("reused until %v, want %v from now", until, tc.wantUntil)
			}
			if probes != tc.probes {
				t.Errorf("probed %d times, want %d", probes, tc.probes)
			}
			if down := !shared.Status().OK; down != tc.redisDown || logs.Failed() != map[bool]int32{false: 0, true: 1}[tc.redisDown] {
				t.Errorf("fallback %v, failure logged %d times; want fallback %v", down, logs.Failed(), tc.redisDown)
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b check.Live) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

// TestProbeCacheByVantage: on a real Redis, the probe cache of a vantage
// (serve --vantage) is its own. A replica at vantage a probes a URL and
// stores the result; another replica at a reuses it; a replica at b, in
// another region, probes for itself, as does a replica at no vantage: what
// a host answers one region is not what it answers every region.
func TestProbeCacheByVantage(t *testing.T) {
	url := redistest.StartReal(t).URL()
	clock := newFakeClock()
	replica := func() *Redis {
		rdb, err := NewRedisClient(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rdb.Close() })
		return NewRedis(rdb, zerolog.New(io.Discard), clock.Now)
	}
	host := "https://api.example/"
	results := map[string]check.Live{
		"a": {Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: new(80.0), HTTPStatus: 401}, At: clock.Now()},
		"b": {Probe: api.ProbeSource{State: api.ProbeFailed, Error: "connection refused"}, At: clock.Now()},
		"":  {Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: new(120.0), HTTPStatus: 401}, At: clock.Now()},
	}
	for _, step := range []struct {
		vantage string
		probes  bool // whether this replica's Fetch probes
		want    string
	}{
		{"a", true, "a"},
		{"a", false, "a"}, // another replica at a: a's result
		{"b", true, "b"},  // another region: its own probe
		{"b", false, "b"},
		{"", true, ""}, // no vantage: not a region's result
		{"a", false, "a"},
	} {
		probed := false
		got, _, ok := replica().ProbeCache(5*time.Second, step.vantage).Fetch(host, func() check.Live {
			probed = true
			return results[step.vantage]
		})
		if !ok || probed != step.probes || !jsonEqual(t, got, results[step.want]) {
			t.Errorf("at vantage %q: probed %v, got %+v (ok %v); want probed %v and %q's result", step.vantage, probed, got, ok, step.probes, step.want)
		}
	}
}
