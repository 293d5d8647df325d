// Package catalog is what aistatus tracks: the services (each one's status
// page and feed, the feed's scope, the API probe, the surfaces beside the API,
// the completion probe and the error-code table) and the watched models with
// their gateways. It holds the embedded catalog.json and loads, validates and
// prints a catalog. It is the lowest package of ours and imports none of them.
package catalog
