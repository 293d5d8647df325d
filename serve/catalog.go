package serve

import (
	"slices"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/rs/zerolog"
)

// The catalog a snapshot carries (snapshot.FileCatalog) is what /check
// matches and answers by. A replica takes it from its origin, which is
// another party's site: catalog.Parse checks its shape, not its text, nor
// what its names point at. So, at load, its text is cleaned as a status
// page's is at the feed door (api.CleanText: no control or invisible
// format character, bounded), and before /check answers by it, an alias
// that names another service of the server's own catalog is dropped
// (DropForeignAliases): an origin must not make "claude" answer for
// OpenAI. A probe URL's query never reaches the evidence either (the
// probe package says the URL without it).

// The caps on a snapshot catalog's text, in characters: far above the
// embedded catalog's longest (a name 31, a host 33, a note 628).
const (
	maxCatalogName = 100
	maxCatalogHost = 253 // a DNS name's longest
	maxCatalogNote = 1000
)

// cleanCatalogText cleans, in place, every text field of cat that is read
// or shown by name: names, aliases, hosts, notes and reasons. Slugs, ids,
// codes and formats are checked by catalog.Parse against their patterns,
// URLs parse (which refuses control characters), and scopes are the
// builder's, never read by the server. A name cleaned to nothing becomes
// its slug or id.
func cleanCatalogText(cat *catalog.Catalog) {
	names := func(list []string, max int) {
		for i := range list {
			list[i] = api.CleanText(list[i], max)
		}
	}
	name := func(s, fallback string) string {
		if s = api.CleanText(s, maxCatalogName); s == "" {
			return fallback
		}
		return s
	}
	for i := range cat.Services {
		svc := &cat.Services[i]
		svc.Name = name(svc.Name, svc.Slug)
		svc.Domain = api.CleanText(svc.Domain, maxCatalogHost)
		names(svc.Domains, maxCatalogHost)
		names(svc.Aliases, maxCatalogName)
		for k := range svc.Alternatives {
			svc.Alternatives[k].Why = api.CleanText(svc.Alternatives[k].Why, maxCatalogNote)
		}
		svc.Feed.Note = api.CleanText(svc.Feed.Note, maxCatalogNote)
		for k := range svc.Surfaces {
			sf := &svc.Surfaces[k]
			sf.Name = name(sf.Name, string(sf.ID))
			names(sf.Aliases, maxCatalogName)
			names(sf.Domains, maxCatalogHost)
		}
		for k := range svc.OtherComponents {
			oc := &svc.OtherComponents[k]
			oc.Name, oc.Why = api.CleanText(oc.Name, maxCatalogName), api.CleanText(oc.Why, maxCatalogNote)
		}
	}
	for table, rows := range cat.ErrorCodes {
		for k := range rows {
			cat.ErrorCodes[table][k].Note = api.CleanText(rows[k].Note, maxCatalogNote)
		}
	}
	for i := range cat.Models.Gateways {
		g := &cat.Models.Gateways[i]
		g.Name, g.Attribution = name(g.Name, g.ID), api.CleanText(g.Attribution, maxCatalogNote)
	}
	for i := range cat.Models.Pinned {
		m := &cat.Models.Pinned[i]
		m.Name = name(m.Name, m.ID)
		names(m.Aliases, maxCatalogName)
		for k := range m.Components {
			m.Components[k].Name = api.CleanText(m.Components[k].Name, maxCatalogName)
			m.Components[k].Region = api.CleanText(m.Components[k].Region, maxCatalogName)
		}
	}
}

// DropForeignAliases returns built, the catalog a snapshot carries, less
// every alias of a service (or of one of its surfaces) that /check would
// match, by own's names, to another service of own: its slug, name, an
// alias, a domain or a subdomain of one. Each is logged. built is not
// changed. The server answers /check by the result, and so does
// `aistatus check --dir`.
//
// Only aliases, of services, surfaces and pinned models: they are the
// catalog's free text for "also answer to this", and the one field an
// origin could re-point unseen. A service's
// own name and domains stay, so that an origin can still track a service
// the replica's catalog does not.
func DropForeignAliases(built, own catalog.Catalog, log zerolog.Logger) catalog.Catalog {
	ownNames := check.NewMatcher(own)
	out := built
	out.Services = slices.Clone(built.Services)
	foreign := func(svc catalog.Service, where string, aliases []string) []string {
		var kept []string
		for _, a := range aliases {
			if other, ok := ownNames.Match(a); ok && other.Slug != svc.Slug {
				log.Warn().Str("service", svc.Slug).Str("in", where).Str("alias", a).Str("names", other.Slug).
					Msg("the snapshot's catalog gives a service an alias of another: alias dropped")
				continue
			}
			kept = append(kept, a)
		}
		return kept
	}
	for i, svc := range out.Services {
		svc.Aliases = foreign(svc, "aliases", svc.Aliases)
		svc.Surfaces = slices.Clone(svc.Surfaces)
		for k, sf := range svc.Surfaces {
			svc.Surfaces[k].Aliases = foreign(svc, "surfaces."+string(sf.ID)+".aliases", sf.Aliases)
		}
		out.Services[i] = svc
	}
	// A pinned model's alias that names another of our pinned models would
	// answer model= and q= with that model's status.
	// An alias our own catalog gives the model too stays, whatever else
	// it may name.
	ownModels := check.PinnedModels(own)
	out.Models.Pinned = slices.Clone(built.Models.Pinned)
	for i, md := range out.Models.Pinned {
		ours, _ := own.Models.Lookup(md.ID)
		md.Aliases = slices.DeleteFunc(slices.Clone(md.Aliases), func(a string) bool {
			other, ok := ownModels(a)
			drop := ok && other.ID != md.ID && !slices.Contains(ours.Aliases, a)
			if drop {
				log.Warn().Str("model", md.ID).Str("alias", a).Str("names", other.ID).
					Msg("the snapshot's catalog gives a model an alias of another: alias dropped")
			}
			return drop
		})
		out.Models.Pinned[i] = md
	}
	return out
}
