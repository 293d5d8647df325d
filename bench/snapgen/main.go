// Command snapgen writes a synthetic snapshot folder for benchmarking: the
// embedded catalog's 26 services with plausible statuses, 30 days of history
// and -incidents retained incidents, rendered and published exactly as a
// build would (build.Render, snapshot.Publish). It makes no network request.
//
//	go run ./bench/snapgen -out /tmp/snap -incidents 100000 \
//	    -probe-base http://127.0.0.1:8081/probe -catalog-out /tmp/catalog.json \
//	    -major-outage anthropic
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aistatus/aistatus/bench/synth"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
)

func main() {
	out := flag.String("out", "", "snapshot folder to write (required)")
	incidents := flag.Int("incidents", 100_000, "retained incidents")
	days := flag.Int("days", 30, "days of per-service history")
	baseURL := flag.String("base-url", "http://127.0.0.1", "the site address the documents name")
	probeBase := flag.String("probe-base", "", "if set, point every probe URL at BASE/<slug>, so that the server's live /check probes stay on this machine")
	catalogOut := flag.String("catalog-out", "", "write the (rewritten) catalog here, for aistatus serve --catalog")
	majorOutage := flag.String("major-outage", "", "if set, put this service in a major outage as Anthropic's page was on 2026-07-29 (synth.Cycle.MajorOutage)")
	flag.Parse()
	if err := run(*out, *incidents, *days, *baseURL, *probeBase, *catalogOut, *majorOutage); err != nil {
		fmt.Fprintln(os.Stderr, "snapgen:", err)
		os.Exit(1)
	}
}

func run(out string, incidents, days int, baseURL, probeBase, catalogOut, majorOutage string) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	if probeBase != "" {
		for i := range cat.Services {
			if cat.Services[i].ProbeURL != "" {
				cat.Services[i].ProbeURL = strings.TrimSuffix(probeBase, "/") + "/" + cat.Services[i].Slug
			}
		}
		if err := cat.Validate(); err != nil {
			return err
		}
	}
	if catalogOut != "" {
		if err := os.WriteFile(catalogOut, cat.JSON(), 0o644); err != nil {
			return err
		}
	}
	start := time.Now()
	cycle := synth.New(cat, time.Now(), days, incidents)
	if majorOutage != "" {
		if err := cycle.MajorOutage(cat, majorOutage); err != nil {
			return err
		}
	}
	files, err := cycle.Snapshot(build.Site{BaseURL: baseURL, StaleAfter: 15 * time.Minute, Generator: "aistatus snapgen"}, cat)
	if err != nil {
		return err
	}
	if err := snapshot.Publish(out, files); err != nil {
		return err
	}
	var size int
	for _, data := range files {
		size += len(data)
	}
	fmt.Fprintf(os.Stderr, "snapgen: %d files, %.1f MB, %d incidents, in %s → %s\n",
		len(files), float64(size)/1e6, incidents, time.Since(start).Round(time.Millisecond), out)
	return nil
}
