package serve

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

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
	req := check.Request{Query: q.Get("q"), Error: q.Get("error"), Code: q.Get("code"), Client: s.clientVoice(r)}
	if q.Has("code") && req.Code == "" {
		problem(w, http.StatusBadRequest, "code", "code is empty: send the error code from the provider's error body, or leave code out")
		return
	}
	if q.Has("retryAfter") {
		v := q.Get("retryAfter")
		n, err := strconv.Atoi(v)
		if err != nil || len(v) > 6 {
			problem(w, http.StatusBadRequest, "retryAfter", fmt.Sprintf("retryAfter %q is not a whole number of seconds", snapshot.Truncate(v, 32)))
			return
		}
		req.RetryAfter = &n
	}
	doc, err := s.checker.Check(snap, req)
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
