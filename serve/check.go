package serve

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/fallback"
	"github.com/aistatus/aistatus/snapshot"
)

// handleCheck is GET /check: the check engine's answer for the current
// snapshot.
func (s *Server) handleCheck(w http.ResponseWriter, r *http.Request) {
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	if q.Has("error") && q.Get("error") == "" {
		// Sent but empty is a mistake of the caller's, not "no error".
		problem(w, http.StatusBadRequest, "error", check.ObservedHelp)
		return
	}
	if names, stack, err := check.SplitStack(q.Get("q")); stack {
		s.checkStack(w, r, snap, q, names, err)
		return
	}
	req := check.Request{Query: q.Get("q"), Error: q.Get("error"), Code: q.Get("code"), Model: q.Get("model"), Client: s.clientVoice(r)}
	if q.Has("model") && req.Model == "" {
		problem(w, http.StatusBadRequest, "model", "model is empty: send a watched model's id or name (see "+snapshot.PathModels+"), or leave model out")
		return
	}
	if q.Has("code") && req.Code == "" {
		problem(w, http.StatusBadRequest, "code", "code is empty: send the error code from the provider's error body, or leave code out")
		return
	}
	if q.Has("retryAfter") {
		v := q.Get("retryAfter")
		n, err := strconv.Atoi(v)
		if err != nil || len(v) > 6 {
			problem(w, http.StatusBadRequest, "retryAfter", fmt.Sprintf("retryAfter %q is not a whole number of seconds", api.Truncate(v, 32)))
			return
		}
		req.RetryAfter = &n
	}
	a, err := s.checkAnswers.answer(snap, req, s.opts.Now(), func() (api.CheckDoc, error) { return s.checkerFor(snap).Check(snap, req) })
	if err != nil {
		// The engine refuses only input; anything else is ours.
		inputProblem(w, err)
		return
	}
	serveComputed(w, r, a.etag, func() ([]byte, error) { return a.body, nil })
}

// checkStack answers /check?q=a,b,c: a check of each service and a verdict
// over the stack (api.StackCheckDoc). error, code and retryAfter
// describe one call to one service, so a stack refuses them.
func (s *Server) checkStack(w http.ResponseWriter, r *http.Request, snap *Snapshot, q url.Values, names []string, err error) {
	if err != nil {
		inputProblem(w, err)
		return
	}
	for _, param := range []string{"error", "code", "retryAfter"} {
		if q.Has(param) {
			problem(w, http.StatusBadRequest, param, param+" describes one call to one service: send it with a single service in q, not a list")
			return
		}
	}
	doc, err := s.checkerFor(snap).CheckStack(snap, q.Get("q"), names)
	if err != nil {
		inputProblem(w, err)
		return
	}
	serveJSON(w, r, doc)
}

// inputProblem answers an error of the check engine: a 400 naming the
// parameter for the caller's mistake, a 500 for anything else.
func inputProblem(w http.ResponseWriter, err error) {
	if bad := (*check.InputError)(nil); errors.As(err, &bad) {
		problem(w, http.StatusBadRequest, bad.Param, bad.Detail)
		return
	}
	problem(w, http.StatusInternalServerError, "", "internal error")
}

// newChecker returns a /check engine for cat, probing through the server's
// live-probe cache and counting reports in its crowd. The probes go through
// the server's HTTP client, whose dial guard lets only the hosts of the
// operator's own catalog be on an internal address: a snapshot's catalog
// can make a replica probe other public hosts, never one inside its
// network.
func (s *Server) newChecker(cat catalog.Catalog) *check.Engine {
	e := check.New(cat, s.liveProbes, s.opts.Now, check.FromServer).AtVantage(s.opts.Vantage)
	if s.crowd != nil {
		e.CountReports(s.crowd)
	}
	return e
}

// snapshotChecker is the engine of the catalog of the snapshot last asked
// about, by that catalog file's ETag, so that a swap to a snapshot of the
// same catalog (every build but one that changed it) builds none.
type snapshotChecker struct {
	etag    string
	engine  *check.Engine
	planner *fallback.Planner
}

// checkerFor returns the engine that answers /check about snap: the one of
// the catalog snap was built with, when it carries one (a replica then
// matches and probes what its origin watched, whatever it was started
// with; less the aliases that name another service of the server's own:
// DropForeignAliases), else the server's own. A catalog that does not parse (a newer
// build's schema) is logged once and the server's own answers.
func (s *Server) checkerFor(snap *Snapshot) *check.Engine { return s.snapshotTools(snap).engine }

// plannerFor returns the fallback planner of the catalog snap was built
// with, as checkerFor does the engine: a replica plans with the model ids
// its origin's catalog names.
func (s *Server) plannerFor(snap *Snapshot) *fallback.Planner { return s.snapshotTools(snap).planner }

// snapshotTools are the engine and planner of snap's catalog (see
// checkerFor), made once per catalog file.
func (s *Server) snapshotTools(snap *Snapshot) *snapshotChecker {
	rep := snap.files[snapshot.FileCatalog]
	if rep == nil {
		return &snapshotChecker{engine: s.checker, planner: s.planner}
	}
	if sc := s.snapChecker.Load(); sc != nil && sc.etag == rep.etag {
		return sc
	}
	sc := &snapshotChecker{etag: rep.etag, engine: s.checker, planner: s.planner}
	if snap.catalog != nil {
		cat := DropForeignAliases(*snap.catalog, s.opts.Catalog, s.opts.Log)
		sc.engine, sc.planner = s.newChecker(cat), fallback.New(cat)
	} else {
		s.opts.Log.Error().Err(snap.catalogErr).Str("file", snapshot.FileCatalog).
			Msg("the snapshot's catalog does not parse: /check answers from this server's own catalog")
	}
	s.snapChecker.Store(sc)
	return sc
}
