package serve

import (
	"errors"
	"net/http"

	"github.com/aistatus/aistatus/check"
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
	doc, err := s.checker.Check(snap, check.Request{Query: q.Get("q"), Error: q.Get("error")})
	if bad := (*check.InputError)(nil); errors.As(err, &bad) {
		problem(w, http.StatusBadRequest, bad.Param, bad.Detail)
		return
	} else if err != nil {
		// The engine refuses only input; anything else is ours.
		problem(w, http.StatusInternalServerError, "", "internal error")
		return
	}
	serveJSON(w, r, doc)
}
