package serve

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
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
	doc, err := s.checker.Check(snap, req)
	if err != nil {
		// The engine refuses only input; anything else is ours.
		inputProblem(w, err)
		return
	}
	serveJSON(w, r, doc)
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
	doc, err := s.checker.CheckStack(snap, q.Get("q"), names)
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
