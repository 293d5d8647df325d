package api

// CoverageSources splits a window's coverage by where the status came
// from: our checks (each holding at most history.MaxHold) and the official page's
// incident timeline between them. Their sum is the window's coverage, up
// to rounding down.
type CoverageSources struct {
	Checks   float64 `json:"checks"`
	Timeline float64 `json:"timeline"`
}

// CoverageBreakdown is CoverageSources for each uptime window.
type CoverageBreakdown struct {
	H24 CoverageSources `json:"24h"`
	D7  CoverageSources `json:"7d"`
	D30 CoverageSources `json:"30d"`
}
