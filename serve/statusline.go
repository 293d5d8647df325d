package serve

import (
	"net/http"

	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/snapshot"
)

// handleStatusline is GET /statusline: one line of text/plain, the names of
// q (comma-separated, at most check.MaxStack) as /check says them or,
// without q, what is in trouble (check.Engine.Statusline). The router hands
// it a textRefusals writer, so that its refusals are a line of text too.
// Its statuses are /check's, at request time, not the situation's (see
// check.Engine.Check).
func (s *Server) handleStatusline(w http.ResponseWriter, r *http.Request) {
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	var names []string
	if q.Has("q") {
		v := q.Get("q")
		var err error
		if names, _, err = check.SplitStack(v); err != nil {
			inputProblem(w, err)
			return
		}
		if names == nil {
			if v == "" {
				problem(w, http.StatusBadRequest, "q", "q is empty: name one or more services separated by commas (e.g. ?q=openai,anthropic), or leave q out for every service")
				return
			}
			names = []string{v}
		}
	}
	line, err := s.checkerFor(snap).Statusline(snap, names)
	if err != nil {
		inputProblem(w, err)
		return
	}
	newRepresentation([]byte(line+"\n"), snapshot.ContentText).serve(w, r)
}
