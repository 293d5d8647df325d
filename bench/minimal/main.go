// Command minimal is the load test's yardstick: the least a Go net/http
// server can do to answer GET status.json — the same bytes with the same four
// headers as aistatus (Content-Type, License, Cache-Control,
// Access-Control-Allow-Origin), plus the Content-Length that keeps the answer
// unchunked, from one pre-built response, with no routing, no conditional
// requests, no compression and no logging. aistatus over this is what our
// own code costs; this over nginx is what Go's HTTP server costs.
//
// With -all-headers it sends every header aistatus sends on status.json
// (ETag and Vary besides): aistatus over that is what our code costs beyond
// writing those headers, and that over the four-header handler is what the
// headers cost net/http. With -extra N it sends the first N of a list that
// begins with those two and goes on with the lines aistatus no longer sends
// (X-Content-Type-Options, Last-Modified, Link,
// Access-Control-Expose-Headers; snapshot.CommonHeaders says why), for the
// cost of each line.
//
//	minimal -file public/status.json -addr 127.0.0.1:9000 [-all-headers | -extra N]
package main

import (
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"log"
	"net/http"
	"os"
	"strconv"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

func main() {
	file := flag.String("file", "public/status.json", "the file to serve at every path")
	addr := flag.String("addr", "127.0.0.1:9000", "address to listen on")
	all := flag.Bool("all-headers", false, "send every header aistatus sends, not only the four of the API contract")
	extra := flag.Int("extra", 0, "send the first N of ETag, Vary, X-Content-Type-Options, Last-Modified, Link, Access-Control-Expose-Headers")
	flag.Parse()
	body, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}
	fi, err := os.Stat(*file)
	if err != nil {
		log.Fatal(err)
	}
	common := map[string]string{}
	for _, h := range snapshot.CommonHeaders() { // the values aistatus sends, from its own table
		common[h.Name] = h.Value
	}
	sum := sha256.Sum256(body)
	header := [][2]string{
		{"Content-Length", strconv.Itoa(len(body))},
		{"Content-Type", snapshot.ContentJSON},
		{"License", common["License"]},
		{"Cache-Control", common["Cache-Control"]},
		{"Access-Control-Allow-Origin", common["Access-Control-Allow-Origin"]},
	}
	others := [][2]string{
		{"Etag", `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`}, // aistatus's form
		{"Vary", common["Vary"]},
		// Sent by aistatus until the fourth round of bench/HISTORY.md.
		{"X-Content-Type-Options", "nosniff"},
		{"Last-Modified", fi.ModTime().UTC().Format(http.TimeFormat)},
		{"Link", "<" + api.LicenseURL + `>; rel="license"`},
		{"Access-Control-Expose-Headers", "License, Link, ETag, RateLimit, RateLimit-Policy, Retry-After"},
	}
	const sent = 2 // of others, the ones aistatus sends
	// Every header of aistatus's table is in the lines sent, and nothing else.
	for _, kv := range append(header, others[:sent]...) {
		if v, ok := common[kv[0]]; kv[1] == "" || (ok && v != kv[1]) {
			log.Fatalf("aistatus sends %s differently: update bench/minimal", kv[0])
		}
		delete(common, kv[0])
	}
	if len(common) > 0 {
		log.Fatalf("aistatus's header table has %v besides: update bench/minimal", common)
	}
	if *all {
		*extra = sent
	}
	header = append(header, others[:min(max(*extra, 0), len(others))]...)
	type field struct {
		name   string
		values []string // shared, never modified: no copy per request
	}
	var fields []field
	for _, kv := range header {
		fields = append(fields, field{kv[0], []string{kv[1]}})
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for _, f := range fields {
			h[f.name] = f.values
		}
		w.Write(body)
	})
	log.Fatal(http.ListenAndServe(*addr, handler))
}
