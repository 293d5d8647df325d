package api

// Uptime is the availability of a service over the three standard windows,
// each a percentage or nil when there is no data in that window.
type Uptime struct {
	H24 *float64 `json:"24h"`
	D7  *float64 `json:"7d"`
	D30 *float64 `json:"30d"`
	// D90 and Y1 are the long windows, with the daily rollups: filled by
	// history.History.Windows, left nil by history.ServiceHistory.Uptime.
	D90 *float64 `json:"90d"`
	Y1  *float64 `json:"1y"`
}

// Coverage is the share, from 0 to 1, of each uptime window for which we
// hold a known status (maintenance included, "unknown" not).
type Coverage struct {
	H24 float64 `json:"24h"`
	D7  float64 `json:"7d"`
	D30 float64 `json:"30d"`
	D90 float64 `json:"90d"`
	Y1  float64 `json:"1y"`
}
