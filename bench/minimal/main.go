// Command minimal is the load test's yardstick: the least a Go net/http
// server can do to answer GET status.json — the same bytes with the same four
// headers as aistatus (Content-Type, License, Cache-Control,
// Access-Control-Allow-Origin), plus the Content-Length that keeps the answer
// unchunked, from one pre-built response, with no routing, no conditional
// requests, no compression and no logging. aistatus over this is what our
// own code costs; this over nginx is what Go's HTTP server costs.
//
// With -all-headers it sends every header aistatus sends on status.json
// (the rest of snapshot.CommonHeaders, ETag and Last-Modified):
// aistatus over that is what our code costs beyond writing those headers,
// and that over the four-header handler is what the headers cost net/http.
// With -extra N it sends the first N of those others, for the cost of each.
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

	"github.com/aistatus/aistatus/snapshot"
)

func main() {
	file := flag.String("file", "public/status.json", "the file to serve at every path")
	addr := flag.String("addr", "127.0.0.1:9000", "address to listen on")
	all := flag.Bool("all-headers", false, "send every header aistatus sends, not only the four of the API contract")
	extra := flag.Int("extra", 0, "send the first N of aistatus's other headers (ETag, Vary, X-Content-Type-Options, Last-Modified, Link, Access-Control-Expose-Headers)")
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
		{"X-Content-Type-Options", common["X-Content-Type-Options"]},
		{"Last-Modified", fi.ModTime().UTC().Format(http.TimeFormat)},
		{"Link", common["Link"]},
		{"Access-Control-Expose-Headers", common["Access-Control-Expose-Headers"]},
	}
	// Every header of aistatus's table, and nothing else, is in the two lists.
	if len(header)+len(others) != len(snapshot.CommonHeaders())+4 {
		log.Fatal("aistatus's header table changed: update bench/minimal")
	}
	for _, kv := range append(header, others...) {
		if kv[1] == "" {
			log.Fatalf("aistatus sends no %s: update bench/minimal", kv[0])
		}
	}
	if *all {
		*extra = len(others)
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
