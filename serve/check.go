package serve

import (
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/snapshot"
)

// maxCheckQuery caps /check's q.
const maxCheckQuery = 256

func (s *Server) handleCheck(w http.ResponseWriter, r *http.Request) {
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	query := q.Get("q")
	switch {
	case !q.Has("q") || query == "":
		problem(w, http.StatusBadRequest, "q", "q is required: a service name, domain or URL, e.g. ?q=openai")
		return
	case len(query) > maxCheckQuery:
		problem(w, http.StatusBadRequest, "q", fmt.Sprintf("q is longer than %d bytes", maxCheckQuery))
		return
	case !utf8.ValidString(query):
		problem(w, http.StatusBadRequest, "q", "q is not valid UTF-8")
		return
	}
	if q.Has("error") && q.Get("error") == "" {
		// Sent but empty is a mistake of the caller's, not "no error".
		problem(w, http.StatusBadRequest, "error", observedHelp)
		return
	}
	doc, err := s.CheckError(snap, query, q.Get("error"))
	if err != nil {
		problem(w, http.StatusBadRequest, "error", err.Error())
		return
	}
	serveJSON(w, r, doc)
}

// CheckError answers a /check query against a snapshot for a caller that
// has just seen observed (the error parameter: an HTTP status, "timeout" or
// "connection"; "" for none), with the advice of the first matching rule of
// checkRules. An invalid observed is an error, for a 400. Only a tracked
// service's catalog probe URL is ever probed.
func (s *Server) CheckError(snap *Snapshot, query, observed string) (snapshot.CheckDoc, error) {
	class, err := classifyObserved(observed)
	if err != nil {
		return snapshot.CheckDoc{}, err
	}
	now := s.opts.Now()
	doc := snapshot.CheckDoc{Query: query, Timestamp: now.UTC(), License: snapshot.License}
	if observed != "" {
		doc.Error = &observed
	}
	svc, ok := s.matcher.Match(query)
	sum, inSnapshot := snap.status[svc.Slug]
	if !ok || !inSnapshot {
		// No advice for a service we know nothing of: the action fields are
		// left out, and the lists are empty rather than null.
		doc.Verdict = snapshot.Verdict{
			Headline:     fmt.Sprintf("%q is not a service aistatus tracks", truncate(query, 64)),
			Emoji:        "❓",
			Level:        "untracked",
			Suggestions:  s.matcher.Suggest(query),
			Evidence:     []snapshot.Evidence{},
			Alternatives: []snapshot.CheckAlternative{},
		}
		return doc, nil
	}
	doc.Tracked = true
	doc.Service = &snapshot.CheckService{Slug: svc.Slug, Name: svc.Name, Domain: svc.Domain}
	status := sum.Status
	doc.Status = &status
	var live *liveResult
	if svc.ProbeURL != "" {
		r := s.prober.probe(svc.ProbeURL)
		live = &r
		if r.probe.State == snapshot.ProbeOK {
			at := r.at.UTC()
			doc.LatencyMs, doc.LatencyCheckedAt = r.probe.LatencyMs, &at
		}
	}
	age, stale := snap.Age(now)
	seconds := int(age.Seconds())
	doc.Verdict = verdict(svc.Name, status, stale, age)
	doc.Verdict.Detail = verdictDetail(svc.Name, sum)
	doc.Verdict.DataAgeSeconds = &seconds

	facts := s.facts(snap, svc, sum, live, now, seconds)
	alts := alternatives(snap, svc)
	a := decide(situation{Error: class, Health: health(doc.Verdict.Level), Probe: facts.probe(),
		Incident: facts.officialIncident(), AltUp: anyUp(alts)})
	v := &doc.Verdict
	v.Action, v.Blame, v.Confidence, v.Reason = a.Action, a.Blame, a.Confidence, a.Reason
	if a.RetryAfter > 0 {
		v.RetryAfterSeconds = &a.RetryAfter
	}
	v.Evidence, v.Alternatives = facts.evidence(), alts
	return doc, nil
}

// verdictDetail says where the status came from when that matters to
// whoever acts on it: our probes overruling a calm official page, a page
// that could not be read, or a service with no page at all.
func verdictDetail(name string, sum snapshot.ServiceSummary) string {
	switch {
	case sum.Disagreement != nil:
		return sum.Disagreement.Detail
	case sum.Feed == snapshot.FeedError:
		return fmt.Sprintf("%s's status page could not be read this time; the status rests on our probe and the page's last word.", name)
	case sum.Feed == snapshot.FeedNone:
		return fmt.Sprintf("%s has no status page that a program can read; the status is our own probe's.", name)
	}
	return ""
}

// verdict phrases a status for people. Stale data is said to be stale
// instead of being presented as current.
func verdict(name string, status snapshot.Status, stale bool, age time.Duration) snapshot.Verdict {
	if stale {
		return snapshot.Verdict{
			Headline: fmt.Sprintf("Data is stale: %s was last checked %s ago (it was %s then)", name, age.Round(time.Minute), phrase(status)),
			Emoji:    "⏳", Level: "stale", Stale: true,
		}
	}
	v := snapshot.Verdict{Headline: name + " is " + phrase(status)}
	switch status {
	case snapshot.Operational:
		v.Emoji, v.Level = "✅", "up"
	case snapshot.Degraded:
		v.Emoji, v.Level = "⚠️", "degraded"
	case snapshot.PartialOutage:
		v.Emoji, v.Level = "🟠", "down"
	case snapshot.MajorOutage:
		v.Emoji, v.Level = "🔴", "down"
	case snapshot.Maintenance:
		v.Emoji, v.Level = "🛠️", "maintenance"
	default:
		v.Headline = "We can't tell whether " + name + " is up right now"
		v.Emoji, v.Level = "❔", "unknown"
	}
	return v
}

func phrase(s snapshot.Status) string {
	switch s {
	case snapshot.Operational:
		return "up"
	case snapshot.Degraded:
		return "up but degraded"
	case snapshot.PartialOutage:
		return "partly down (partial outage)"
	case snapshot.MajorOutage:
		return "down (major outage)"
	case snapshot.Maintenance:
		return "under maintenance"
	default:
		return "of unknown status"
	}
}
