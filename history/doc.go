// Package history is what one build hands to the next and the rules that
// make it: each service's status time in hourly buckets and daily rollups,
// the retained incidents and the change log and their retention, uptime,
// coverage, latency, measured completions and reliability; with the codecs
// of history.json and of the open dataset, which stores the daily rollups.
// It is the top of the ground floor and imports catalog, api and snapshot.
package history
