package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// staticOrigin is a static host over a snapshot folder, as GitHub Pages or
// a CDN serves the published site: files by path, with an ETag per content
// (and Last-Modified) and 304s.
// tamper, when set, may answer a request in place of the files.
type staticOrigin struct {
	*httptest.Server
	dir    string
	cat    catalog.Catalog
	tamper atomic.Pointer[func(w http.ResponseWriter, r *http.Request) bool]
	// requests counts the GETs of each path.
	mu       sync.Mutex
	requests map[string]int
}

func newStaticOrigin(t *testing.T) *staticOrigin {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// Three services: what a replica does with a file does not depend on
	// which service it describes, and each sync of the whole catalog's
	// 560 files cost these tests a second under -race.
	cat.Services = slices.DeleteFunc(cat.Services, func(svc catalog.Service) bool {
		return !slices.Contains([]string{"openai", "anthropic", "google-gemini"}, svc.Slug)
	})
	o := &staticOrigin{dir: filepath.Join(t.TempDir(), "site"), cat: cat, requests: map[string]int{}}
	files := siteHandler(o.dir)
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.requests[r.URL.Path]++
		o.mu.Unlock()
		if f := o.tamper.Load(); f != nil && (*f)(w, r) {
			return
		}
		files(w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

// siteHandler serves the folder dir as a static host does.
func siteHandler(dir string) func(w http.ResponseWriter, r *http.Request) {
	files := http.FileServer(http.Dir(dir))
	return func(w http.ResponseWriter, r *http.Request) {
		// The file server answers If-None-Match from an ETag set beforehand.
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.URL.Path))); err == nil {
			w.Header().Set("ETag", fmt.Sprintf(`"%x"`, sha256.Sum256(data)))
		}
		files.ServeHTTP(w, r)
	}
}

// publish renders a snapshot generated at at into the origin's folder.
func (o *staticOrigin) publish(t *testing.T, at time.Time) snapshot.Manifest {
	t.Helper()
	return publishManifest(t, o.dir, o.cat, at)
}

// publishManifest renders a snapshot generated at at into dir and returns
// its manifest.
func publishManifest(t *testing.T, dir string, cat catalog.Catalog, at time.Time) snapshot.Manifest {
	t.Helper()
	publishTestSnapshot(t, dir, cat, at)
	data, err := os.ReadFile(filepath.Join(dir, snapshot.FileManifest))
	if err != nil {
		t.Fatal(err)
	}
	var m snapshot.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (o *staticOrigin) count(path string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.requests[path]
}

func (o *staticOrigin) setTamper(f func(w http.ResponseWriter, r *http.Request) bool) {
	if f == nil {
		o.tamper.Store(nil)
		return
	}
	o.tamper.Store(&f)
}

// newTestOrigin follows url. Its timeouts are generous: no test waits for
// them, and a sync of some 560 files under the race detector, beside other
// tests, took more than 5 s.
func newTestOrigin(t testing.TB, url string, clock *testClock, poll time.Duration) *Origin {
	t.Helper()
	o, err := NewOrigin(OriginOptions{URL: url, Client: &http.Client{Timeout: 30 * time.Second}, Poll: poll,
		Log: zerolog.Nop(), Now: clock.Now, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// replica is a thin server reading the snapshot from an origin, on a real
// loopback listener, polling until the test ends.
type replica struct {
	*Server
	hs     *httptest.Server
	origin *Origin
}

func startReplica(t *testing.T, origin *staticOrigin, clock *testClock, poll time.Duration) *replica {
	t.Helper()
	o := newTestOrigin(t, origin.URL, clock, poll)
	srv := New(Options{Catalog: origin.cat, Log: zerolog.Nop(), Now: clock.Now, Origin: o})
	hs := httptest.NewServer(srv.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { srv.Watch(ctx, poll) })
	t.Cleanup(func() { cancel(); wg.Wait(); hs.Close() })
	return &replica{Server: srv, hs: hs, origin: o}
}

// health GETs path (/healthz or /readyz) and decodes the answer.
func (r *replica) health(t *testing.T, path string) (int, Health) {
	t.Helper()
	resp, err := http.Get(r.hs.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("%s: Cache-Control %q, want no-store", path, cc)
	}
	return resp.StatusCode, h
}

// statusTimestamp is the timestamp of the status document the replica serves.
func (r *replica) statusTimestamp(t *testing.T) time.Time {
	t.Helper()
	resp, err := http.Get(r.hs.URL + snapshot.PathStatus)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", snapshot.PathStatus, resp.StatusCode)
	}
	var doc api.StatusDoc
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Timestamp
}

// replicaHang bounds the waits for the replicas' polls. It is no estimate
// of how long a poll takes (on a loaded machine, under the race detector, a
// sync of the whole set can take seconds): only a replica stuck for good
// reaches it.
const replicaHang = time.Minute

// waitReplicas waits until ok holds for every replica, and returns how long
// that took; it fails the test, saying what was awaited, after replicaHang.
func waitReplicas(t *testing.T, replicas []*replica, what string, ok func(*replica) bool) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		done := 0
		for _, r := range replicas {
			if ok(r) {
				done++
			}
		}
		if done == len(replicas) {
			return time.Since(start)
		}
		if time.Since(start) > replicaHang {
			t.Fatalf("%d of %d replicas %s after %v", done, len(replicas), what, replicaHang)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGeneration waits until every replica serves generation gen, and
// returns how long that took.
func waitGeneration(t *testing.T, replicas []*replica, gen string) time.Duration {
	t.Helper()
	return waitReplicas(t, replicas, "serve generation "+gen, func(r *replica) bool {
		cur := r.Store().Current()
		return cur != nil && cur.Manifest.Generation == gen
	})
}

// waitSource waits until every replica's last poll of the origin, as its
// health reports it, satisfies ok.
func waitSource(t *testing.T, replicas []*replica, what string, ok func(SourceHealth) bool) {
	t.Helper()
	waitReplicas(t, replicas, what, func(r *replica) bool { return ok(r.origin.Health()) })
}

// TestReplicasFollowOrigin is the loopback proof of "many edge replicas, one
// truth": three replicas of one static origin converge on each new
// snapshot, never swap in a torn publish, and keep serving their last good
// copy when the origin dies, reporting it stale once it is. Each step waits
// for the polls it is about (their outcome in the store or in the source's
// health), never for a guessed time: how long convergence took is logged,
// not asserted, since on a loaded machine it says more about the machine.
func TestReplicasFollowOrigin(t *testing.T) {
	t.Parallel()
	const poll = 250 * time.Millisecond
	origin := newStaticOrigin(t)
	clock := newTestClock(genTime.Add(time.Minute))
	first := origin.publish(t, genTime)
	var replicas []*replica
	for range 3 {
		replicas = append(replicas, startReplica(t, origin, clock, poll))
	}
	waitGeneration(t, replicas, first.Generation)
	for i, r := range replicas {
		code, h := r.health(t, snapshot.PathReadyz)
		if code != http.StatusOK || !h.Ready || h.Source.Kind != "origin" || h.Source.Location != origin.URL+"/" ||
			h.Snapshot == nil || h.Snapshot.Generation != first.Generation || h.SharedState.InUse {
			t.Fatalf("replica %d /readyz: %d %+v", i, code, h)
		}
	}

	// A new snapshot at the origin: all three take it at their next poll.
	clock.Set(genTime.Add(6 * time.Minute))
	second := origin.publish(t, genTime.Add(5*time.Minute))
	took := waitGeneration(t, replicas, second.Generation)
	t.Logf("three replicas converged on the new snapshot in %v (poll %v)", took, poll)
	for i, r := range replicas {
		if ts := r.statusTimestamp(t); !ts.Equal(genTime.Add(5 * time.Minute)) {
			t.Errorf("replica %d serves status of %v", i, ts)
		}
	}
	// Unchanged polls are conditional: the manifest answers 304, and files
	// whose hash did not change were not fetched again.
	if n := origin.count("/" + snapshot.FileOpenAPI); n != len(replicas) {
		t.Errorf("openapi.json (same in both snapshots) fetched %d times by %d replicas", n, len(replicas))
	}

	// A torn publish: a file of the new set does not match its manifest.
	// (The manifest is held back while the test tears the file, so that no
	// replica catches the complete set in between. The publish starts once
	// every replica has been refused the manifest: a poll begun before the
	// hold could still be about to read it.)
	origin.setTamper(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/"+snapshot.FileManifest {
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	waitSource(t, replicas, "refused the manifest", func(h SourceHealth) bool {
		return strings.Contains(h.LastError, "503")
	})
	third := origin.publish(t, genTime.Add(10*time.Minute))
	torn := filepath.Join(origin.dir, snapshot.ServiceFile("openai"))
	data, err := os.ReadFile(torn)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(torn, []byte(strings.Replace(string(data), "degraded", "operatio", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	origin.setTamper(nil)
	// Every replica fetches the torn set and refuses it.
	waitSource(t, replicas, "refused the torn set", func(h SourceHealth) bool {
		return strings.Contains(h.LastError, "sha256")
	})
	for i, r := range replicas {
		if gen := r.Store().Current().Manifest.Generation; gen != second.Generation {
			t.Fatalf("replica %d swapped in the torn set (%s)", i, gen)
		}
		code, h := r.health(t, snapshot.PathReadyz)
		if code != http.StatusOK || h.Source.ConsecutiveFailures == 0 || !strings.Contains(h.Source.LastError, "sha256") {
			t.Errorf("replica %d during the torn publish: %d, source %+v", i, code, h.Source)
		}
	}
	// The publish completes: the replicas take it.
	if err := os.WriteFile(torn, data, 0o644); err != nil {
		t.Fatal(err)
	}
	waitGeneration(t, replicas, third.Generation)
	// The sync that swapped it in records its success just after the swap.
	waitSource(t, replicas, "recorded the repaired sync", func(h SourceHealth) bool {
		return h.ConsecutiveFailures == 0
	})

	// The origin dies. The replicas keep serving what they hold; they are
	// ready while it is fresh, and not ready once it is stale.
	origin.Close()
	waitSource(t, replicas, "failed to reach the closed origin", func(h SourceHealth) bool {
		return h.ConsecutiveFailures > 0
	})
	for i, r := range replicas {
		if ts := r.statusTimestamp(t); !ts.Equal(genTime.Add(10 * time.Minute)) {
			t.Errorf("replica %d, origin down: serves status of %v", i, ts)
		}
		code, h := r.health(t, snapshot.PathReadyz)
		if code != http.StatusOK || h.Source.LastError == "" || h.Source.ConsecutiveFailures == 0 || h.Source.SecondsSinceSuccess == nil {
			t.Errorf("replica %d, origin down, data fresh: %d %+v", i, code, h.Source)
		}
	}
	clock.Set(genTime.Add(10*time.Minute + 16*time.Minute)) // stale after 15 min
	for i, r := range replicas {
		code, h := r.health(t, snapshot.PathReadyz)
		if code != http.StatusServiceUnavailable || h.Ready || h.Snapshot == nil || !h.Snapshot.Stale ||
			len(h.Reasons) != 1 || !strings.Contains(h.Reasons[0], "stale") {
			t.Errorf("replica %d, origin down, data stale: /readyz %d %+v", i, code, h)
		}
		if code, _ := r.health(t, snapshot.PathHealthz); code != http.StatusOK {
			t.Errorf("replica %d: /healthz %d while serving", i, code)
		}
		if ts := r.statusTimestamp(t); !ts.Equal(genTime.Add(10 * time.Minute)) {
			t.Errorf("replica %d, stale: serves status of %v", i, ts)
		}
	}
}

// TestOriginRefusesBadSets checks each way a set can be wrong: the sync
// fails, says why, and the snapshot served stays the last good one.
func TestOriginRefusesBadSets(t *testing.T) {
	t.Parallel()
	origin := newStaticOrigin(t)
	clock := newTestClock(genTime.Add(time.Minute))
	good := origin.publish(t, genTime)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the replica followed a redirect to another host: %s", r.URL)
	}))
	defer other.Close()

	status := "/" + snapshot.FileStatus
	for _, tc := range []struct {
		name   string
		tamper func(w http.ResponseWriter, r *http.Request) bool
		opts   func(*OriginOptions)
		want   string
	}{
		{name: "origin down", tamper: func(w http.ResponseWriter, r *http.Request) bool {
			w.WriteHeader(http.StatusBadGateway)
			return true
		}, want: "502"},
		{name: "a file missing", tamper: func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == status {
				http.NotFound(w, r)
				return true
			}
			return false
		}, want: "404"},
		{name: "a file of another generation", tamper: func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == status {
				fmt.Fprint(w, `{"status":"ok"}`)
				return true
			}
			return false
		}, want: "bytes"},
		{name: "a body longer than listed", tamper: func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == status {
				w.Write(make([]byte, 10<<20))
				return true
			}
			return false
		}, want: "bytes"},
		{name: "manifest over the cap", opts: func(o *OriginOptions) { o.MaxManifestBytes = 100 }, want: "cap"},
		{name: "file over the cap", opts: func(o *OriginOptions) { o.MaxFileBytes = 100 }, want: "cap"},
		{name: "set over the cap", opts: func(o *OriginOptions) { o.MaxTotalBytes = 10_000 }, want: "cap"},
		{name: "manifest edited", tamper: func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == "/"+snapshot.FileManifest {
				m := good
				m.Files = m.Files[1:]
				json.NewEncoder(w).Encode(m)
				return true
			}
			return false
		}, want: "does not match its file list"},
		{name: "redirect to another host", tamper: func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == status {
				http.Redirect(w, r, other.URL+status, http.StatusFound)
				return true
			}
			return false
		}, want: "another host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := OriginOptions{URL: origin.URL, Client: &http.Client{}, Log: zerolog.Nop(), Now: clock.Now}
			if tc.opts != nil {
				tc.opts(&opts)
			}
			o, err := NewOrigin(opts)
			if err != nil {
				t.Fatal(err)
			}
			origin.setTamper(tc.tamper)
			defer origin.setTamper(nil)
			st := NewStore("")
			if swapped, err := o.Sync(context.Background(), st); swapped || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("first sync: swapped %v, error %v; want an error with %q", swapped, err, tc.want)
			}
			if st.Current() != nil {
				t.Fatal("a bad set was swapped in")
			}
			if h := o.Health(); h.LastSuccess != nil || h.ConsecutiveFailures != 1 || h.LastError == "" {
				t.Errorf("health after a failed sync: %+v", h)
			}
			// The same origin repaired: the next sync takes the set.
			origin.setTamper(nil)
			if tc.opts == nil {
				if swapped, err := o.Sync(context.Background(), st); !swapped || err != nil {
					t.Fatalf("sync after the repair: %v %v", swapped, err)
				}
				if st.Current().Manifest.Generation != good.Generation {
					t.Fatal("wrong generation after the repair")
				}
			}
		})
	}
}

// TestOriginKeepsSnapshotOnFailure checks that with a good snapshot served,
// a bad new set leaves it in place, and an older generation (a CDN edge
// behind the others) is not taken.
func TestOriginKeepsSnapshotOnFailure(t *testing.T) {
	t.Parallel()
	origin := newStaticOrigin(t)
	clock := newTestClock(genTime.Add(time.Minute))
	origin.publish(t, genTime.Add(-5*time.Minute))
	oldManifest, err := os.ReadFile(filepath.Join(origin.dir, snapshot.FileManifest))
	if err != nil {
		t.Fatal(err)
	}
	good := origin.publish(t, genTime)
	o := newTestOrigin(t, origin.URL, clock, time.Second)
	st := NewStore("")
	if swapped, err := o.Sync(context.Background(), st); !swapped || err != nil {
		t.Fatal(swapped, err)
	}
	// Unchanged: one conditional request, a 304, nothing else fetched.
	before := origin.count("/" + snapshot.FileStatus)
	if swapped, err := o.Sync(context.Background(), st); swapped || err != nil {
		t.Fatal(swapped, err)
	}
	if origin.count("/"+snapshot.FileStatus) != before {
		t.Error("an unchanged manifest fetched the files again")
	}

	next := origin.publish(t, genTime.Add(time.Minute))
	origin.setTamper(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/"+snapshot.FileIncidents {
			w.Header().Set("Content-Length", "5")
			w.Write([]byte("{}\n"))
			return true
		}
		return false
	})
	if swapped, err := o.Sync(context.Background(), st); swapped || err == nil {
		t.Fatalf("a cut file: swapped %v, %v", swapped, err)
	}
	if gen := st.Current().Manifest.Generation; gen != good.Generation {
		t.Fatalf("serving %s after a failed sync, want the last good %s", gen, good.Generation)
	}
	origin.setTamper(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/"+snapshot.FileManifest {
			w.Write(oldManifest)
			return true
		}
		return false
	})
	if swapped, err := o.Sync(context.Background(), st); swapped || err == nil || !strings.Contains(err.Error(), "older") {
		t.Fatalf("an older manifest: swapped %v, %v", swapped, err)
	}
	origin.setTamper(nil)
	if swapped, err := o.Sync(context.Background(), st); !swapped || err != nil || st.Current().Manifest.Generation != next.Generation {
		t.Fatalf("after the repair: swapped %v, %v", swapped, err)
	}
}

// TestOriginFollowsWhatTheOriginPublishes replays, one Sync per poll, what
// an origin offers when a generator's clock was wrong, a cache lags or an
// operator rolls back. A set dated impossibly far ahead is never served as
// current; a set dated ahead must not freeze the replica (every genuine set
// after it looks older); a cache behind, answering between answers of the
// current set, never takes the replica back; and /readyz tells the truth
// about what is served all along.
func TestOriginFollowsWhatTheOriginPublishes(t *testing.T) {
	t.Parallel()
	origin := newStaticOrigin(t)
	at := func(d time.Duration) time.Time { return genTime.Add(d) }
	y2030 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	// The sets the origin may offer, each in its own folder, by name.
	handlers := map[string]func(http.ResponseWriter, *http.Request){}
	names := map[string]string{} // generation → name
	for name, generated := range map[string]time.Time{"t0": at(0), "t5": at(5 * time.Minute),
		"t7": at(7 * time.Minute), "t8": at(8 * time.Minute), "t9": at(9 * time.Minute), "2030": y2030} {
		dir := filepath.Join(t.TempDir(), name)
		names[publishManifest(t, dir, origin.cat, generated).Generation] = name
		handlers[name] = siteHandler(dir)
	}
	type poll struct {
		offer   string    // the set the origin serves
		now     time.Time // the replica's clock
		serving string    // the set served after the poll
		err     string    // in the poll's error; "" for none
		ready   bool      // /readyz answers 200 after the poll
	}
	for _, tc := range []struct {
		name  string
		polls []poll
	}{
		{name: "a set dated 2030 is refused, the next genuine one served", polls: []poll{
			{offer: "t0", now: at(time.Minute), serving: "t0", ready: true},
			{offer: "2030", now: at(2 * time.Minute), serving: "t0", err: "ahead of this replica's clock", ready: true},
			{offer: "2030", now: at(3 * time.Minute), serving: "t0", err: "ahead of this replica's clock", ready: true},
			{offer: "t5", now: at(6 * time.Minute), serving: "t5", ready: true},
		}},
		{name: "a set served while this clock read 2030 gives way once the clock is right", polls: []poll{
			{offer: "t0", now: at(time.Minute), serving: "t0", ready: true},
			{offer: "2030", now: y2030.Add(time.Minute), serving: "2030", ready: true},
			{offer: "2030", now: at(4 * time.Minute), serving: "2030", ready: false},
			{offer: "t5", now: at(6 * time.Minute), serving: "t5", ready: true},
		}},
		{name: "a set 3 minutes ahead holds the next ones back 2 polls at most", polls: []poll{
			{offer: "t0", now: at(time.Minute), serving: "t0", ready: true},
			{offer: "t9", now: at(6 * time.Minute), serving: "t9", ready: true},
			{offer: "t7", now: at(7 * time.Minute), serving: "t9", err: "older", ready: true},
			{offer: "t7", now: at(7*time.Minute + 30*time.Second), serving: "t9", err: "older", ready: true},
			{offer: "t8", now: at(8 * time.Minute), serving: "t8", ready: true},
		}},
		{name: "a cache behind, between answers of the current set, never takes the replica back", polls: []poll{
			{offer: "t0", now: at(time.Minute), serving: "t0", ready: true},
			{offer: "t5", now: at(6 * time.Minute), serving: "t5", ready: true},
			{offer: "t0", now: at(6*time.Minute + 30*time.Second), serving: "t5", err: "older", ready: true},
			{offer: "t0", now: at(7 * time.Minute), serving: "t5", err: "older", ready: true},
			{offer: "t5", now: at(7*time.Minute + 30*time.Second), serving: "t5", ready: true},
			{offer: "t0", now: at(8 * time.Minute), serving: "t5", err: "older", ready: true},
			{offer: "t0", now: at(8*time.Minute + 30*time.Second), serving: "t5", err: "older", ready: true},
			{offer: "t5", now: at(9 * time.Minute), serving: "t5", ready: true},
		}},
		{name: "a rollback at the origin is followed on the third poll", polls: []poll{
			{offer: "t0", now: at(time.Minute), serving: "t0", ready: true},
			{offer: "t5", now: at(6 * time.Minute), serving: "t5", ready: true},
			{offer: "t0", now: at(7 * time.Minute), serving: "t5", err: "older", ready: true},
			{offer: "t0", now: at(7*time.Minute + 30*time.Second), serving: "t5", err: "older", ready: true},
			{offer: "t0", now: at(8 * time.Minute), serving: "t0", ready: true},
			{offer: "t7", now: at(8 * time.Minute), serving: "t7", ready: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newTestClock(genTime)
			o := newTestOrigin(t, origin.URL, clock, time.Second)
			srv := New(Options{Catalog: origin.cat, Log: zerolog.Nop(), Now: clock.Now, Origin: o})
			hs := httptest.NewServer(srv.Handler())
			defer hs.Close()
			r := &replica{Server: srv, hs: hs}
			defer origin.setTamper(nil)
			for i, p := range tc.polls {
				serve := handlers[p.offer]
				origin.setTamper(func(w http.ResponseWriter, r *http.Request) bool { serve(w, r); return true })
				clock.Set(p.now)
				_, err := o.Sync(context.Background(), srv.Store())
				if (err == nil) != (p.err == "") || err != nil && !strings.Contains(err.Error(), p.err) {
					t.Errorf("poll %d (%s offered): error %v, want %q", i, p.offer, err, p.err)
				}
				gen := srv.Store().Current().Manifest.Generation
				if names[gen] != p.serving {
					t.Fatalf("poll %d (%s offered): serving %s, want %s", i, p.offer, names[gen], p.serving)
				}
				ready, h := r.health(t, snapshot.PathReadyz)
				live, lh := r.health(t, snapshot.PathHealthz)
				if (ready == http.StatusOK) != p.ready || live != http.StatusOK || h.Ready != p.ready || lh.Ready != p.ready ||
					h.Snapshot.Generation != gen || lh.Snapshot.Generation != gen {
					t.Errorf("poll %d (%s offered): /readyz %d %+v, /healthz %d %+v; want ready %v serving %s",
						i, p.offer, ready, h, live, lh, p.ready, p.serving)
				}
			}
		})
	}
}

// TestFetchFileReadsTheListedBytes: a file is read into a buffer of its
// listed size, and a body of any other length is refused.
func TestFetchFileReadsTheListedBytes(t *testing.T) {
	t.Parallel()
	var body atomic.Pointer[[]byte]
	// Sent without a length, so that only the read can tell.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		w.Write(*body.Load())
	}))
	defer srv.Close()
	o := newTestOrigin(t, srv.URL, newTestClock(genTime), time.Second)
	listed := []byte(`{"status":"ok"}`)
	for _, tc := range []struct {
		name   string
		listed []byte
		sent   []byte
		want   string // in the error; "" for none
	}{
		{name: "the listed bytes", listed: listed, sent: listed},
		{name: "an empty file", listed: []byte{}, sent: []byte{}},
		{name: "one byte short", listed: listed, sent: listed[:len(listed)-1], want: "bytes or more received"},
		{name: "one byte more", listed: listed, sent: append(slices.Clone(listed), '\n'), want: "bytes or more received"},
		{name: "much more", listed: listed, sent: make([]byte, 1<<20), want: "bytes or more received"},
		{name: "nothing", listed: listed, sent: []byte{}, want: "bytes or more received"},
		{name: "the same length, other bytes", listed: listed, sent: []byte(`{"status":"no"}`), want: "sha256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body.Store(&tc.sent)
			sum := sha256.Sum256(tc.listed)
			data, err := o.fetchFile(context.Background(), snapshot.ManifestFile{Path: "f.json", Size: int64(len(tc.listed)), SHA256: fmt.Sprintf("%x", sum)})
			if tc.want == "" {
				if err != nil || !bytes.Equal(data, tc.listed) {
					t.Fatalf("got %q, %v; want %q", data, err, tc.listed)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestNewOriginRejectsBadURLs(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "ftp://example.com/", "example.com", "https://example.com/?x=1", "http://"} {
		if _, err := NewOrigin(OriginOptions{URL: u}); err == nil {
			t.Errorf("NewOrigin(%q) accepted", u)
		}
	}
	o, err := NewOrigin(OriginOptions{URL: "https://owner.github.io/repo"})
	if err != nil {
		t.Fatal(err)
	}
	if got := o.base.JoinPath(snapshot.FileManifest).String(); got != "https://owner.github.io/repo/snapshot.json" {
		t.Errorf("manifest of a project site at %s", got)
	}
}

// TestReplicaOfReplica: another instance's files are an origin too (a
// regional tier reading from a central one), conditional requests included.
func TestReplicaOfReplica(t *testing.T) {
	t.Parallel()
	const poll = 200 * time.Millisecond
	origin := newStaticOrigin(t)
	clock := newTestClock(genTime.Add(time.Minute))
	m := origin.publish(t, genTime)
	first := startReplica(t, origin, clock, poll)
	waitGeneration(t, []*replica{first}, m.Generation)

	o := newTestOrigin(t, first.hs.URL, clock, poll)
	st := NewStore("")
	if swapped, err := o.Sync(context.Background(), st); !swapped || err != nil {
		t.Fatalf("sync from a replica: %v %v", swapped, err)
	}
	if st.Current().Manifest.Generation != m.Generation || len(st.Current().files) != len(first.Store().Current().files) {
		t.Fatalf("the second tier holds %d files of %s, the first %d", len(st.Current().files),
			st.Current().Manifest.Generation, len(first.Store().Current().files))
	}
	if swapped, err := o.Sync(context.Background(), st); swapped || err != nil {
		t.Fatalf("an unchanged replica: %v %v", swapped, err)
	}
}
