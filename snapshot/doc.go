// Package snapshot is the published folder: the names and media types of its
// files, the route table and the headers that serve them, the manifest that
// lists them, the Sink they are rendered into, and publishing a new folder
// atomically under a lock, carrying over what the previous one held. It
// imports only api.
package snapshot
