package models

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// BenchmarkGatewayCost runs the models' side of a cycle (Observe, then
// Assemble) every 5 minutes of a fake clock against both gateways on
// loopback, each listing the pinned models and MaxWatched more of tracked
// makers (Vercel spelling xAI's and Mistral's its own way) and serving
// each at two providers: what a cycle costs in requests to each gateway, and in CPU
// and memory per watched model. An op is one cycle; the lists answer a
// request carrying their ETag with 304, as OpenRouter's does.
func BenchmarkGatewayCost(b *testing.B) {
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	makers := []string{"anthropic", "openai", "google", "x-ai", "mistralai", "deepseek"}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	// Both lists carry the pinned models, as OpenRouter's does (else its
	// list is suspect, and every watched model is asked for).
	var listed []feed.ListedModel
	for _, md := range cat.Models.Pinned {
		listed = append(listed, feed.ListedModel{ID: md.ID, Name: md.Name, Created: t0.AddDate(-1, 0, 0)})
	}
	for i := range MaxWatched {
		listed = append(listed, feed.ListedModel{ID: fmt.Sprintf("%s/model-%d", makers[i%len(makers)], i), Name: fmt.Sprintf("Model %d", i),
			Created: t0.Add(-time.Duration(i) * time.Hour)})
	}
	var requests [2]atomic.Int64 // OpenRouter's, Vercel's
	var bytesOut [2]atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gw, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		i, g := 0, catalog.GatewayOpenRouter
		if gw == catalog.GatewayVercel {
			i, g = 1, catalog.GatewayVercel
		}
		requests[i].Add(1)
		row, _ := LookupGateway(g)
		gateway, _ := cat.Models.Gateway(g)
		var body []byte
		if rest == "models" {
			own := make([]feed.ListedModel, len(listed))
			for k, m := range listed {
				own[k] = m
				own[k].ID = gateway.GatewayID(m.ID)
			}
			body = row.FakeList(own)
			etag := fmt.Sprintf(`"%x"`, sha256.Sum256(body))
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", etag)
		} else {
			providers := map[string][]string{catalog.GatewayOpenRouter: {"Anthropic", "Amazon Bedrock"},
				catalog.GatewayVercel: {"anthropic", "bedrock"}}[g]
			body = row.FakeEndpoints(strings.TrimSuffix(rest, "/endpoints"), providers)
		}
		bytesOut[i].Add(int64(len(body)))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	for i, g := range cat.Models.Gateways {
		g.URL = srv.URL + "/" + g.ID + "/" + catalog.ModelParam + "/endpoints"
		g.ListURL = srv.URL + "/" + g.ID + "/models"
		cat.Models.Gateways[i] = g
	}
	cat.Models.Lifecycle = nil // the makers' pages are another source's cost
	opts := Options{Catalog: cat, Client: srv.Client(), Timeout: 5 * time.Second, Log: zerolog.Nop()}
	h := history.New()
	now := t0
	cycle := func() {
		r := Observe(context.Background(), opts, h.Models, now)
		Assemble(h, cat, nil, r, now, zerolog.Nop())
		now = now.Add(5 * time.Minute)
	}
	// A warm start: the lists read, every model read once.
	for range 3 {
		cycle()
	}
	for i := range requests {
		requests[i].Store(0)
		bytesOut[i].Store(0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		cycle()
	}
	b.StopTimer()
	watched := len(h.Models.Models)
	n := float64(b.N)
	b.ReportMetric(float64(watched), "watched")
	b.ReportMetric(float64(requests[0].Load())/n, "openrouter-req/cycle")
	b.ReportMetric(float64(requests[1].Load())/n, "vercel-req/cycle")
	b.ReportMetric(float64(bytesOut[0].Load()+bytesOut[1].Load())/n/1024, "KiB-in/cycle")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/float64(watched)/1000, "µs/watched-model")
	if watched < MaxWatched {
		b.Fatalf("%d models watched, want %d", watched, MaxWatched)
	}
}
