package serve

import (
	"net/http"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/fallback"
	"github.com/aistatus/aistatus/snapshot"
)

// handleFallbacks is GET /fallbacks: a watched model's fallback plan
// (model=, or q naming it) or a service's (q=), computed from the current
// snapshot as /check is, and with format= the same plan written as a
// gateway's configuration.
func (s *Server) handleFallbacks(w http.ResponseWriter, r *http.Request) {
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	model, query := q.Get("model"), q.Get("q")
	switch {
	case q.Has("model") && q.Has("q"):
		problem(w, http.StatusBadRequest, "q", "send model (a watched model's id) or q (a service, or a model's id), not both")
		return
	case !q.Has("model") && !q.Has("q"):
		problem(w, http.StatusBadRequest, "model", "send model=author/model (a watched model's id, see "+snapshot.PathModels+") or q= a service")
		return
	case q.Has("model") && (model == "" || len(model) > check.MaxQuery):
		problem(w, http.StatusBadRequest, "model", "model must be a watched model's id, author/model, of at most 256 bytes (see "+snapshot.PathModels+")")
		return
	case q.Has("q") && (query == "" || len(query) > check.MaxQuery):
		problem(w, http.StatusBadRequest, "q", "q must name a service or a watched model, in at most 256 bytes")
		return
	case q.Has("format") && q.Get("format") == "":
		problem(w, http.StatusBadRequest, "format", "format is empty: send litellm, openrouter, vercel or portkey, or leave it out")
		return
	}
	planner := s.plannerFor(snap)
	var (
		plan api.FallbackPlan
		err  error
	)
	view := fallbackView{snap, s.crowd, s.opts.Now}
	if q.Has("model") {
		plan, err = planner.ForModel(view, model, "model")
	} else {
		plan, err = planner.ForQuery(view, query)
	}
	if err != nil {
		inputProblem(w, err)
		return
	}
	if !q.Has("format") {
		serveJSON(w, r, plan)
		return
	}
	body, contentType, err := planner.Render(plan, q.Get("format"))
	if err != nil {
		inputProblem(w, err)
		return
	}
	serveBody(w, r, contentType, body)
}

// fallbackView is the snapshot with the crowd's counts, which the server
// keeps (in Redis, or in memory), not the snapshot.
type fallbackView struct {
	*Snapshot
	crowd check.Crowd
	now   func() time.Time
}

// Reports is the crowd's count at slug now; false without a crowd.
func (v fallbackView) Reports(slug string) (check.ReportCount, bool) {
	if v.crowd == nil {
		return check.ReportCount{}, false
	}
	return v.crowd.Count(slug, v.now())
}

var _ fallback.View = fallbackView{}
