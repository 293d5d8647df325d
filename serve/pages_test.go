package serve

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/aistatus/aistatus/snapshot"
)

// TestSitePages: the status page, service pages, badges, feeds and
// discovery files are served at the paths a static host gives them, with
// their media types and the headers every response carries (ts.do checks
// those).
func TestSitePages(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	const html = "text/html; charset=utf-8"
	tests := []struct {
		path, contentType, contains string
	}{
		{"/", html, "<h1>Are AI services up?</h1>"},
		{"/index.html", html, `data-slug="openai" data-status="degraded"`},
		{"/services/openai", html, "<h1>OpenAI status</h1>"},
		{"/services/anthropic.html", html, "<h1>Anthropic status</h1>"},
		{"/services/openai.json", snapshot.ContentJSON, `"slug":"openai"`},
		{"/badges/openai.svg", "image/svg+xml", `aria-label="OpenAI: degraded"`},
		{"/badges/openai-uptime.svg", "image/svg+xml", `role="img"`},
		{"/badges/openai.json", snapshot.ContentJSON, `"message":"degraded"`},
		{"/badges/anthropic-uptime.json", snapshot.ContentJSON, `"schemaVersion":1`},
		{"/llms.txt", "text/plain; charset=utf-8", "# aistatus\n"},
		{"/incidents.atom", "application/atom+xml", `<feed xmlns="http://www.w3.org/2005/Atom">`},
		{"/services/openai.atom", "application/atom+xml", "<id>https://aistatus.example/services/openai#incident-openai-01</id>"},
		{"/.well-known/api-catalog", `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"`, `"profile": "https://www.rfc-editor.org/info/rfc9727"`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := ts.do(t, http.MethodGet, tt.path, nil)
			data := body(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tt.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tt.contentType)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != snapshot.CacheControl {
				t.Errorf("Cache-Control %q", cc)
			}
			if resp.Header.Get("ETag") == "" {
				t.Error("no ETag")
			}
			if !bytes.Contains(data, []byte(tt.contains)) {
				t.Errorf("body does not contain %q: %.300s", tt.contains, data)
			}
		})
	}

	for _, path := range []string{"/services/nope", "/services/", "/badges/nope.svg", "/.well-known/nope", "/history"} {
		if resp := ts.do(t, http.MethodGet, path, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", path, resp.StatusCode)
		}
	}

	zipped := ts.do(t, http.MethodGet, "/", http.Header{"Accept-Encoding": {"gzip"}})
	if zipped.Header.Get("Content-Encoding") != "gzip" {
		t.Error("the status page is not sent compressed")
	}
	if head := ts.do(t, http.MethodHead, "/services/openai", nil); head.StatusCode != http.StatusOK || len(body(t, head)) != 0 {
		t.Errorf("HEAD /services/openai: %d", head.StatusCode)
	}
}

// TestLoadServesOnlyWellKnownDotFolder: .well-known is published, other
// dot-folders of the snapshot folder stay private.
func TestLoadServesOnlyWellKnownDotFolder(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	if err := os.MkdirAll(filepath.Join(ts.dir, ".private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ts.dir, ".private", "secret.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := Load(ts.dir)
	if err != nil {
		t.Fatal(err)
	}
	if snap.files[".private/secret.json"] != nil {
		t.Error("a file in a dot-folder is served")
	}
	if rep := snap.files[".well-known/api-catalog"]; rep == nil || rep.contentType != snapshot.ContentLinkset {
		t.Errorf(".well-known/api-catalog: %+v", rep)
	}
}
