package build

// Unplaced components. Where the catalog places a page's components (a
// service with surfaces or otherComponents), each component is in the
// API's scope, one surface's or otherComponents. A component the page
// added since the catalog was written is in none of them: it counts for no
// status, which is right (no one has said what it is), but it must not go
// unnoticed either. It is published under the service's feed source as
// unplaced, with when it was first seen, and logged once, at warning level
// like a change of the roster, until it leaves the page or the catalog
// places it.
//
// A feed of events has no components but may tag its items with what they
// are posted for (xAI's "[Voice]"): those tags are placed the same way (by
// the scopes' keywords, or by name in otherComponents), and a tag in no
// place is unplaced too, with kind "tag" and no id.
//
// A service whose API scope is the whole page (Cohere: every component but
// those it excludes by name) places a new component in the API by that
// rule, which is the catalog's word: it counts for the API and is not
// unplaced, and the roster alarm (trackRoster) reports it. Only a new
// component its exclusions leave out, and no surface takes, is unplaced.

import (
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// placesComponents reports whether the catalog places every component of
// the service's page: only then is a component in no place news.
func placesComponents(svc catalog.Service) bool {
	return len(svc.Surfaces) > 0 || len(svc.OtherComponents) > 0
}

// unplacedOnPage lists the components and tags of this cycle's read of
// the page that are in no place (FirstSeen unset). ok is false when that
// cannot be told: the page was not read, or a surface's read failed for a
// reason other than its scope matching nothing (its components are then
// unknown, not absent).
func unplacedOnPage(svc catalog.Service, o Observation) (unplaced []api.UnplacedComponent, ok bool) {
	if o.Feed.State != api.FeedOK {
		return nil, false
	}
	placed := map[string]bool{}
	key := func(c api.Component) string { return c.ID + "\x00" + c.Name }
	tagKey := func(name string) string { return api.UnplacedTag + "\x00" + name }
	for _, r := range o.Surfaces {
		if r.Err != nil && feed.Kind(r.Err) != api.FailureScope {
			return nil, false
		}
		for _, c := range r.Components {
			placed[key(c)] = true
		}
		for _, tag := range r.Tags {
			placed[tagKey(tag)] = true
		}
	}
	for _, c := range o.Components {
		if c.InScope || placed[key(c)] || otherComponent(svc, c.ID, c.Name) {
			continue
		}
		placed[key(c)] = true // listed once, even if the page repeats it
		unplaced = append(unplaced, api.UnplacedComponent{ID: c.ID, Name: c.Name})
	}
	for _, tag := range o.Tags {
		if tag.InScope || placed[tagKey(tag.Name)] || otherComponent(svc, "", tag.Name) {
			continue
		}
		placed[tagKey(tag.Name)] = true
		unplaced = append(unplaced, api.UnplacedComponent{Name: tag.Name, Kind: api.UnplacedTag})
	}
	return unplaced, true
}

func otherComponent(svc catalog.Service, id, name string) bool {
	for _, o := range svc.OtherComponents {
		if o.Matches(id, name) {
			return true
		}
	}
	return false
}

// trackUnplaced keeps the page's unplaced components in the history: a
// component keeps the firstSeen of its first cycle in no place, one that
// left the page or that the catalog now places is dropped, and a new one
// is logged once. While the page cannot be read the list stands as it was.
func trackUnplaced(fh *history.FeedHealth, svc catalog.Service, o Observation, now time.Time, log zerolog.Logger) {
	if !placesComponents(svc) {
		fh.Unplaced = nil
		return
	}
	found, ok := unplacedOnPage(svc, o)
	if !ok {
		return
	}
	var kept []api.UnplacedComponent
	for _, u := range found {
		u.FirstSeen = now
		switch i := indexUnplaced(fh.Unplaced, u); {
		case i >= 0:
			u.FirstSeen = fh.Unplaced[i].FirstSeen
		case u.Kind == api.UnplacedTag:
			log.Warn().Str("service", svc.Slug).Str("tag", u.Name).
				Msg("a tag of the official feed's items is in no place (not the API's scope, no surface's, not otherComponents): its items count for no status until the catalog places it")
		default:
			log.Warn().Str("service", svc.Slug).Str("component", u.Name).Str("id", u.ID).
				Msg("a component of the official page is in no place (not the API's scope, no surface's, not otherComponents): it counts for no status until the catalog places it")
		}
		kept = append(kept, u)
	}
	fh.Unplaced = kept
}

func indexUnplaced(list []api.UnplacedComponent, u api.UnplacedComponent) int {
	for i, v := range list {
		if v.ID == u.ID && v.Name == u.Name && v.Kind == u.Kind {
			return i
		}
	}
	return -1
}
