// Command minimal is the load test's yardstick: the least a Go net/http
// server can do to answer GET status.json — the same bytes with the same four
// headers as aistatus (Content-Type, License, Cache-Control,
// Access-Control-Allow-Origin), plus the Content-Length that keeps the answer
// unchunked, from one pre-built response, with no routing, no conditional
// requests, no compression and no logging. aistatus over this is what our
// own code costs; this over nginx is what Go's HTTP server costs.
//
//	minimal -file public/status.json -addr 127.0.0.1:9000
package main

import (
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
	flag.Parse()
	body, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}
	// The values aistatus sends, from its own header table.
	values := map[string]string{"Content-Type": snapshot.ContentJSON}
	for _, h := range snapshot.CommonHeaders() {
		values[h.Name] = h.Value
	}
	header := http.Header{"Content-Length": {strconv.Itoa(len(body))}}
	for _, name := range []string{"Content-Type", "License", "Cache-Control", "Access-Control-Allow-Origin"} {
		header[name] = []string{values[name]}
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
