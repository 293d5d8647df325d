package serve

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// handleSituation serves situation.json with the crowd's live count added
// to each service's subject, as handleService adds it to the service's
// document: the build cannot know the crowd, and the one document that
// gives every subject's status should carry what the server knows of it.
func (s *Server) handleSituation(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	rep := snap.files[snapshot.FileSituation]
	if rep == nil {
		// A snapshot built before the situation was published.
		problem(w, http.StatusNotFound, "", "this snapshot has no situation: it was built by an older aistatus")
		return
	}
	s.situationWithReports(rep, s.opts.Now()).serve(w, r)
}

// withSituationReports keeps the situation with the crowd's counts: the
// file decoded once per snapshot, and its service subjects' slugs.
type withSituationReports struct {
	mu    sync.Mutex
	file  *representation
	doc   api.Situation
	slugs []string
	with  crowdOverlay
}

// decoded is rep's situation and its service subjects' slugs, decoded once
// per file; false when rep is not a situation.
func (c *withSituationReports) decoded(rep *representation) (api.Situation, []string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file != rep {
		var doc api.Situation
		if err := json.Unmarshal(rep.body, &doc); err != nil {
			return api.Situation{}, nil, false
		}
		var slugs []string
		for _, sub := range doc.Subjects {
			if sub.Kind == api.SubjectService {
				slugs = append(slugs, sub.Service)
			}
		}
		c.file, c.doc, c.slugs = rep, doc, slugs
	}
	return c.doc, c.slugs, true
}

// situationWithReports is rep (situation.json) with each service subject's
// crowd count at now; rep itself without a crowd (Options.NoCrowd). A
// service the crowd cannot count goes without, as its document does.
func (s *Server) situationWithReports(rep *representation, now time.Time) *representation {
	if s.crowd == nil {
		return rep
	}
	doc, slugs, ok := s.situationReports.decoded(rep)
	if !ok {
		return rep // not a situation: served as built
	}
	// By subject id: a service's subject id is its slug.
	counts := s.crowdReportsAll(slugs, now)
	return s.situationReports.with.get(rep, counts, func() *representation {
		doc.Subjects = slices.Clone(doc.Subjects)
		for i, sub := range doc.Subjects {
			if r, ok := counts[sub.ID]; ok {
				doc.Subjects[i].Reports = &r
			}
		}
		body, err := json.Marshal(doc)
		if err != nil {
			return rep
		}
		return newRepresentation(append(body, '\n'), rep.contentType)
	})
}
