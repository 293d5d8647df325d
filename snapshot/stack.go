package snapshot

import "time"

// StackCheckDoc is the response of GET /check when q lists several services
// with commas (a stack): one check per service, in the order asked, and a
// verdict over the stack. A q with one service keeps CheckDoc's shape.
type StackCheckDoc struct {
	// Query is q as received.
	Query  string       `json:"query"`
	Stack  StackVerdict `json:"stack"`
	Checks []CheckDoc   `json:"checks"`
	// Timestamp and License are as in CheckDoc.
	Timestamp time.Time `json:"timestamp"`
	License   string    `json:"license"`
}

// StackVerdict sums up a stack's checks.
type StackVerdict struct {
	// Level is the worst of the checks' verdict levels, in StackLevels' order.
	Level    string `json:"level"`
	Headline string `json:"headline"`
	// Services counts the checks, Up those whose level is "up".
	Services int `json:"services"`
	Up       int `json:"up"`
}

// StackLevels are Verdict.Level's values, worst first: a stack's level is
// the first of them that one of its checks has. A service we cannot vouch
// for (stale data, unknown, untracked) ranks above "up" and below any
// known trouble.
var StackLevels = []string{"down", "degraded", "maintenance", "stale", "unknown", "untracked", "up"}
