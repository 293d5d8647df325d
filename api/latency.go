package api

// ProbeLatency is our probe's latency over the last 24 hours and 7 days,
// in a service's detail document.
type ProbeLatency struct {
	H24 LatencyWindow `json:"24h"`
	D7  LatencyWindow `json:"7d"`
}

// LatencyWindow is our probe's latency over one window: the successful
// probes of the hours that end in it.
type LatencyWindow struct {
	// Samples counts the successful probes the figures are over.
	Samples int `json:"samples"`
	// P50 and P95 are nearest-rank percentiles, each the upper bound of
	// its histogram bin (at most 19% above); nil without samples.
	P50 *float64 `json:"p50"`
	P95 *float64 `json:"p95"`
}
