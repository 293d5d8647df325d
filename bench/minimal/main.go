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
//
//	minimal -file public/status.json -addr 127.0.0.1:9000 [-all-headers]
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
	flag.Parse()
	body, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}
	fi, err := os.Stat(*file)
	if err != nil {
		log.Fatal(err)
	}
	header := http.Header{"Content-Length": {strconv.Itoa(len(body))}, "Content-Type": {snapshot.ContentJSON}}
	// The values aistatus sends, from its own header table.
	for _, h := range snapshot.CommonHeaders() {
		if *all || h.Name == "License" || h.Name == "Cache-Control" || h.Name == "Access-Control-Allow-Origin" {
			header.Set(h.Name, h.Value)
		}
	}
	if *all {
		sum := sha256.Sum256(body)
		header.Set("ETag", `"`+base64.RawURLEncoding.EncodeToString(sum[:16])+`"`) // aistatus's form
		header.Set("Last-Modified", fi.ModTime().UTC().Format(http.TimeFormat))
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for k, v := range header {
			h[k] = v // shared, never modified: no copy per request
		}
		w.Write(body)
	})
	log.Fatal(http.ListenAndServe(*addr, handler))
}
