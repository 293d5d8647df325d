package serve

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/promtext"
	"github.com/aistatus/aistatus/snapshot"
)

// handleMetrics serves the built Prometheus exposition with the crowd's
// live series appended, as handleSituation adds the crowd to the
// situation: the build cannot know the crowd, and an alert on /metrics
// should see a surge that /check and the statusline note. The crowd's
// families are reports, said so in their HELP, and apart from the status
// series, which a surge leaves as built: whoever gathers callers on ten
// networks moves aistatus_crowd_surge, never aistatus_service_status. A
// static host, or a server without a crowd, serves the file as built; so
// does the file's own name (/metrics.txt), which is the built file.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	s.metricsWithCrowd(snap.files[snapshot.FileMetrics], snap.order, s.opts.Now()).serve(w, r)
}

// metricsWithCrowd is rep (the built metrics) followed by two families,
// one sample per service of slugs (the snapshot's, so bounded by its
// catalog) that the crowd can count at now.
func (s *Server) metricsWithCrowd(rep *representation, slugs []string, now time.Time) *representation {
	if s.crowd == nil || rep == nil {
		return rep
	}
	counts := s.crowdReportsAll(slugs, now)
	if len(counts) == 0 {
		return rep
	}
	return s.crowdMetrics.get(rep, counts, func() *representation {
		var b bytes.Buffer
		b.Write(rep.body)
		p := promtext.NewWriter(&b)
		p.Family("aistatus_crowd_reports", fmt.Sprintf("Reports, not a status: the distinct networks (an IPv4 /24 or an IPv6 /48 each) from which callers reported an error with the service's API through /check in the current %d-minute window; counted live by the server, absent from a statically hosted /metrics.", int(check.ReportWindow.Minutes())))
		for _, slug := range slugs {
			if r, ok := counts[slug]; ok {
				p.Sample(float64(r.Count), "service", slug)
			}
		}
		p.Family("aistatus_crowd_surge", fmt.Sprintf("Reports, not a status: 1 while the crowd's count is a surge (at least %d networks and %d times the usual count at that hour), else 0; 0 without a baseline to compare with. The status series do not read it.", check.SurgeMinReports, check.SurgeFactor))
		for _, slug := range slugs {
			if r, ok := counts[slug]; ok {
				p.Sample(promtext.Bool(r.State == check.ReportsSurge), "service", slug)
			}
		}
		// Into a buffer: it cannot fail.
		_ = p.Close()
		return newRepresentation(b.Bytes(), rep.contentType)
	})
}
