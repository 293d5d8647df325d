package serve

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/aistatus/aistatus/snapshot"
)

// TestRevalidation covers the If-None-Match shortcut: the answers must be
// those http.ServeContent gives, for static files and computed responses,
// identity and gzip.
func TestRevalidation(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	gzip := http.Header{"Accept-Encoding": {"gzip"}}
	// Straight through the handler: a 412 is ServeContent's answer, which the
	// contract (and so ts.do) does not list.
	get := func(target string, header http.Header) *http.Response {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header = header
		rec := httptest.NewRecorder()
		ts.Handler().ServeHTTP(rec, req)
		return rec.Result()
	}
	for _, target := range []string{"/api/v1/status", "/api/v1/incidents?since=2026-09-01"} {
		plain := ts.do(t, http.MethodGet, target, nil).Header.Get("ETag")
		zipped := ts.do(t, http.MethodGet, target, gzip)
		if zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: not compressed", target)
		}
		gzEtag := zipped.Header.Get("ETag")
		tests := []struct {
			name   string
			header http.Header
			status int
			etag   string
		}{
			{"identity", http.Header{"If-None-Match": {plain}}, 304, plain},
			{"list, weak", http.Header{"If-None-Match": {`"other", W/` + plain}}, 304, plain},
			{"star", http.Header{"If-None-Match": {"*"}}, 304, plain},
			{"gzip", http.Header{"If-None-Match": {gzEtag}, "Accept-Encoding": {"gzip"}}, 304, gzEtag},
			{"gzip tag, identity client", http.Header{"If-None-Match": {gzEtag}}, 200, plain},
			{"no match", http.Header{"If-None-Match": {`"other"`}}, 200, plain},
			{"If-Match fails first", http.Header{"If-None-Match": {plain}, "If-Match": {`"other"`}}, 412, ""},
		}
		for _, tt := range tests {
			resp := get(target, tt.header)
			if resp.StatusCode != tt.status {
				t.Errorf("%s %s: status %d, want %d", target, tt.name, resp.StatusCode, tt.status)
				continue
			}
			if tt.etag != "" && resp.Header.Get("ETag") != tt.etag {
				t.Errorf("%s %s: ETag %q, want %q", target, tt.name, resp.Header.Get("ETag"), tt.etag)
			}
			if resp.StatusCode == 304 {
				for _, h := range []string{"Content-Type", "Content-Encoding", "Content-Length", "Last-Modified"} {
					if v := resp.Header.Get(h); v != "" {
						t.Errorf("%s %s: 304 with %s: %q", target, tt.name, h, v)
					}
				}
				if len(body(t, resp)) != 0 {
					t.Errorf("%s %s: 304 with a body", target, tt.name)
				}
			}
		}
	}
}

// TestPlainResponseMatchesServeContent: a plain GET is answered without
// http.ServeContent; its headers and body must be the ones ServeContent
// gives (reached here through an If-Modified-Since that does not apply), but
// for Content-Length, which ServeContent leaves out of gzip responses.
func TestPlainResponseMatchesServeContent(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, target := range []string{"/api/v1/status", "/api/v1/services/openai", "/api/v1/incidents?since=2026-09-01", "/api/v1/check?q=openai"} {
		for _, enc := range []string{"", "gzip"} {
			plain := ts.do(t, http.MethodGet, target, http.Header{"Accept-Encoding": {enc}})
			viaServeContent := ts.do(t, http.MethodGet, target, http.Header{
				"Accept-Encoding": {enc}, "If-Modified-Since": {"Mon, 02 Jan 2006 15:04:05 GMT"},
			})
			if plain.StatusCode != 200 || viaServeContent.StatusCode != 200 {
				t.Fatalf("%s %q: status %d and %d", target, enc, plain.StatusCode, viaServeContent.StatusCode)
			}
			if enc != "" {
				viaServeContent.Header.Del("Content-Length")
				plain.Header.Del("Content-Length")
			}
			// ServeContent advertises ranges; the plain path does not (see serve).
			viaServeContent.Header.Del("Accept-Ranges")
			if got, want := fmt.Sprint(plain.Header), fmt.Sprint(viaServeContent.Header); got != want {
				t.Errorf("%s %q: headers\n %s\nwant\n %s", target, enc, got, want)
			}
			if !bytes.Equal(body(t, plain), body(t, viaServeContent)) {
				t.Errorf("%s %q: bodies differ", target, enc)
			}
		}
	}
}

// TestStaticHeaderSet pins the header lines of a plain 200 from the
// snapshot: the contract's four, Vary, HTTP's framing and the ETag. net/http
// spends about 2 000 instructions per response on each line, and past eight
// in the map its header maps outgrow Go's small map, which cost the ninth
// line about 7 400 (snapshot.CommonHeaders, bench/README.md): adding one is a
// decision, made here. The gzip variant adds Content-Encoding, the eighth.
func TestStaticHeaderSet(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	hs := loopback(t, ts)
	identity := []string{
		"Access-Control-Allow-Origin", "Cache-Control", "Content-Length", "Content-Type", "Date", "Etag", "License", "Vary",
	}
	gzipped := slices.Sorted(slices.Values(append([]string{"Content-Encoding"}, identity...)))
	for _, c := range []struct {
		target, encoding string
		want             []string
	}{
		{"/status.json", "identity", identity},
		{snapshot.PathStatus, "identity", identity},
		{"/status.json", "gzip", gzipped},
		{snapshot.PathStatus, "gzip", gzipped},
	} {
		resp, _ := send(t, hs, http.MethodGet, c.target, nil, http.Header{"Accept-Encoding": {c.encoding}})
		got := slices.Sorted(maps.Keys(resp.Header))
		if !slices.Equal(got, c.want) {
			t.Errorf("GET %s (%s): header lines %v\nwant %v", c.target, c.encoding, got, c.want)
		}
	}
}

// TestLazyGzipConcurrent: a snapshot file's gzip variant is made by the
// first request that accepts gzip. Requests racing for it (run with -race)
// must all get the same variant, whole and with its own length and ETag,
// and the identity variant must be unaffected, before and after.
func TestLazyGzipConcurrent(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	h := ts.Handler()
	get := func(target, encoding string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Accept-Encoding", encoding)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for _, target := range []string{"/status.json", snapshot.PathStatus, "/api/v1/services/openai", "/incidents.json"} {
		plain := get(target, "identity")
		if plain.Code != http.StatusOK || plain.Header().Get("Content-Encoding") != "" {
			t.Fatalf("%s: status %d, Content-Encoding %q", target, plain.Code, plain.Header().Get("Content-Encoding"))
		}
		const n = 16
		got := make([]*httptest.ResponseRecorder, n)
		var wg sync.WaitGroup
		for i := range n {
			encoding := "gzip"
			if i%4 == 3 {
				encoding = "identity"
			}
			wg.Go(func() { got[i] = get(target, encoding) })
		}
		wg.Wait()
		var first *httptest.ResponseRecorder
		for i, rec := range got {
			if i%4 == 3 {
				if !bytes.Equal(rec.Body.Bytes(), plain.Body.Bytes()) || rec.Header().Get("ETag") != plain.Header().Get("ETag") {
					t.Errorf("%s: identity answer %d changed while the gzip variant was made", target, i)
				}
				continue
			}
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "gzip" {
				t.Fatalf("%s #%d: status %d, Content-Encoding %q", target, i, rec.Code, rec.Header().Get("Content-Encoding"))
			}
			if rec.Header().Get("Content-Length") != strconv.Itoa(rec.Body.Len()) {
				t.Errorf("%s #%d: Content-Length %s for %d bytes", target, i, rec.Header().Get("Content-Length"), rec.Body.Len())
			}
			if first == nil {
				first = rec
				zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, plain.Body.Bytes()) {
					t.Errorf("%s: the gzip variant does not decompress to the file (%v)", target, err)
				}
				if want := gzipETag(plain.Header().Get("ETag")); rec.Header().Get("ETag") != want {
					t.Errorf("%s: gzip ETag %q, want %q", target, rec.Header().Get("ETag"), want)
				}
				continue
			}
			if !bytes.Equal(rec.Body.Bytes(), first.Body.Bytes()) || rec.Header().Get("ETag") != first.Header().Get("ETag") {
				t.Errorf("%s #%d: a different gzip variant", target, i)
			}
		}
		if again := get(target, "identity"); !bytes.Equal(again.Body.Bytes(), plain.Body.Bytes()) {
			t.Errorf("%s: identity answer changed after the gzip variant was made", target)
		}
	}
}
