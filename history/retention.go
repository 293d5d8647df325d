package history

import (
	"slices"
	"sort"
	"time"

	"github.com/aistatus/aistatus/api"
)

// MaxNewIncidentsPerFeed bounds how many incidents one feed may add to the
// history in one cycle (updates of incidents already kept are not
// counted). A real page lists a few dozen; one that suddenly lists
// thousands of fresh ones (a bug upstream, a hostile page) would otherwise
// fill the retention caps in a few cycles. The newest are taken first; the
// rest come in on later cycles if the feed still lists them.
const MaxNewIncidentsPerFeed = 500

// fairShares divides budget between services holding counts[slug] entries
// each, so that no service loses an entry while another keeps more than
// it: every service keeps min(count, share), share the largest that fits
// (water-filling), and what is left of the budget goes one by one to the
// services above the share, in slug order. A service at or under the
// budget divided by the number of services therefore never loses to a
// service that floods. It returns nil when everything fits.
func fairShares(counts map[string]int, budget int) map[string]int {
	total := 0
	for _, n := range counts {
		total += n
	}
	if total <= budget {
		return nil
	}
	budget = max(budget, 0)
	sizes := make([]int, 0, len(counts))
	for _, n := range counts {
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	// Find the share: services below it keep all, the others share the rest.
	share, left := 0, budget
	for i, n := range sizes {
		rest := len(sizes) - i
		if n*rest > left {
			share = left / rest
			break
		}
		left -= n
		share = n
	}
	keep := make(map[string]int, len(counts))
	used := 0
	var over []string
	for slug, n := range counts {
		keep[slug] = min(n, share)
		used += keep[slug]
		if n > share {
			over = append(over, slug)
		}
	}
	sort.Strings(over)
	for _, slug := range over {
		if used >= budget {
			break
		}
		keep[slug]++
		used++
	}
	return keep
}

// pruneIncidents drops the incidents that ended more than KeepIncidents
// ago, then, past limit, the oldest ended incidents of the services that
// hold the most (fairShares): one flooding feed cannot push out another
// service's history. Open incidents are never dropped, even when that
// leaves more than limit. The list is newest first, and stays in order. It
// works in place and in linear time: removing incidents one by one was
// quadratic, and a history with many open incidents took a minute.
func pruneIncidents(list []api.Incident, now time.Time, limit int) []api.Incident {
	kept := list[:0]
	ended := map[string]int{}
	open := 0
	for _, inc := range list {
		if inc.Open() {
			open++
		} else if now.Sub(*inc.EndedAt) > KeepIncidents {
			continue
		} else {
			ended[inc.Service]++
		}
		kept = append(kept, inc)
	}
	if share := fairShares(ended, limit-open); share != nil {
		out := kept[:0]
		for _, inc := range kept {
			if !inc.Open() {
				if share[inc.Service] == 0 {
					continue
				}
				share[inc.Service]--
			}
			out = append(out, inc)
		}
		kept = out
	}
	clear(list[len(kept):]) // let the dropped incidents be collected
	return kept
}

// pruneChanges drops, in one pass, entries older than KeepChanges and,
// past limit, the oldest entries of the services with the most
// (fairShares), so that one service's flood of changes leaves the others'
// log whole. The log is complete only after the newest dropped entry, so
// ChangesSince moves there; older entries of other services may remain.
func (h *History) pruneChanges(now time.Time, limit int) {
	cutoff := now.Add(-KeepChanges)
	old := sort.Search(len(h.Changes), func(i int) bool { return !h.Changes[i].Time.Before(cutoff) })
	counts := map[string]int{}
	for _, c := range h.Changes[old:] {
		counts[c.Service]++
	}
	share := fairShares(counts, limit)
	if old == 0 && share == nil {
		return
	}
	// Each service keeps its newest share entries: skip the first
	// counts−share of each, oldest first.
	skip := map[string]int{}
	for slug, n := range share {
		skip[slug] = counts[slug] - n
	}
	var lastDropped time.Time
	if old > 0 {
		lastDropped = h.Changes[old-1].Time
	}
	// A fresh slice, so the dropped entries' backing array is collected.
	kept := make([]api.Change, 0, len(h.Changes)-old)
	for _, c := range h.Changes[old:] {
		if skip[c.Service] > 0 {
			skip[c.Service]--
			lastDropped = c.Time
			continue
		}
		kept = append(kept, c)
	}
	if lastDropped.After(h.ChangesSince) {
		h.ChangesSince = lastDropped
	}
	h.Changes = kept
}
