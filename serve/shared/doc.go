// Package shared is the state replicas share through Redis: the
// connection, with its bounded replies and its fallback to each replica's
// own state while Redis fails, and what /check keeps there, the crowd's
// counts (a check.Crowd) and the live-probe cache (a check.Shared). The
// rate limit kept in Redis is package limits', on this connection (Call).
package shared
