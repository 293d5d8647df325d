package feed

// The helpers shared by the tests of every adapter: a fake feed server, a
// runner for tables of failing reads, the check of a cancelled read, the
// seeding of fuzz targets with fixtures and the checks of what a read or a
// parse returned.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

const jsonAccept = "application/json"

// reply is how the test server answers one path: a fixture file, raw bytes,
// or just a status code; or a redirect.
type reply struct {
	file     string // in testdata
	body     []byte
	code     int    // 0 means 200
	ctype    string // "" means by the file's extension, or by a raw body's first byte
	redirect string // if set, a 302 to this path instead of all the above
}

// serve starts a server that answers each path in routes with its reply and
// any other path with 404. It answers 406 to a request whose Accept header
// is not accept, so every test also checks the header. requests tells how
// many requests a path has had.
func serve(t *testing.T, accept string, routes map[string]reply) (srv *httptest.Server, requests func(path string) int) {
	t.Helper()
	var mu sync.Mutex
	hits := map[string]int{}
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		if got := r.Header.Get("Accept"); got != accept {
			http.Error(w, "unexpected Accept: "+got, http.StatusNotAcceptable)
			return
		}
		rep, ok := routes[r.URL.Path]
		switch {
		case !ok:
			http.NotFound(w, r)
			return
		case rep.redirect != "":
			http.Redirect(w, r, rep.redirect, http.StatusFound)
			return
		}
		body := rep.body
		if rep.file != "" {
			var err error
			if body, err = os.ReadFile(filepath.Join("testdata", rep.file)); err != nil {
				t.Errorf("fixture: %v", err)
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
		}
		ctype := rep.ctype
		switch {
		case ctype != "":
		case strings.HasSuffix(rep.file, ".html"):
			ctype = "text/html; charset=utf-8"
		case strings.HasSuffix(rep.file, ".xml"), rep.file == "" && bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")):
			ctype = "application/xml"
		default:
			ctype = "application/json; charset=utf-8"
		}
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(cmp.Or(rep.code, http.StatusOK))
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return hits[path]
	}
}

// read reads svc with a, through the door every read goes through (Read),
// and a client that cannot hang the test.
func read(t *testing.T, a Adapter, svc catalog.Service) (Result, error) {
	t.Helper()
	return readAt(t, a, svc, time.Now())
}

// readAt is read with the cycle's clock at now.
func readAt(t *testing.T, a Adapter, svc catalog.Service, now time.Time) (Result, error) {
	t.Helper()
	if a == nil {
		t.Fatalf("no adapter for %q", svc.Feed.Format)
	}
	res, _, err := Read(context.Background(), a, Request{Client: &http.Client{Timeout: 10 * time.Second}, Service: svc, Now: now})
	return res, err
}

// filterScope is the scope the catalog's former "filter" expressed: the
// components, and failing those the incident titles, that name one of words.
func filterScope(words []string) catalog.Scope {
	return catalog.Scope{ComponentNames: words, IncidentKeywords: words}
}

// fixture returns a file from testdata.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fixtures returns the testdata files that match pattern, in name order.
func fixtures(t testing.TB, pattern string) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(names) == 0 {
		t.Fatalf("no %s fixtures: %v", pattern, err)
	}
	var out [][]byte
	for _, name := range names {
		out = append(out, fixture(t, filepath.Base(name)))
	}
	return out
}

// addFixtures seeds a fuzz target with every testdata file that matches
// pattern.
func addFixtures(f *testing.F, pattern string) {
	f.Helper()
	for _, data := range fixtures(f, pattern) {
		f.Add(data)
	}
}

// oversized is doc after MaxBody bytes of white space: still a valid
// document, so that size alone makes it fail.
func oversized(doc []byte) []byte {
	return append(bytes.Repeat([]byte(" "), MaxBody), doc...)
}

// errorCase is a reply that must make a read fail with an error that
// mentions want.
type errorCase struct {
	name string
	rep  reply
	want string
}

// checkErrors reads each case's reply with read, in a subtest named after
// the case, and wants an error that mentions the case's text and the zero
// Result.
func checkErrors(t *testing.T, cases []errorCase, read func(t *testing.T, rep reply) (Result, error)) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			res, err := read(t, tt.rep)
			if err == nil {
				t.Fatalf("Read succeeded with %+v, want an error", res)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
			if res.Status != "" || res.Incidents != nil {
				t.Errorf("a failed read returned %+v, want the zero Result", res)
			}
		})
	}
}

// checkProvesNothing reads documents that parse but are not (or not
// enough of) the expected document: each must fail as a schema mismatch or
// an empty document, never read as a calm page.
func checkProvesNothing(t *testing.T, bodies []string, read func(t *testing.T, rep reply) (Result, error)) {
	t.Helper()
	for _, body := range bodies {
		t.Run(body, func(t *testing.T) {
			res, err := read(t, reply{body: []byte(body)})
			if err == nil {
				t.Fatalf("read %+v, want an error: this document proves nothing", res)
			}
			if k := Kind(err); k != api.FailureSchema && k != api.FailureEmpty {
				t.Errorf("kind %q (%v), want schema or empty", k, err)
			}
		})
	}
}

// jsonDocErrors are the failures every adapter that reads one JSON document
// must report. good is a fixture it reads without error: cut in half, it is
// the truncated document, and after MaxBody bytes of white space an
// oversized but otherwise valid one.
func jsonDocErrors(t *testing.T, good string) []errorCase {
	t.Helper()
	doc := fixture(t, good)
	return []errorCase{
		{"malformed JSON", reply{body: []byte(`{"status": "ok",}`)}, "invalid character"},
		{"truncated JSON", reply{body: doc[:len(doc)/2]}, "unexpected end of JSON"},
		{"HTML instead of JSON", reply{file: "maintenance_page.html"}, `content type "text/html"`},
		{"HTML error page with status 200", reply{body: []byte("<html><body>Bad gateway</body></html>")}, "a bot challenge or HTML page"},
		{"empty body", reply{body: []byte{}}, "unexpected end of JSON"},
		{"a JSON string", reply{body: []byte(`"ok"`)}, "cannot unmarshal string"},
		{"a JSON number", reply{body: []byte(`42`)}, "cannot unmarshal number"},
		{"HTTP 500", reply{code: http.StatusInternalServerError, body: []byte(`{"error":"internal"}`)}, "HTTP 500"},
		{"HTTP 404", reply{code: http.StatusNotFound}, "HTTP 404"},
		{"HTTP 429", reply{code: http.StatusTooManyRequests}, "HTTP 429"},
		{"body over MaxBody", reply{body: oversized(doc)}, "larger than"},
	}
}

// checkCancelled checks that a cancelled context fails a read by a, both
// when it is cancelled before the request, which then is never sent, and
// while the server is answering. service points a catalog entry at srv.
func checkCancelled(t *testing.T, a Adapter, service func(srv *httptest.Server) catalog.Service) {
	t.Helper()
	t.Run("cancelled before the read", func(t *testing.T) {
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { requests.Add(1) }))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := a.Read(ctx, Request{Client: srv.Client(), Service: service(srv)})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if res.Status != "" || res.Incidents != nil {
			t.Errorf("a cancelled read returned %+v", res)
		}
		if n := requests.Load(); n != 0 {
			t.Errorf("%d requests after cancellation", n)
		}
	})
	t.Run("cancelled during the read", func(t *testing.T) {
		started := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started)
			select { // hang until the client gives up
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		if _, err := a.Read(ctx, Request{Client: srv.Client(), Service: service(srv)}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// ts parses an RFC 3339 time for expectations.
func ts(t *testing.T, s string) *time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

// render prints every field of an incident, times as RFC 3339 in their own
// location, so a comparison also checks that times are UTC ("Z").
func render(inc api.Incident) string {
	ended := "<open>"
	if inc.EndedAt != nil {
		ended = inc.EndedAt.Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("id=%s service=%s headline=%q severity=%s started=%s ended=%s status=%s source=%s url=%s updated=%s",
		inc.ID, inc.Service, inc.Headline, inc.Severity, inc.StartedAt.Format(time.RFC3339Nano), ended,
		inc.Status, inc.Source, inc.URL, inc.UpdatedAt.Format(time.RFC3339Nano))
}

// checkStatus wants a read that succeeded and declared the status want.
func checkStatus(t *testing.T, res Result, err error, want api.Status) {
	t.Helper()
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if res.Status != want {
		t.Errorf("Status = %q, want %q", res.Status, want)
	}
}

// checkOutcome wants either the status want (fails empty) or an error of
// kind fails.
func checkOutcome(t *testing.T, res Result, err error, want api.Status, fails api.FailureKind) {
	t.Helper()
	if fails == "" {
		checkStatus(t, res, err, want)
		return
	}
	if err == nil {
		t.Fatalf("read %+v, want a %q failure", res, fails)
	}
	if k := Kind(err); k != fails {
		t.Errorf("failure kind %q (%v), want %q", k, err, fails)
	}
}

// checkIncidents compares the incidents a read returned with the expected
// ones, field by field.
func checkIncidents(t *testing.T, got, want []api.Incident) {
	t.Helper()
	n := max(len(got), len(want))
	for i := range n {
		var g, w string
		if i < len(got) {
			g = render(got[i])
		}
		if i < len(want) {
			w = render(want[i])
		}
		if g != w {
			t.Errorf("incident %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// checkParsed is the fuzz targets' check of what a parse function returned:
// an error with the zero Result, or a valid status and well-formed
// incidents, newest first, every one of which renders once cleaned (what
// Read does). It reports whether the parse succeeded, so that a target can
// go on to check what its own format promises.
func checkParsed(t *testing.T, svc catalog.Service, res Result, err error) bool {
	t.Helper()
	if err != nil {
		if res.Status != "" || res.Incidents != nil {
			t.Fatalf("error %v came with a non-zero Result %+v", err, res)
		}
		return false
	}
	checkCleaned(t, svc, res)
	if !res.Status.Valid() {
		t.Fatalf("Status %q is not valid", res.Status)
	}
	for i, inc := range res.Incidents {
		switch {
		case !strings.HasPrefix(inc.ID, svc.Slug+"-") || inc.ID == svc.Slug+"-":
			t.Fatalf("incident %d: id %q is not %q plus an upstream id", i, inc.ID, svc.Slug+"-")
		case inc.Service != svc.Slug || inc.Source != api.SourceOfficial:
			t.Fatalf("incident %d: service %q source %q", i, inc.Service, inc.Source)
		case !inc.Severity.Valid():
			t.Fatalf("incident %d: severity %q is not valid", i, inc.Severity)
		case inc.StartedAt.IsZero() || inc.StartedAt.Location() != time.UTC || inc.UpdatedAt.Location() != time.UTC:
			t.Fatalf("incident %d: times %v, %v are not set UTC times", i, inc.StartedAt, inc.UpdatedAt)
		case inc.EndedAt != nil && inc.EndedAt.Location() != time.UTC:
			t.Fatalf("incident %d: end %v is not UTC", i, inc.EndedAt)
		case i > 0 && inc.StartedAt.After(res.Incidents[i-1].StartedAt):
			t.Fatalf("incidents %d and %d are not newest first", i-1, i)
		}
	}
	return true
}

// checkCleaned checks that what Read publishes of a result is inert and
// renders: JSON-encodable, no control characters in text, only http(s)
// links, ids that are safe.
func checkCleaned(t *testing.T, svc catalog.Service, res Result) {
	t.Helper()
	svc.StatusPage = cmp.Or(svc.StatusPage, "https://status.example")
	cleaned, _ := clean(svc, Result{Status: res.Status, Incidents: slices.Clone(res.Incidents), Components: slices.Clone(res.Components)}, time.Time{})
	if _, err := json.Marshal(cleaned); err != nil {
		t.Fatalf("a cleaned result does not render: %v", err)
	}
	for _, inc := range cleaned.Incidents {
		for _, text := range []string{inc.Headline, inc.Status} {
			if strings.ContainsFunc(text, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) || utf8.RuneCountInString(text) > api.MaxHeadline {
				t.Fatalf("incident %s: text %q is not clean", inc.ID, text)
			}
		}
		if !strings.HasPrefix(inc.URL, "http://") && !strings.HasPrefix(inc.URL, "https://") {
			t.Fatalf("incident %s: link %q", inc.ID, inc.URL)
		}
		again := inc
		if unsafeID(svc, inc) != "" || again.Clean(time.Time{}, svc.StatusPage) != "" || again != inc {
			t.Fatalf("incident %+v kept though unpublishable, or not clean (cleaned again: %+v)", inc, again)
		}
		if inc.EndedAt != nil && inc.EndedAt.Before(inc.StartedAt) {
			t.Fatalf("incident %+v kept though unpublishable", inc)
		}
	}
}

// checkDistinctHeadlines checks what the adapters that drop duplicates and
// always find a headline (Google Cloud, AWS Health, RSS) also promise: every
// incident has its own id and a headline.
func checkDistinctHeadlines(t *testing.T, res Result) {
	t.Helper()
	seen := map[string]bool{}
	for _, inc := range res.Incidents {
		if seen[inc.ID] {
			t.Fatalf("duplicate id %q", inc.ID)
		}
		seen[inc.ID] = true
		if inc.Headline == "" {
			t.Fatalf("no headline in %+v", inc)
		}
	}
}
