package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
			Client: client, Redis: newRedis(), Vantage: name, VantageEvery: vantage.MinEvery, RateLimit: 0, NoCrowd: true})
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
		reports, _, err := vantage.Read(context.Background(), rdb, time.Now())
		if err == nil && len(reports) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the vantages did not report: %d, %v", len(reports), err)
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
		Vantages: func(ctx context.Context) ([]vantage.Report, []string, error) {
			return vantage.Read(ctx, rdb, time.Now())
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
