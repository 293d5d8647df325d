package serve

import (
	"fmt"
	"html"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// serveFileAt serves the snapshot's file when the path, outside the API
// namespace, names one exactly (GET /status.json). Such a path is clean, so
// the ServeMux would only have routed it to handleStatic after cleaning,
// unescaping and matching it: a third of what our code costs a static
// response (bench/README.md). Everything else — "/", pages without their
// .html, paths to clean, names of no file served, no snapshot yet — is left
// to it.
func (s *Server) serveFileAt(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if len(p) < 2 || p[0] != '/' || strings.HasPrefix(p, snapshot.APINamespace) {
		return false
	}
	snap := s.store.Current()
	if snap == nil {
		return false
	}
	rep := snap.files[p[1:]]
	if rep == nil {
		return false
	}
	rep.serve(w, r)
	return true
}

// file serves one file of the snapshot.
func (s *Server) file(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if snap := s.snapshotOr503(w); snap != nil {
			snap.files[name].serve(w, r)
		}
	}
}

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	q, ok := parseQuery(w, r)
	if !ok {
		return
	}
	if f := q.Get("format"); q.Has("format") && f != "csv" {
		problem(w, http.StatusBadRequest, "format", fmt.Sprintf("unsupported format %q: only csv is supported", api.Truncate(f, 32)))
		return
	}
	s.file(snapshot.FileExport)(w, r)
}

// handleStatic serves the snapshot's other files at their own paths
// (/status.json, /services/openai.json, /badges/openai.svg, …), for parity
// with static hosting, and the pages as static hosts do: / is index.html and
// /services/openai is services/openai.html.
func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) {
	if s.store.Current() == nil && wantsHTML(r.Header.Get("Accept")) {
		s.noSnapshotPage(w)
		return
	}
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	name := r.URL.Path[1:]
	switch {
	case name == "":
		name = "index.html"
	case path.Ext(name) == "" && snap.files[name] == nil:
		name += ".html"
	}
	if rep := snap.files[name]; rep != nil {
		rep.serve(w, r)
		return
	}
	problem(w, http.StatusNotFound, "", "not found: the API lives under "+snapshot.APIBase+" (see "+snapshot.PathOpenAPI+")")
}

// noSnapshotPage is the 503 a browser gets on the site before the first
// snapshot: a page that says so and when to come back (and comes back by
// itself then), where an API client gets snapshotOr503's problem. It has
// Retry-After and no-store all the same: it is no answer to keep.
func (s *Server) noSnapshotPage(w http.ResponseWriter) {
	retry, detail := s.noSnapshotYet()
	after := strconv.Itoa(retry)
	body := `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="` + after + `">
<title>aistatus: no snapshot yet</title>
</head>
<body>
<main>
<h1>No status snapshot yet</h1>
<p>This server has no snapshot of the services' status to show: ` + html.EscapeString(detail) + `.</p>
<p>Come back in ` + after + ` seconds: this page reloads itself then.</p>
</main>
</body>
</html>
`
	h := w.Header()
	h.Set("Retry-After", after)
	h["Access-Control-Expose-Headers"] = exposeHeaders
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", snapshot.ContentTypeOf(".html"))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write([]byte(body))
}

// wantsHTML reports whether an Accept header asks for a page: it names
// text/html with a weight above zero, and no JSON type with a higher one.
// A browser navigating sends text/html; curl's */* and an API client's
// application/json get a problem instead.
func wantsHTML(accept string) bool {
	htmlQ, jsonQ := 0.0, 0.0
	for part := range strings.SplitSeq(accept, ",") {
		media, params, _ := strings.Cut(part, ";")
		q := 1.0
		for param := range strings.SplitSeq(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(param), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(media)) {
		case "text/html":
			htmlQ = max(htmlQ, q)
		case snapshot.ContentJSON, snapshot.ContentProblem:
			jsonQ = max(jsonQ, q)
		}
	}
	return htmlQ > 0 && htmlQ >= jsonQ
}
