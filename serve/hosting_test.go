package serve

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/snapshot"
)

// headerBlock is one block of a _headers file.
type headerBlock struct {
	pattern string
	headers http.Header
}

func parseHeadersFile(t *testing.T, data []byte) []headerBlock {
	t.Helper()
	var rules []headerBlock
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case !strings.HasPrefix(line, " "):
			rules = append(rules, headerBlock{pattern: line, headers: http.Header{}})
		default:
			name, value, ok := strings.Cut(strings.TrimSpace(line), ": ")
			if !ok || len(rules) == 0 {
				t.Fatalf("malformed _headers line %q", line)
			}
			rules[len(rules)-1].headers.Add(name, value)
		}
	}
	return rules
}

// staticHeaders applies _headers to a request path the way Netlify and
// Cloudflare Pages do: every matching block contributes its headers.
func staticHeaders(rules []headerBlock, p string) http.Header {
	h := http.Header{}
	for _, r := range rules {
		if ok, _ := path.Match(r.pattern, p); ok || r.pattern == "/*" {
			for name, values := range r.headers {
				h[name] = append(h[name], values...)
			}
		}
	}
	return h
}

// TestStaticHostingHeadersAgreeWithServer proves that a static host using
// the generated _headers sends the same headers as the thin server on every
// path it can serve.
func TestStaticHostingHeadersAgreeWithServer(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	data, err := os.ReadFile(filepath.Join(ts.dir, snapshot.FileHeaders))
	if err != nil {
		t.Fatal(err)
	}
	rules := parseHeadersFile(t, data)
	for _, p := range []string{"/api/v1/status", "/api/v1/services/openai", "/api/v1/incidents", "/api/v1/openapi.json", "/api/v1/export", "/api/v1/changes"} {
		t.Run(p, func(t *testing.T) {
			server := ts.do(t, http.MethodGet, p, nil).Header
			static := staticHeaders(rules, p)
			if len(static) < 5 {
				t.Fatalf("_headers gives %s only %v", p, static)
			}
			for name, values := range static {
				if len(values) != 1 {
					t.Errorf("%s: %d values for %s: %v", p, len(values), name, values)
				}
				if got := server.Get(name); got != values[0] {
					t.Errorf("%s: %s is %q from the server, %q from static hosting", p, name, got, values[0])
				}
			}
			for _, name := range []string{"Content-Type", "License", "Cache-Control", "Access-Control-Allow-Origin"} {
				if static.Get(name) == "" {
					t.Errorf("%s: _headers sets no %s", p, name)
				}
			}
		})
	}
}

// TestStaticHostingRedirectsPointAtFiles checks every rewrite of _redirects
// targets a file of the snapshot, for a concrete slug.
func TestStaticHostingRedirectsPointAtFiles(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	data, err := os.ReadFile(filepath.Join(ts.dir, snapshot.FileRedirects))
	if err != nil {
		t.Fatal(err)
	}
	rules := 0
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 3 || fields[2] != "200" {
			t.Fatalf("rule %q is not 'from to 200'", line)
		}
		rules++
		concrete := strings.NewReplacer(":slug", "openai", ":author", "anthropic", ":model", "claude-sonnet-4.5")
		target := concrete.Replace(fields[1])
		if _, err := os.Stat(filepath.Join(ts.dir, filepath.FromSlash(target))); err != nil {
			t.Errorf("%s rewrites to %s, which the snapshot lacks", fields[0], target)
		}
		// The server answers the same route itself.
		if resp := ts.do(t, http.MethodGet, concrete.Replace(fields[0]), nil); resp.StatusCode != 200 {
			t.Errorf("server: %s → %d", fields[0], resp.StatusCode)
		}
	}
	// One rule per route a file answers on a static host.
	want := 0
	for _, rt := range snapshot.Routes() {
		if rt.File != "" {
			want++
		}
	}
	if rules != want {
		t.Fatalf("%d rules, want %d", rules, want)
	}
}
