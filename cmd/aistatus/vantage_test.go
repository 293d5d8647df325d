package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/serve/shared"
	"github.com/aistatus/aistatus/serve/shared/redistest"
	"github.com/aistatus/aistatus/vantage"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"
	"github.com/spf13/pflag"
)

// refusing is the network of a region from which some of the world's API
// hosts cannot be reached: requests under their paths fail as a refused
// connection would, before reaching the host.
type refusing struct {
	next    http.RoundTripper
	refused []string // path prefixes, one per host: "/<slug>/"
}

func (r refusing) RoundTrip(req *http.Request) (*http.Response, error) {
	for _, p := range r.refused {
		if strings.HasPrefix(req.URL.Path, p) {
			return nil, errors.New("dial tcp: connect: connection refused")
		}
	}
	return r.next.RoundTrip(req)
}

// Three replicas with --vantage a, b and c on one real redis-server, and a
// build with --redis: a host refused only to b reads as a regional problem
// seen from b (its status unchanged, and /check at b advises routing
// elsewhere, blame network), and a host refused to all three and to the
// builder reads as an outage within one cycle, without confirming
// re-probes.
func TestVantagesRegionalAndOutage(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	const regional, down = "openai", "mistral"
	world.Set(down, func(p *buildtest.Page) { p.APIDown = true })
	rdbURL := redistest.StartReal(t).URL()
	newRedis := func() *redis.Client {
		c, err := shared.NewRedisClient(rdbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dir := filepath.Join(t.TempDir(), "public")

	replicas := map[string]*serve.Server{}
	for _, name := range []string{"a", "b", "c"} {
		client := outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(world.Catalog)})
		if name == "b" {
			client.Transport = refusing{next: client.Transport, refused: []string{"/" + regional + "/"}}
		}
		replicas[name] = serve.New(serve.Options{Dir: dir, Catalog: world.Catalog, Log: zerolog.Nop(), Now: time.Now,
			Client: client, Redis: newRedis(), Vantage: name, VantageEvery: vantage.MinEvery, VantageKey: testVantageKey.For(name), RateLimit: 0, NoCrowd: true})
	}
	// One round of probes from each vantage, as the replicas run it.
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{}, len(replicas))
	for _, srv := range replicas {
		go func() { srv.ProbeFromVantage(ctx); done <- struct{}{} }()
	}
	rdb := newRedis()
	deadline := time.Now().Add(20 * time.Second)
	for {
		read, err := vantage.Read(context.Background(), rdb, testVantageKey, time.Now())
		if err == nil && len(read.Reports) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the vantages did not report: %d, %v", len(read.Reports), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	for range replicas {
		<-done
	}

	// One build cycle, no confirming re-probes.
	opts := build.Options{
		Out: dir, Site: build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog: world.Catalog, Timeout: 5 * time.Second, Now: time.Now, Log: zerolog.Nop(), Adapters: feed.Adapters(),
		Client: outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(world.Catalog)}),
		Vantages: func(ctx context.Context) (vantage.Reading, error) {
			return vantage.Read(ctx, rdb, testVantageKey, time.Now())
		},
	}
	if _, err := build.Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var sources api.SourcesDoc
	readJSON(t, filepath.Join(dir, "sources.json"), &sources)
	bySlug := map[string]api.ServiceSources{}
	for _, s := range sources.Services {
		bySlug[s.Slug] = s
	}
	r := bySlug[regional]
	if r.Status != api.Operational || r.Vantages == nil || r.Vantages.Reading != api.VantageRegional ||
		r.Vantages.Reporting != 4 || r.Vantages.Reaching != 3 || !strings.Contains(r.Vantages.Detail, "seen from b") {
		t.Errorf("%s: status %s, vantages %+v; want operational, regional from b (3 of 4 reach it)", regional, r.Status, r.Vantages)
	}
	d := bySlug[down]
	if d.Status != api.MajorOutage || d.Vantages == nil || d.Vantages.Reading != api.VantageUnreachable || d.Vantages.Reporting != 4 {
		t.Errorf("%s: status %s, vantages %+v; want a major outage, unreachable from all 4", down, d.Status, d.Vantages)
	}
	for slug, s := range bySlug {
		if slug != regional && slug != down && s.Vantages != nil && s.Vantages.Reading == api.VantageRegional {
			t.Errorf("%s reads regional: %+v", slug, s.Vantages)
		}
	}

	// /check at b, with the caller's connection error: route elsewhere.
	for name, want := range map[string][2]string{
		"b": {api.ActionReroute, api.BlameNetwork},
		"a": {api.ActionRetry, api.BlameUnknown}, // a reaches it: whose side is unknown
	} {
		srv := replicas[name]
		if _, err := srv.Store().Reload(); err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/check?q="+regional+"&error=connection", nil))
		var doc api.CheckDoc
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %d %s", name, rec.Code, rec.Body)
		}
		if v := doc.Verdict; v.Action != want[0] || v.Blame != want[1] {
			t.Errorf("/check at %s: %s/%s (%s), want %s/%s", name, v.Action, v.Blame, v.Reason, want[0], want[1])
		}
		if name == "b" && !strings.Contains(rec.Body.String(), `"source":"vantage"`) {
			t.Errorf("/check at b cites no vantage: %s", rec.Body)
		}
	}
}

// A bad --vantage, one without --redis and an interval out of bounds are
// refused at start, naming the flag, never discovered later.
func TestVantageFlagsValidated(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "public")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--dir", dir, "--vantage", "EU West", "--redis", "redis://127.0.0.1:1/0", "--addr", "127.0.0.1:0"}, "--vantage"},
		{[]string{"serve", "--dir", dir, "--vantage", "eu-west", "--addr", "127.0.0.1:0"}, "--vantage needs --redis"},
		{[]string{"serve", "--dir", dir, "--vantage", "eu-west", "--redis", "redis://127.0.0.1:1/0", "--vantage-every", "5s", "--addr", "127.0.0.1:0"}, "--vantage-every"},
		{[]string{"serve", "--dir", dir, "--vantage", "eu-west", "--redis", "redis://127.0.0.1:1/0", "--vantage-every", "1h", "--addr", "127.0.0.1:0"}, "--vantage-every"},
		{[]string{"build", "--out", dir, "--redis", "redis://127.0.0.1:1/0", "--vantage", "-x"}, "--vantage"},
		{[]string{"build", "--out", dir, "--redis", "http://127.0.0.1:1"}, "--redis"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), tc.args, &stdout, &stderr)
			if code != exitError || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d naming %s", code, stderr.String(), exitError, tc.want)
			}
		})
	}
}

// testVantageKey is the tests' builds' key; each replica's own is
// testVantageKey.For(its name).
var testVantageKey = func() vantage.Key {
	k, err := vantage.ParseKey(testVantageSecret)
	if err != nil {
		panic(err)
	}
	return k
}()

const testVantageSecret = "cmd-test-vantage-key-0123456789abcdef"

// One writer to Redis, holding no key, tries to take an outage off the
// page: an "ok" for every host under two vantage names, unsigned and
// signed with a key of its own, and MaxVantages index entries scored in
// the future to push the real vantages out. The build believes none of
// it: the host down from the builder and from the one real vantage stays
// in a major outage, sources.json counts what was dropped, and the key
// shows in no log line and no published file.
func TestVantagesForgedReportsDoNotHideAnOutage(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	const down = "mistral"
	world.Set(down, func(p *buildtest.Page) { p.APIDown = true })
	rdb, err := shared.NewRedisClient(redistest.StartReal(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	dir := filepath.Join(t.TempDir(), "public")
	var logs bytes.Buffer
	opts := build.Options{
		Out: dir, Site: build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog: world.Catalog, Timeout: 5 * time.Second, Now: time.Now, Log: zerolog.New(zerolog.SyncWriter(&logs)), Adapters: feed.Adapters(),
		Client: outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(world.Catalog)}),
		Vantages: func(ctx context.Context) (vantage.Reading, error) {
			return vantage.Read(ctx, rdb, testVantageKey, time.Now())
		},
	}
	// Three cycles, the host down from the builder and from vantage a:
	// a major outage.
	ctx := context.Background()
	url := world.Catalog.Services[slices.IndexFunc(world.Catalog.Services, func(s catalog.Service) bool { return s.Slug == down })].ProbeURL
	for range 3 {
		now := time.Now().UTC()
		if err := vantage.Write(ctx, rdb, testVantageKey.For("a"), vantage.Report{Name: "a", At: now, FreshSeconds: 150,
			Results: map[string]vantage.Result{url: {State: api.ProbeFailed, At: now}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := build.Build(ctx, opts); err != nil {
			t.Fatal(err)
		}
	}
	if st := readSources(t, dir)[down].Status; st != api.MajorOutage {
		t.Fatalf("%s is %s after three failed cycles, want major_outage", down, st)
	}

	// The forger's reports.
	now := time.Now().UTC()
	results := map[string]vantage.Result{}
	for _, svc := range world.Catalog.Services {
		if svc.ProbeURL != "" {
			results[svc.ProbeURL] = vantage.Result{State: api.ProbeOK, LatencyMs: new(20.0), At: now}
		}
	}
	forgerKey, _ := vantage.ParseKey("the-forgers-own-key-0123456789abcdef")
	if err := vantage.Write(ctx, rdb, forgerKey, vantage.Report{Name: "x", At: now, FreshSeconds: 150, Results: results}); err != nil {
		t.Fatal(err)
	}
	unsigned, _ := json.Marshal(vantage.Report{Name: "y", At: now, FreshSeconds: 150, Results: results})
	rdb.Set(ctx, vantage.KeyPrefix+"y", unsigned, time.Minute)
	rdb.ZAdd(ctx, vantage.IndexKey, redis.Z{Score: float64(now.Unix()), Member: "y"})
	for i := range vantage.MaxVantages {
		rdb.ZAdd(ctx, vantage.IndexKey, redis.Z{Score: float64(now.Add(time.Duration(i+1) * time.Hour).Unix()), Member: fmt.Sprintf("z%d", i)})
	}
	if err := vantage.Write(ctx, rdb, testVantageKey.For("a"), vantage.Report{Name: "a", At: now, FreshSeconds: 150,
		Results: map[string]vantage.Result{url: {State: api.ProbeFailed, At: now}}}); err != nil {
		t.Fatal(err)
	}
	// The future entries the replica's write trimmed, written again.
	for i := range vantage.MaxVantages {
		rdb.ZAdd(ctx, vantage.IndexKey, redis.Z{Score: float64(now.Add(time.Duration(i+1) * time.Hour).Unix()), Member: fmt.Sprintf("z%d", i)})
	}
	if _, err := build.Build(ctx, opts); err != nil {
		t.Fatal(err)
	}
	var sources api.SourcesDoc
	readJSON(t, filepath.Join(dir, "sources.json"), &sources)
	m := readSources(t, dir)[down]
	if m.Status != api.MajorOutage || m.Vantages == nil || m.Vantages.Reading != api.VantageUnreachable || m.Vantages.Reporting != 2 {
		t.Errorf("%s: status %s, vantages %+v; want major_outage, unreachable from builder and a", down, m.Status, m.Vantages)
	}
	want := api.VantageDropped{Unsigned: 1, BadSignature: 1, Future: vantage.MaxVantages}
	if v := sources.Vantages; v == nil || v.State != api.VantageSourceOK || v.Read != 1 || v.Dropped != want {
		t.Errorf("sources.json vantages %+v, want ok, 1 read, dropped %+v", v, want)
	}
	if !strings.Contains(logs.String(), `"unsigned":1`) {
		t.Errorf("the dropped reports are not logged: %s", logs.String())
	}
	assertNoSecret(t, dir, logs.String())
}

// A build with --redis but no key reads no report, even a well-signed
// one, and says why in sources.json; the host down from the builder stays
// down whatever Redis holds.
func TestVantagesBuildWithoutKey(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	rdb, err := shared.NewRedisClient(redistest.StartReal(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	now := time.Now().UTC()
	if err := vantage.Write(context.Background(), rdb, testVantageKey.For("a"), vantage.Report{Name: "a", At: now, FreshSeconds: 150, Results: map[string]vantage.Result{}}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "public")
	opts := build.Options{
		Out: dir, Site: build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog: world.Catalog, Timeout: 5 * time.Second, Now: time.Now, Log: zerolog.Nop(), Adapters: feed.Adapters(),
		Client: outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(world.Catalog)}),
		Vantages: func(ctx context.Context) (vantage.Reading, error) {
			return vantage.Read(ctx, rdb, vantage.Key{}, time.Now())
		},
	}
	if _, err := build.Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var sources api.SourcesDoc
	readJSON(t, filepath.Join(dir, "sources.json"), &sources)
	if v := sources.Vantages; v == nil || v.State != api.VantageSourceUnkeyed || v.Read != 0 || !strings.Contains(v.Detail, vantage.KeyEnv) {
		t.Errorf("sources.json vantages %+v, want unkeyed, naming %s", v, vantage.KeyEnv)
	}
	for _, s := range sources.Services {
		if s.Vantages != nil {
			t.Errorf("%s carries vantages %+v read without a key", s.Slug, s.Vantages)
		}
	}
}

// The CLI takes the key from the environment only: a short one is refused
// at start without being quoted, and a replica or a build without one
// says so once in the log, the key never.
func TestVantageKeyFromEnvironment(t *testing.T) {
	// Not parallel: it sets the environment.
	srv := redistest.StartReal(t)
	dir := filepath.Join(t.TempDir(), "public")
	short := testVantageSecret[:vantage.MinKeyBytes-1]
	t.Setenv(vantage.KeyEnv, short)
	for _, args := range [][]string{
		{"serve", "--dir", dir, "--vantage", "eu-west", "--redis", srv.URL(), "--addr", "127.0.0.1:0"},
		{"build", "--out", dir, "--redis", srv.URL()},
	} {
		var stdout, stderr bytes.Buffer
		code := execute(context.Background(), args, &stdout, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), vantage.KeyEnv) || strings.Contains(stderr.String(), short) {
			t.Errorf("%s with a short key: exit %d, stderr %q; want %d naming %s, not quoting the key", args[0], code, stderr.String(), exitError, vantage.KeyEnv)
		}
	}
	var logs bytes.Buffer
	for _, key := range []string{"", testVantageSecret} {
		t.Setenv(vantage.KeyEnv, key)
		o := buildOptions{redis: srv.URL(), vantage: vantage.Builder}
		read, err := o.vantages(zerolog.New(zerolog.SyncWriter(&logs)), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		_, err = read(context.Background())
		if (key == "") != errors.Is(err, vantage.ErrNoKey) {
			t.Errorf("key %t: read %v", key != "", err)
		}
	}
	if n := strings.Count(logs.String(), "vantage key not set"); n != 1 {
		t.Errorf("logged the missing key %d times, want once: %s", n, logs.String())
	}
	if strings.Contains(logs.String(), testVantageSecret) {
		t.Errorf("the key is in the log: %s", logs.String())
	}
}

// readSources reads sources.json's services by slug.
func readSources(t *testing.T, dir string) map[string]api.ServiceSources {
	t.Helper()
	var sources api.SourcesDoc
	readJSON(t, filepath.Join(dir, "sources.json"), &sources)
	out := map[string]api.ServiceSources{}
	for _, s := range sources.Services {
		out[s.Slug] = s
	}
	return out
}

// assertNoSecret fails if the test key is in logs or any file under dir.
func assertNoSecret(t *testing.T, dir, logs string) {
	t.Helper()
	if strings.Contains(logs, testVantageSecret) {
		t.Errorf("the vantage key is in the log")
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(testVantageSecret)) {
			t.Errorf("the vantage key is published in %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A replica made a vantage without the key probes nothing for the build,
// writes nothing to Redis, and says so once.
func TestVantageReplicaWithoutKey(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	rdb, err := shared.NewRedisClient(redistest.StartReal(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	var logs bytes.Buffer
	srv := serve.New(serve.Options{Dir: t.TempDir(), Catalog: cat, Log: zerolog.New(zerolog.SyncWriter(&logs)), Now: time.Now,
		Client: outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(cat)}), Redis: rdb,
		Vantage: "eu-west", VantageEvery: vantage.MinEvery, NoCrowd: true})
	done := make(chan struct{})
	go func() { srv.ProbeFromVantage(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("ProbeFromVantage without a key did not return")
	}
	if n := rdb.Exists(context.Background(), vantage.KeyPrefix+"eu-west", vantage.IndexKey).Val(); n != 0 {
		t.Errorf("a replica without the key wrote %d keys", n)
	}
	if n := strings.Count(logs.String(), "vantage key not set"); n != 1 || !strings.Contains(logs.String(), vantage.KeyEnv) {
		t.Errorf("logged %d times: %s", n, logs.String())
	}
}

// TestVantageKeyCommand: `aistatus vantage-key NAME` prints the vantage's
// own key, derived from the build's, never the build's itself; a replica
// given it is believed by a build holding the build's key, and one given
// the build's key is not.
func TestVantageKeyCommand(t *testing.T) {
	// Not parallel: it sets the environment.
	t.Setenv(vantage.KeyEnv, testVantageSecret)
	keyOf := func(name string) (string, int, string) {
		var stdout, stderr bytes.Buffer
		code := execute(context.Background(), []string{"vantage-key", name}, &stdout, &stderr)
		return strings.TrimSpace(stdout.String()), code, stderr.String()
	}
	a, code, stderr := keyOf("eu-west")
	if code != 0 || a != testVantageKey.For("eu-west").Reveal() || strings.Contains(a, testVantageSecret) {
		t.Fatalf("vantage-key eu-west: exit %d, %q (stderr %q); want eu-west's own key, not the build's", code, a, stderr)
	}
	if b, _, _ := keyOf("us-east"); b == a || len(b) < vantage.MinKeyBytes {
		t.Errorf("us-east's key %q: want another key of at least %d bytes", b, vantage.MinKeyBytes)
	}
	if _, code, stderr := keyOf("Not A Name"); code != exitError || !strings.Contains(stderr, "vantage name") {
		t.Errorf("a bad name: exit %d, stderr %q", code, stderr)
	}
	t.Setenv(vantage.KeyEnv, "")
	if out, code, stderr := keyOf("eu-west"); code != exitError || out != "" || !strings.Contains(stderr, vantage.KeyEnv) {
		t.Errorf("without the build's key: exit %d, %q, stderr %q", code, out, stderr)
	}

	// What the command printed signs eu-west's reports as the build
	// believes them; the build's own key does not.
	rdb, err := shared.NewRedisClient(redistest.StartReal(t).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	now := time.Now().UTC().Truncate(time.Second)
	own, err := vantage.ParseKey(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		key  vantage.Key
		name string
	}{{own, "eu-west"}, {testVantageKey, "us-east"}} {
		if err := vantage.Write(context.Background(), rdb, w.key, vantage.Report{Name: w.name, At: now, FreshSeconds: 150, Results: map[string]vantage.Result{}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := vantage.Read(context.Background(), rdb, testVantageKey, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Reports) != 1 || got.Reports[0].Name != "eu-west" || got.Dropped.BadSignature != 1 {
		t.Errorf("read %+v, dropped %+v; want eu-west's report only, us-east's (the build's key) dropped", got.Reports, got.Dropped)
	}
}

// TestRunSignsWithItsVantagesOwnKey: run builds and serves in one
// process, given the build's key; its vantage signs with its own key
// derived from it, and the build believes the report. A serve --vantage
// given the build's key instead signs with that, and is not believed.
func TestRunSignsWithItsVantagesOwnKey(t *testing.T) {
	// Not parallel: it sets the environment.
	t.Setenv(vantage.KeyEnv, testVantageSecret)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	redisURL := redistest.StartReal(t).URL()
	rdb, err := shared.NewRedisClient(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	for _, tc := range []struct {
		name       string
		buildsHere bool // run: the build's key, its vantage's own derived
		believed   bool
	}{
		{"run-here", true, true},
		{"serve-given-the-builds-key", false, false},
	} {
		fs := pflag.NewFlagSet(tc.name, pflag.ContinueOnError)
		var o serveOptions
		o.register(fs, true)
		if err := fs.Parse(nil); err != nil {
			t.Fatal(err)
		}
		o.dir, o.buildsHere, o.redis, o.vantage, o.vantageEvery = t.TempDir(), tc.buildsHere, redisURL, tc.name, vantage.MinEvery
		srv, err := o.server(zerolog.Nop(), world.Catalog)
		if err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { srv.ProbeFromVantage(ctx); close(done) }()
		deadline := time.Now().Add(20 * time.Second)
		var read vantage.Reading
		for {
			if read, err = vantage.Read(context.Background(), rdb, testVantageKey, time.Now()); err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(read.Reports, func(r vantage.Report) bool { return r.Name == o.vantage }) ||
				slices.ContainsFunc(read.Bad, func(b string) bool { return strings.Contains(b, o.vantage) }) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no report of its vantage: %+v", tc.name, read)
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop()
		<-done
		believed := slices.ContainsFunc(read.Reports, func(r vantage.Report) bool { return r.Name == o.vantage })
		if believed != tc.believed {
			t.Errorf("%s: report believed %v, want %v (bad: %q)", tc.name, believed, tc.believed, read.Bad)
		}
	}
}
