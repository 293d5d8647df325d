package build

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/serve/shared/redistest"
	"github.com/aistatus/aistatus/vantage"
	"github.com/redis/go-redis/v9"
)

// benchKey signs the benchmark's reports.
var benchKey, _ = vantage.ParseKey("bench-vantage-key-0123456789abcdef")

// BenchmarkVantages50 simulates 50 vantages probing every service of the
// default catalog, each writing its report to a real redis-server, and
// measures one build's side: reading them all and merging them with its own
// probes (the regional rule over every service). Reported: the Redis keys
// and bytes the vantages write per cycle, the build's read and merge time
// per cycle (ns/op), and the merge alone (merge-ns/op).
func BenchmarkVantages50(b *testing.B) {
	const vantages = 50
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	srv := redistest.StartReal(b)
	opt, _ := redis.ParseURL(srv.URL())
	opt.DisableIdentity = true
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	now := time.Now().UTC()
	bytes := 0
	for i := range vantages {
		r := vantage.Report{Name: fmt.Sprintf("region-%02d", i), At: now, FreshSeconds: int(vantage.Fresh(vantage.DefaultEvery).Seconds()),
			Results: map[string]vantage.Result{}}
		for j, svc := range cat.Services {
			if svc.ProbeURL == "" {
				continue
			}
			res := vantage.Result{State: api.ProbeOK, LatencyMs: new(float64(40 + i + j)), At: now}
			if (i+j)%17 == 0 {
				res = vantage.Result{State: api.ProbeFailed, At: now}
			}
			r.Results[svc.ProbeURL] = res
		}
		body, _ := json.Marshal(r)
		bytes += len(body)
		if err := vantage.Write(ctx, rdb, benchKey.For(r.Name), r); err != nil {
			b.Fatal(err)
		}
	}
	var merging time.Duration
	for b.Loop() {
		read, err := vantage.Read(ctx, rdb, benchKey, now)
		reports := read.Reports
		if err != nil || read.Dropped != (api.VantageDropped{}) || len(reports) != vantages {
			b.Fatalf("read %d reports, %+v, %v", len(reports), read.Dropped, err)
		}
		start := time.Now()
		obs := map[string]Observation{}
		for _, svc := range cat.Services {
			o := Observation{Feed: api.FeedSource{Format: catalog.FormatStatuspage, State: api.FeedOK, Status: api.Operational},
				Probe: api.ProbeSource{State: api.ProbeNone}}
			if svc.ProbeURL != "" {
				o.Probe = api.ProbeSource{State: api.ProbeOK, LatencyMs: new(30.0)}
				o.Vantages = vantageView(svc, vantage.Builder, reports, now)
			}
			obs[svc.Slug] = o
		}
		for slug, o := range obs {
			readVantages(&o)
			obs[slug] = o
		}
		merging += time.Since(start)
	}
	b.ReportMetric(vantages+1, "keys/cycle")
	b.ReportMetric(float64(bytes), "bytes/cycle")
	b.ReportMetric(float64(bytes)/vantages, "bytes/vantage")
	b.ReportMetric(float64(merging.Nanoseconds())/float64(b.N), "merge-ns/op")
}
