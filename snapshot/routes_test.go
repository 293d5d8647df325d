package snapshot

import (
	"strings"
	"testing"
)

// TestRoutes checks the route table's invariants: unique paths, every
// rate-limited route inside the API or the MCP endpoint, every file a
// snapshot path, and every route served either from a file or by the server.
func TestRoutes(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range Routes() {
		if seen[r.Path] {
			t.Errorf("%s listed twice", r.Path)
		}
		seen[r.Path] = true
		if r.Instance {
			if r.RateLimited || r.Dynamic || r.File != "" || strings.HasPrefix(r.Path, APINamespace) {
				t.Errorf("%s: an instance route is outside the API, unlimited, and answered by the server alone", r.Path)
			}
			continue
		}
		if !strings.HasPrefix(r.Path, APIBase+"/") && r.Path != PathMCP && r.Path != PathMetrics {
			t.Errorf("%s is outside the API and the MCP endpoint", r.Path)
		}
		if !r.RateLimited {
			t.Errorf("%s: every route is part of the API and rate-limited", r.Path)
		}
		if r.File == "" && !r.Dynamic {
			t.Errorf("%s has neither a file nor the thin server to answer it", r.Path)
		}
		if strings.HasPrefix(r.File, "/") || strings.Contains(r.File, "..") {
			t.Errorf("%s: file %q is not a snapshot path", r.Path, r.File)
		}
		if strings.Contains(r.Path, SlugParam) != strings.Contains(r.File, SlugParam) && r.File != "" {
			t.Errorf("%s and its file %q disagree on the slug", r.Path, r.File)
		}
		if r.ContentType == "" {
			t.Errorf("%s has no content type", r.Path)
		}
		if r.File != "" && ContentTypeOf(r.File) != r.ContentType {
			t.Errorf("%s: content type %q, but its file %s is served as %q", r.Path, r.ContentType, r.File, ContentTypeOf(r.File))
		}
	}
	for _, p := range []string{PathStatus, PathService, PathIncidents, PathCheck, PathOpenAPI, PathExport, PathSources, PathChanges, PathEvents, PathMCP, PathHealthz, PathReadyz} {
		if !seen[p] {
			t.Errorf("%s is not in the route table", p)
		}
	}
}
