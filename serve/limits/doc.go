// Package limits bounds what one client can take from the server: who the
// client is (its address, through trusted proxies), how many requests it
// may make (a per-client GCRA rate limit, local or shared through Redis),
// and how many connections it and everyone together may hold. The Redis
// connection the shared rate limit runs on, with its fallback to each
// replica's own limiter while Redis is down, is package shared's.
package limits
