package api

// StackCheckDoc is the answer of GET /check when q lists services with
// commas (a stack): CheckDoc's own fields, so that a typed client reads one
// schema, with Service, Status, Basis and the latency null (there is no one
// service) and the verdict over the stack, plus one check per service, in
// the order asked. A separate type rather than a field of CheckDoc: a
// CheckDoc holding CheckDocs would be a recursive type, which the MCP
// tools' schemas cannot describe.
type StackCheckDoc struct {
	CheckDoc
	Checks []CheckDoc `json:"checks"`
}

// StackLevels are Verdict.Level's values, worst first: the verdict over a
// stack has the first of them that one of its checks has. A service we
// cannot vouch for (stale data, unknown, untracked) ranks above "up" and
// below any known trouble; a retired model is as unusable as one down.
var StackLevels = []string{"down", LevelRetired, "degraded", "maintenance", "stale", "unknown", "untracked", "up"}
