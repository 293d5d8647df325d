// Package api is the vocabulary of what aistatus publishes: statuses, bases
// and severities; incidents and their ids; the change log's entries; what a
// build observes (the official feed, the probe, measured completions); and
// the document every endpoint answers with, down to the cleaning of the text
// that goes into them. It holds types and the few rules that belong to them,
// and imports only catalog.
package api
