package serve

import (
	"net/http"

	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/snapshot"
)

// handleStatusline is GET /statusline: one line of text/plain, the services
// of q (comma-separated, at most check.MaxStack) or, without q, all of them.
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
