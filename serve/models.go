package serve

import (
	"fmt"
	"net/http"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
)

// handleModel serves one watched model's document; a model the catalog
// does not watch is a 404 problem naming the parameter, like a service.
func (s *Server) handleModel(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	id := r.PathValue("author") + "/" + r.PathValue("model")
	var rep = snap.files[snapshot.ModelFile(id)]
	if !catalog.ValidModelID(id) || rep == nil {
		problem(w, http.StatusNotFound, "model", fmt.Sprintf("%q is not a watched model: see %s for the list", api.Truncate(id, 64), snapshot.PathModels))
		return
	}
	if _, ok := parseQuery(w, r); !ok {
		return
	}
	rep.serve(w, r)
}
