// Package history is what one build hands to the next and the rules that
// make it: each service's status and what it rests on, decided from the
// page's word and our probes, with rule 1 about our own network and a
// surface's held word (status.go), the regional rule over the vantages
// (vantages.go), our measured completions
// (measured.go, ApplyMeasured), the page's incident timeline crediting a
// gap (timeline.go), our own incidents and the page's
// merged into the retained ones (incidents.go), a model's status from a
// gateway's uptime (models.go) and its place on the retirement calendar
// from the gateways' lists and the makers' pages, the maker's date
// winning (lifecycle.go), status time in hourly
// buckets and daily rollups, the change log and retention, uptime,
// coverage, latency, measured completions and reliability; with the codecs
// of history.json and of the open dataset, which stores the daily rollups.
// It is the top of the ground floor and imports catalog, api and snapshot.
package history
