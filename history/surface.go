package history

import (
	"iter"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// Surface returns the history of the service's surface id for recording,
// creating it when absent.
func (sh *ServiceHistory) Surface(id catalog.SurfaceID) *ServiceHistory {
	if sh.Surfaces == nil {
		sh.Surfaces = map[catalog.SurfaceID]*ServiceHistory{}
	}
	sf := sh.Surfaces[id]
	if sf == nil {
		sf = &ServiceHistory{}
		sh.Surfaces[id] = sf
	}
	return sf
}

// LastWord is what the official page last declared of this history's
// subject (a service's API or a surface), while it may stand in for a page
// that cannot be read: for up to MaxHold after it was read (Assemble's
// rule 4). False with no word, or one too old.
func (sh *ServiceHistory) LastWord(now time.Time) (api.Status, bool) {
	if sh.LastFeedStatus == "" || now.Sub(sh.LastFeedAt) > MaxHold {
		return "", false
	}
	return sh.LastFeedStatus, true
}

// LookupSurface returns the history of the service's surface id, empty
// when there is none (Surface creates it).
func (sh *ServiceHistory) LookupSurface(id catalog.SurfaceID) *ServiceHistory {
	if sf := sh.Surfaces[id]; sf != nil {
		return sf
	}
	return &ServiceHistory{}
}

// histories are every history h keeps, each service's ("anthropic") then
// its surfaces' ("anthropic/app"): what is pruned and checked for a
// service is pruned and checked for its surfaces too. Nil entries are
// skipped.
func (h *History) histories() iter.Seq2[string, *ServiceHistory] {
	return func(yield func(string, *ServiceHistory) bool) {
		for slug, sh := range h.Services {
			if sh == nil {
				continue
			}
			if !yield(slug, sh) {
				return
			}
			for id, sf := range sh.Surfaces {
				if sf != nil && !yield(slug+"/"+string(id), sf) {
					return
				}
			}
		}
	}
}
