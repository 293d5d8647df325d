// Package limits bounds what one client can take from the server: who the
// client is (its address, through trusted proxies), how many requests it
// may make (a per-client GCRA rate limit, local or shared through Redis),
// and how many connections it and everyone together may hold. The Redis
// state that replicas share (the rate limit and /check's probe cache) lives
// here too, with its fallback to each replica's own state while Redis is
// down.
package limits
