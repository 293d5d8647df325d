package serve

import (
	"fmt"
	"net/http"
	"path"
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
