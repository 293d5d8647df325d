package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// Load and fault tests: real HTTP over loopback, bounded in count and time,
// and no assertion on speed — only on what every response is and on the
// server's timeouts being enforced.

// A load-test generation g is generated g seconds after genTime, and every
// service in it has the same status, which changes from one generation to the
// next. A response that mixed two snapshots would disagree with itself.
func generationAt(g int) time.Time { return genTime.Add(time.Duration(g) * time.Second) }

func generationStatus(g int) api.Status { return api.Statuses[g%len(api.Statuses)] }

// generationOf is the generation generated at t; false when t is not one.
func generationOf(t time.Time) (int, bool) {
	d := t.Sub(genTime)
	return int(d / time.Second), d >= 0 && d%time.Second == 0
}

// renderGeneration renders generation g of cat: every service in
// generationStatus(g), and one incident, "gen-<g>", that marks incidents.json.
// Only the files the server reads are written (not the status page and
// badges): publishing syncs every file, and the load test publishes 50 times.
func renderGeneration(t testing.TB, cat catalog.Catalog, g int) map[string][]byte {
	t.Helper()
	at := generationAt(g)
	h := history.New()
	h.Incidents = []api.Incident{{
		ID: fmt.Sprintf("gen-%03d", g), Service: cat.Services[0].Slug, Headline: "generation marker",
		Severity: api.Minor, StartedAt: at.Add(-time.Minute), Status: "investigating",
		Source: api.SourceOfficial, UpdatedAt: at,
	}}
	states := map[string]build.ServiceState{}
	for _, svc := range cat.Services {
		h.Track(svc.Slug).Record(at.Add(-time.Hour), generationStatus(g), new(100.0))
		h.Track(svc.Slug).Record(at, generationStatus(g), new(100.0))
		states[svc.Slug] = build.ServiceState{Status: generationStatus(g)}
	}
	docs := build.Documents(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "test"}, cat, h, states, at)
	files := map[string][]byte{}
	put := func(name string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = append(data, '\n')
	}
	put(snapshot.FileManifest, docs.Manifest)
	put(snapshot.FileStatus, docs.Status)
	put(snapshot.FileIncidents, docs.Incidents)
	for _, doc := range docs.Services {
		put(snapshot.ServiceFile(doc.Slug), doc)
	}
	return files
}

// loopbackCatalog is the embedded catalog with every probe URL pointed at a
// loopback API host served by probe (nil: answer 401 at once).
func loopbackCatalog(t testing.TB, probe http.HandlerFunc) (catalog.Catalog, *httptest.Server) {
	t.Helper()
	if probe == nil {
		probe = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }
	}
	api := httptest.NewServer(probe)
	t.Cleanup(api.Close)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	probeAt(&cat, api.URL)
	return cat, api
}

// newLoadServer publishes files into a fresh folder and returns a server
// that has loaded them; its clock stands one hour after generation 0.
func newLoadServer(t testing.TB, cat catalog.Catalog, api *httptest.Server, files map[string][]byte) (*Server, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "public")
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
	now := generationAt(0).Add(time.Hour)
	srv := New(Options{Dir: dir, Catalog: cat, Log: zerolog.Nop(), Now: func() time.Time { return now }, Client: api.Client()})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	return srv, dir
}

// serveLoopback runs srv.Serve on a loopback listener until stop is called
// (or the test ends) and returns its base URL; stop returns Serve's error.
func serveLoopback(t testing.TB, srv *Server) (base string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	stop = sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			return errors.New("Serve did not return within 20 s of its context ending")
		}
	})
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String(), stop
}

// TestLoadDuringSwaps sends 32×200 requests over real HTTP while 50 newer
// snapshots are published and two reloaders swap them in concurrently (as
// `aistatus run` does: its watcher and its build loop both reload). Every
// response must be a complete 200 JSON document from exactly one published
// generation — its headers (from snapshot.json) and every part of its body
// (from status.json, services/*.json or incidents.json) agreeing — and no
// client may ever see an older generation after a newer one.
func TestLoadDuringSwaps(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("load test")
	}
	// A fixed count of swaps and requests, never a time budget; -tags long
	// (CI's fault step) runs the full count over every service, the usual
	// run a fifth of the swaps over four services: each swap is a
	// rendering, and what a swap does with a file does not depend on which
	// service it describes (the whole catalog cost 9 s of CPU under -race).
	const clients = 32
	perClient, generations := 100, 10
	cat, api := loopbackCatalog(t, nil)
	if buildtest.Long {
		perClient, generations = 200, 50
	} else {
		cat.Services = slices.DeleteFunc(cat.Services, func(svc catalog.Service) bool {
			return !slices.Contains([]string{"openai", "anthropic", "google-gemini", "groq"}, svc.Slug)
		})
	}
	files := make([]map[string][]byte, generations+1)
	for g := range files {
		files[g] = renderGeneration(t, cat, g)
	}
	srv, dir := newLoadServer(t, cat, api, files[0])
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: clients, DisableCompression: true},
	}
	t.Cleanup(client.CloseIdleConnections)

	var (
		published  atomic.Int64 // the newest generation that may be served
		served     atomic.Int64
		pubDone    = make(chan struct{})
		reloadErrs atomic.Int64
	)
	clientsDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		for g := 1; g <= generations; g++ {
			// Keep pace with the clients too, so that the swaps are spread
			// over the requests however fast either side runs: generation g
			// waits for its share of them (or for the clients to be done).
			for need := int64((g - 1) * clients * perClient / generations); served.Load() < need; {
				select {
				case <-clientsDone:
					need = 0
				case <-time.After(time.Millisecond):
				}
			}
			published.Store(int64(g)) // before it can be loaded
			if err := snapshot.Publish(dir, files[g]); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var reloaders sync.WaitGroup
	for range 2 {
		reloaders.Go(func() {
			for {
				// A reload that keeps racing removals gives up and keeps the
				// current snapshot, as Watch does; that is not a failure.
				if _, err := srv.Store().Reload(); err != nil {
					reloadErrs.Add(1)
				}
				select {
				case <-pubDone:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		})
	}

	var (
		mu    sync.Mutex
		seen  = map[int]int{}         // generation → responses
		etags = map[string][32]byte{} // ETag → hash of the body it named
	)
	paths := []string{"/api/v1/status", "/status.json", "/api/v1/incidents", "/api/v1/incidents?limit=5"}
	for _, svc := range cat.Services {
		paths = append(paths, "/api/v1/services/"+svc.Slug, "/api/v1/check?q="+svc.Slug)
	}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			last := 0
			for i := range perClient {
				// Keep pace with the publisher, so that the requests are
				// spread over all the swaps: request i waits for generation
				// i*generations/perClient to be published (or for the end).
				for wait := i * generations / perClient; int(published.Load()) < wait; {
					select {
					case <-pubDone:
						wait = 0
					case <-time.After(time.Millisecond):
					}
				}
				path := paths[(c*7+i)%len(paths)]
				gz := (c+i)%3 == 0
				g, etag, sum, err := loadRequest(client, hs.URL+path, gz, len(cat.Services))
				served.Add(1)
				if err != nil {
					t.Errorf("%s: %v", path, err)
					return
				}
				if g < last || int64(g) > published.Load() {
					t.Errorf("%s: generation %d after %d, with %d published", path, g, last, published.Load())
					return
				}
				last = g
				mu.Lock()
				seen[g]++
				if old, ok := etags[etag]; ok && old != sum {
					t.Errorf("%s: ETag %s names two different bodies", path, etag)
				}
				etags[etag] = sum
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(clientsDone)
	<-pubDone
	reloaders.Wait()
	if t.Failed() {
		return
	}
	if _, err := srv.Store().Reload(); err != nil {
		t.Fatal(err)
	}
	if g, _, _, err := loadRequest(client, hs.URL+"/api/v1/status", false, len(cat.Services)); err != nil || g != generations {
		t.Fatalf("after the last swap: generation %d (%v), want %d", g, err, generations)
	}
	if len(seen) < 2 {
		t.Fatalf("the requests saw only generations %v: no swap happened during the load", seen)
	}
	t.Logf("%d requests saw %d of %d generations; %d reloads gave up on a folder being replaced",
		served.Load(), len(seen), generations+1, reloadErrs.Load())
}

// loadRequest fetches url and checks that the response is a 200 JSON
// document of one generation throughout. It returns the generation, the
// ETag and a hash of the (decompressed) body.
func loadRequest(client *http.Client, url string, gz bool, services int) (int, string, [32]byte, error) {
	var sum [32]byte
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", sum, err
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", sum, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", sum, err
	}
	encoded := resp.Header.Get("Content-Encoding") == "gzip"
	if encoded {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return 0, "", sum, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return 0, "", sum, err
		}
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != snapshot.ContentJSON {
		return 0, "", sum, fmt.Errorf("status %d, %s: %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	var (
		stamp    time.Time
		statuses []api.Status
		incident string // the incident that marks incidents.json
	)
	switch {
	case strings.Contains(url, "/check"):
		var doc api.CheckDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			return 0, "", sum, err
		}
		if doc.Status == nil || doc.Verdict.DataAgeSeconds == nil {
			return 0, "", sum, fmt.Errorf("incomplete check: %s", data)
		}
		// The status comes from status.json, the data age from snapshot.json.
		stamp = generationAt(0).Add(time.Hour - time.Duration(*doc.Verdict.DataAgeSeconds)*time.Second)
		statuses = []api.Status{*doc.Status}
	case strings.Contains(url, "/incidents"):
		var list api.IncidentList
		if err := json.Unmarshal(data, &list); err != nil {
			return 0, "", sum, err
		}
		if len(list.Incidents) != 1 {
			return 0, "", sum, fmt.Errorf("incidents %+v, want one", list.Incidents)
		}
		// The timestamp comes from snapshot.json, the incidents from incidents.json.
		stamp, incident = list.Timestamp, list.Incidents[0].ID
	case strings.Contains(url, "/services/"):
		var doc api.ServiceDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			return 0, "", sum, err
		}
		stamp, statuses = doc.Timestamp, []api.Status{doc.Status}
	default:
		var doc api.StatusDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			return 0, "", sum, err
		}
		if len(doc.Services) != services {
			return 0, "", sum, fmt.Errorf("%d services, want %d", len(doc.Services), services)
		}
		stamp = doc.Timestamp
		for _, s := range doc.Services {
			statuses = append(statuses, s.Status)
		}
	}
	// The time a document says it was generated names its generation; what
	// marks the generation in the document (or in the other file it was
	// computed from) must be of the same one.
	g, ok := generationOf(stamp)
	if !ok {
		return 0, "", sum, fmt.Errorf("timestamp %v is no generation", stamp)
	}
	if incident != "" && incident != fmt.Sprintf("gen-%03d", g) {
		return 0, "", sum, fmt.Errorf("incident %s in generation %d: two snapshots in one response", incident, g)
	}
	for _, s := range statuses {
		if s != generationStatus(g) {
			return 0, "", sum, fmt.Errorf("status %s in generation %d, want %s: two snapshots in one response", s, g, generationStatus(g))
		}
	}
	// The ETag of a document served whole is its body's hash: the header and
	// the body are of one representation. (/incidents derives its ETag from
	// the query and the snapshot, which the ETag map in the caller checks.)
	if !strings.Contains(url, "/incidents") {
		want := etagOf(data)
		if encoded {
			want = gzipETag(want)
		}
		if got := resp.Header.Get("ETag"); got != want {
			return 0, "", sum, fmt.Errorf("ETag %s for a body whose hash is %s", got, want)
		}
	}
	return g, resp.Header.Get("ETag"), sha256.Sum256(data), nil
}

// closedByPeer reports whether err is how a connection the server closed
// ends: EOF (io.Copy's nil) or a reset, not our own deadline.
func closedByPeer(err error) bool {
	return err == nil || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// TestSlowClientsAreCutOff opens a slowloris, a POST whose body never ends
// and a client that never reads a large response against the real server
// with short timeouts: each connection is closed by the server within its
// timeout (plus a margin), and normal requests keep succeeding meanwhile.
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault test")
	}
	cat, api := loopbackCatalog(t, nil)
	files := renderGeneration(t, cat, 0)
	// Far larger than the socket buffers (Linux allows at most 4 MiB to be
	// queued for sending by default, and a receive window stays small while
	// its reader does not read): a client that does not read it leaves the
	// server's write blocked.
	const bigSize = 32 << 20
	files["big.bin"] = make([]byte, bigSize)
	srv, _ := newLoadServer(t, cat, api, files)
	srv.timeouts = httpTimeouts{readHeader: 500 * time.Millisecond, read: time.Second, write: time.Second, idle: 2 * time.Second}
	base, _ := serveLoopback(t, srv)
	addr := strings.TrimPrefix(base, "http://")
	// Generous: the machine may be busy; what matters is that the server
	// ends the connection at all instead of holding it for as long as the
	// client likes (each case gives up after 15 s).
	const margin = 3 * time.Second

	dial := func() net.Conn {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Error(err)
			return nil
		}
		return conn
	}
	// trickle writes chunk every 100 ms until the connection is closed (or
	// 15 s pass) and returns how long it took the server to close it.
	trickle := func(conn net.Conn, start time.Time, chunk string, closed <-chan error) (time.Duration, error) {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for range 150 {
			select {
			case err := <-closed:
				return time.Since(start), err
			case <-tick.C:
				conn.Write([]byte(chunk)) // fails once the server has closed
			}
		}
		return time.Since(start), errors.New("still open after 15 s")
	}

	stopNormal := make(chan struct{})
	var normal sync.WaitGroup
	var normalOK atomic.Int64
	normal.Go(func() {
		client := &http.Client{Timeout: 10 * time.Second}
		defer client.CloseIdleConnections()
		for range 1000 {
			select {
			case <-stopNormal:
				return
			case <-time.After(20 * time.Millisecond):
			}
			resp, err := client.Get(base + "/api/v1/status")
			if err != nil {
				t.Errorf("normal request: %v", err)
				return
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("normal request: %d %v", resp.StatusCode, err)
				return
			}
			normalOK.Add(1)
		}
	})

	var slow sync.WaitGroup
	slow.Go(func() { // slowloris: header bytes one per 100 ms
		conn := dial()
		if conn == nil {
			return
		}
		defer conn.Close()
		start := time.Now()
		io.WriteString(conn, "GET /api/v1/status HTTP/1.1\r\nHost: aistatus.test\r\nX-Slow: ")
		closed := make(chan error, 1)
		go func() {
			conn.SetReadDeadline(start.Add(20 * time.Second))
			_, err := io.Copy(io.Discard, conn)
			closed <- err
		}()
		took, err := trickle(conn, start, "a", closed)
		if !closedByPeer(err) || took > srv.timeouts.readHeader+margin {
			t.Errorf("slowloris: closed after %v (%v), want within %v", took, err, srv.timeouts.readHeader+margin)
		}
	})
	slow.Go(func() { // a POST whose chunked body never ends
		conn := dial()
		if conn == nil {
			return
		}
		defer conn.Close()
		start := time.Now()
		io.WriteString(conn, "POST /api/v1/status HTTP/1.1\r\nHost: aistatus.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
		status := make(chan int, 1)
		closed := make(chan error, 1)
		go func() {
			conn.SetReadDeadline(start.Add(20 * time.Second))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				status <- 0
				closed <- err
				return
			}
			status <- resp.StatusCode
			io.Copy(io.Discard, resp.Body)
			_, err = io.Copy(io.Discard, br)
			closed <- err
		}()
		took, err := trickle(conn, start, "1\r\n{\r\n", closed)
		if code := <-status; code != http.StatusMethodNotAllowed {
			t.Errorf("endless POST: status %d, want 405", code)
		}
		if !closedByPeer(err) || took > srv.timeouts.read+margin {
			t.Errorf("endless POST: closed after %v (%v), want within %v", took, err, srv.timeouts.read+margin)
		}
	})
	slow.Go(func() { // a client that never reads a 32 MiB response
		conn := dial()
		if conn == nil {
			return
		}
		defer conn.Close()
		io.WriteString(conn, "GET /big.bin HTTP/1.1\r\nHost: aistatus.test\r\n\r\n")
		// The server's write blocks on the full buffers until its write
		// timeout, then it closes the connection.
		time.Sleep(srv.timeouts.write + margin)
		// Had the server not given up, reading now would unblock it and
		// the whole body would arrive; it stops short instead.
		conn.SetReadDeadline(time.Now().Add(15 * time.Second))
		n, err := io.Copy(io.Discard, conn)
		if !closedByPeer(err) || n >= bigSize {
			t.Errorf("non-reading client: got %d bytes (%v) after %v, want the connection cut short", n, err, srv.timeouts.write+margin)
		}
	})
	slow.Wait()
	close(stopNormal)
	normal.Wait()
	if normalOK.Load() == 0 {
		t.Error("no normal request completed while the slow clients were connected")
	}
	t.Logf("%d normal requests succeeded alongside the slow clients", normalOK.Load())
}

// TestOversizedRequests: an oversized path, header block or parameter is
// refused with 414, 431 or 400 — never a 500 — over real HTTP.
func TestOversizedRequests(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault test")
	}
	cat, api := loopbackCatalog(t, nil)
	srv, _ := newLoadServer(t, cat, api, renderGeneration(t, cat, 0))
	base, _ := serveLoopback(t, srv)
	client := &http.Client{Timeout: 10 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	long := strings.Repeat("a", 300)
	tests := []struct {
		name, target string
		header       http.Header
		status       int
		param        string // for problem responses
	}{
		{"10 KB path", "/api/v1/" + strings.Repeat("x", 10<<10), nil, http.StatusRequestURITooLong, ""},
		{"10 KB query", "/api/v1/status?pad=" + strings.Repeat("x", 10<<10), nil, http.StatusRequestURITooLong, ""},
		{"32 KB header", "/api/v1/status", http.Header{"X-Big": {strings.Repeat("b", 32<<10)}}, http.StatusRequestHeaderFieldsTooLarge, ""},
		{"300-byte since", "/api/v1/incidents?since=" + long, nil, http.StatusBadRequest, "since"},
		{"300-byte severity", "/api/v1/incidents?severity=" + long, nil, http.StatusBadRequest, "severity"},
		{"300-byte service", "/api/v1/incidents?service=" + long, nil, http.StatusBadRequest, "service"},
		{"300-byte limit", "/api/v1/incidents?limit=" + strings.Repeat("9", 300), nil, http.StatusBadRequest, "limit"},
		{"300-byte q", "/api/v1/check?q=" + long, nil, http.StatusBadRequest, "q"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, base+tt.target, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.status == http.StatusRequestHeaderFieldsTooLarge {
				return // Go's server answers this one itself, in plain text
			}
			if p := decodeProblem(t, resp); p.Param != tt.param {
				t.Errorf("param %q, want %q (%s)", p.Param, tt.param, p.Detail)
			}
		})
	}
}

// TestGracefulShutdown: a /check in flight — waiting on a live probe that
// takes 500 ms — when Serve's context ends still gets its complete 200, and
// Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault test")
	}
	probing := make(chan struct{}, 1)
	cat, apiServer := loopbackCatalog(t, func(w http.ResponseWriter, _ *http.Request) {
		select {
		case probing <- struct{}{}:
		default:
		}
		time.Sleep(500 * time.Millisecond)
		w.WriteHeader(http.StatusUnauthorized)
	})
	srv, _ := newLoadServer(t, cat, apiServer, renderGeneration(t, cat, 0))
	base, stop := serveLoopback(t, srv)

	type result struct {
		status int
		body   []byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		client := &http.Client{Timeout: 15 * time.Second}
		resp, err := client.Get(base + "/api/v1/check?q=anthropic")
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		done <- result{resp.StatusCode, data, err}
	}()
	select {
	case <-probing: // the request is in flight, waiting on the probe
	case <-time.After(15 * time.Second):
		t.Fatal("the live probe never started")
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- stop() }()

	r := <-done
	if r.err != nil || r.status != http.StatusOK {
		t.Fatalf("in-flight request: %d %v", r.status, r.err)
	}
	var doc api.CheckDoc
	if err := json.Unmarshal(r.body, &doc); err != nil || doc.LatencyMs == nil {
		t.Fatalf("in-flight request: incomplete answer %s (%v)", r.body, err)
	}
	if err := <-serveErr; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	// Shut down means shut down: no new connection is accepted.
	if resp, err := http.Get(base + "/api/v1/status"); err == nil {
		resp.Body.Close()
		t.Fatal("a request after shutdown was answered")
	}
}
