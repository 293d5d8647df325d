package history

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// The measured-completion rules (also in docs/api.md and the OpenAPI).
const (
	// MeasuredKeep is how long samples are kept: the longest window.
	MeasuredKeep = 24 * time.Hour
	// maxSamplesPerModel bounds a model's samples: one a minute for a day,
	// with room for a faster --every.
	maxSamplesPerModel = 3 * 24 * 60
	// MeasuredDownAfter consecutive provider failures make a model's
	// status a major outage; one makes it degraded.
	MeasuredDownAfter = 3
	// MeasuredDegradedRate is the 1 h error rate from which a model whose
	// latest completion succeeded still reads degraded, once the window
	// holds MeasuredMinSamples counted samples.
	MeasuredDegradedRate = 0.2
	MeasuredMinSamples   = 5
	// MeasuredFresh is how old the latest counted sample may be for the
	// model to have a status; past it the status is unknown.
	MeasuredFresh = time.Hour
)

// RecordCompletion adds a sample of model id and drops samples older than
// MeasuredKeep (and the oldest past the cap).
func (sh *ServiceHistory) RecordCompletion(id string, s api.CompletionSample) {
	if sh.Completions == nil {
		sh.Completions = map[string][]api.CompletionSample{}
	}
	list := append(sh.Completions[id], s)
	cut := 0
	for cut < len(list) && s.At.Sub(list[cut].At) > MeasuredKeep {
		cut++
	}
	cut = max(cut, len(list)-maxSamplesPerModel)
	sh.Completions[id] = append(list[:0], list[cut:]...)
}

// LastCompletionAt is the time of the latest sample of any model; zero when
// there is none.
func (sh *ServiceHistory) LastCompletionAt() time.Time {
	var last time.Time
	for _, list := range sh.Completions {
		if n := len(list); n > 0 && list[n-1].At.After(last) {
			last = list[n-1].At
		}
	}
	return last
}

// Measured computes the published figures of every model of p from the
// service's samples, at now. Models without any sample in MeasuredKeep are
// left out: a service whose key is not set publishes an empty list.
func (sh *ServiceHistory) Measured(p *catalog.CompletionProbe, now time.Time) []api.MeasuredModel {
	out := []api.MeasuredModel{}
	if p == nil {
		return out
	}
	for _, ref := range p.Models {
		samples := sh.Completions[ref.ID]
		if len(samples) == 0 || now.Sub(samples[len(samples)-1].At) > MeasuredKeep {
			continue
		}
		last := samples[len(samples)-1]
		at := last.At.UTC()
		m := api.MeasuredModel{
			Model: ref.ID, APIModel: ref.Model, LastSampleAt: &at, LastOutcome: last.Outcome,
			Windows: api.MeasuredWindows{
				Hour: window("1h", samples, now.Add(-time.Hour), now),
				Day:  window("24h", samples, now.Add(-24*time.Hour), now),
			},
		}
		m.Status = modelStatus(samples, m.Windows.Hour, now)
		if m.Status == api.Unknown && last.Outcome.OurProblem() {
			m.Note = fmt.Sprintf("Our latest completion was refused (%s%s): our configuration, not an outage of the provider.",
				last.Outcome, httpSuffix(last.HTTPStatus))
		}
		out = append(out, m)
	}
	return out
}

func httpSuffix(status int) string {
	if status == 0 {
		return ""
	}
	return fmt.Sprintf(", HTTP %d", status)
}

// modelStatus is the measured rule for one model: unknown when the latest
// sample says nothing of the provider (our configuration's problem, or
// discarded with our network), or without a counted sample in
// MeasuredFresh; major_outage when the latest
// MeasuredDownAfter counted samples all failed other than by a rate limit;
// degraded when the latest failed, or the hour's error rate reaches
// MeasuredDegradedRate; operational otherwise. A successful completion is
// the one observation that can show a service works.
func modelStatus(samples []api.CompletionSample, hour api.MeasuredWindow, now time.Time) api.Status {
	if !samples[len(samples)-1].Outcome.Counted() {
		return api.Unknown
	}
	var recent []api.CompletionSample // counted, newest first
	for i := len(samples) - 1; i >= 0 && len(recent) < MeasuredDownAfter; i-- {
		if samples[i].Outcome.Counted() {
			recent = append(recent, samples[i])
		}
	}
	if len(recent) == 0 || now.Sub(recent[0].At) > MeasuredFresh {
		return api.Unknown
	}
	hard := len(recent) == MeasuredDownAfter
	for _, s := range recent {
		hard = hard && s.Outcome.ProviderFailure() && s.Outcome != api.OutcomeRateLimited
	}
	switch {
	case hard:
		return api.MajorOutage
	case recent[0].Outcome.ProviderFailure():
		return api.Degraded
	case hour.Samples >= MeasuredMinSamples && hour.ErrorRate != nil && *hour.ErrorRate >= MeasuredDegradedRate:
		return api.Degraded
	}
	return api.Operational
}

// window computes the figures of the samples in (from, to].
func window(name string, samples []api.CompletionSample, from, to time.Time) api.MeasuredWindow {
	w := api.MeasuredWindow{Window: name}
	var ttft, total []float64
	failures := 0
	for _, s := range samples {
		if !s.At.After(from) || s.At.After(to) || !s.Outcome.Counted() {
			continue
		}
		w.Samples++
		if s.Outcome.ProviderFailure() {
			failures++
			w.LastError = &api.MeasuredError{At: s.At.UTC(), Outcome: s.Outcome, HTTPStatus: s.HTTPStatus, Code: s.Code}
			continue
		}
		if s.TTFTMs != nil {
			ttft = append(ttft, *s.TTFTMs)
		}
		if s.TotalMs != nil {
			total = append(total, *s.TotalMs)
		}
	}
	if w.Samples > 0 {
		rate := math.Round(float64(failures)/float64(w.Samples)*10000) / 10000
		w.ErrorRate = &rate
	}
	w.TTFTMs, w.TotalMs = PercentilesOf(ttft), PercentilesOf(total)
	return w
}

// PercentilesOf returns the nearest-rank p50 and p95 of values (sorted in
// place), to 0.1 ms.
func PercentilesOf(values []float64) api.Percentiles {
	if len(values) == 0 {
		return api.Percentiles{}
	}
	slices.Sort(values)
	rank := func(p float64) *float64 {
		i := int(math.Ceil(p*float64(len(values)))) - 1
		v := math.Round(values[max(i, 0)]*10) / 10
		return &v
	}
	return api.Percentiles{P50: rank(0.50), P95: rank(0.95)}
}

// ServiceMeasured folds the models' statuses into the service's measured
// status: unknown when no model has one; major_outage when every model
// with a status is down; partial_outage when some are down; degraded when
// any is degraded; operational when all are.
func ServiceMeasured(models []api.MeasuredModel) api.Status {
	known, down, degraded := 0, 0, 0
	for _, m := range models {
		switch m.Status {
		case api.Unknown:
			continue
		case api.MajorOutage:
			down++
		case api.Degraded:
			degraded++
		}
		known++
	}
	switch {
	case known == 0:
		return api.Unknown
	case down == known:
		return api.MajorOutage
	case down > 0:
		return api.PartialOutage
	case degraded > 0:
		return api.Degraded
	}
	return api.Operational
}

// FailingCompletionsSince is when the current run of provider failures of any model
// began (counted samples only); zero when the latest counted sample of
// every model succeeded.
func (sh *ServiceHistory) FailingCompletionsSince() time.Time {
	var since time.Time
	for _, samples := range sh.Completions {
		var start time.Time
		for i := len(samples) - 1; i >= 0; i-- {
			s := samples[i]
			if !s.Outcome.Counted() {
				continue
			}
			if !s.Outcome.ProviderFailure() {
				break
			}
			start = s.At
		}
		if !start.IsZero() && (since.IsZero() || start.Before(since)) {
			since = start
		}
	}
	return since
}

// checkCompletions reports samples no build writes: an unknown outcome, a
// negative or non-finite time, samples out of order or over the cap.
func (sh *ServiceHistory) checkCompletions() error {
	for id, list := range sh.Completions {
		if len(list) > maxSamplesPerModel {
			return fmt.Errorf("model %q: %d samples, over the cap", id, len(list))
		}
		for i, s := range list {
			if !slices.Contains(api.CompletionOutcomes, s.Outcome) {
				return fmt.Errorf("model %q: unknown outcome %q", id, s.Outcome)
			}
			for _, v := range []*float64{s.TTFTMs, s.TotalMs} {
				if v != nil && (*v < 0 || math.IsInf(*v, 0) || math.IsNaN(*v) || *v > 1e9) {
					return fmt.Errorf("model %q: a time out of range", id)
				}
			}
			if i > 0 && s.At.Before(list[i-1].At) {
				return fmt.Errorf("model %q: samples out of order", id)
			}
		}
	}
	return nil
}

// ApplyMeasured folds our completions into the status decided from the
// page and the probe (the measured rule, docs/api.md):
//
//   - The models' measured statuses fold into one (history.ServiceMeasured);
//     unknown leaves the status as it was.
//   - Where the page and our probe had no word (unknown), the measured
//     status stands, operational included: a completion that succeeds is
//     the one observation that shows a service works.
//   - Where it is worse than the status decided so far, it wins, and when
//     the page had a word, the disagreement with it is published, as for
//     our probe. A page's maintenance stands: failures are expected then.
//   - It never makes a status better: a host probe's outage stands even if
//     a completion got through.
func (sh *ServiceHistory) ApplyMeasured(svc catalog.Service, o Reading, now time.Time,
	status api.Status, basis api.Basis, dis *api.Disagreement) (api.Status, api.Basis, *api.Disagreement) {
	models := sh.Measured(svc.Completion, now)
	measured := ServiceMeasured(models)
	switch {
	case measured == api.Unknown || status == api.Maintenance:
		return status, basis, dis
	case status == api.Unknown:
		return measured, api.BasisMeasured, nil
	case api.Worse(status, measured) == status:
		return status, basis, dis
	}
	official, ok := o.Declared()
	if !ok {
		return measured, api.BasisMeasured, dis
	}
	since := sh.FailingCompletionsSince()
	if since.IsZero() {
		since = now // failing by the hour's error rate, not a run
	}
	return measured, api.BasisMeasured, &api.Disagreement{
		By: api.EvidenceMeasured, Since: since, Official: official, Measured: measured,
		Detail: fmt.Sprintf("Our completions fail while the official status page says %s: %s.", official, describeFailing(models)),
	}
}

// describeFailing says which models fail and how, for a disagreement's
// detail: "openai/gpt-4o-mini: overloaded (HTTP 529, overloaded_error) at
// 2026-11-23T20:00:00Z, 1 h error rate 50% over 4".
func describeFailing(models []api.MeasuredModel) string {
	var parts []string
	for _, m := range models {
		if m.Status != api.Degraded && m.Status != api.MajorOutage {
			continue
		}
		part := fmt.Sprintf("%s reads %s", m.Model, m.Status)
		if e := m.Windows.Hour.LastError; e != nil {
			part += fmt.Sprintf(", last failure %s", describeError(*e))
		}
		if r := m.Windows.Hour.ErrorRate; r != nil {
			part += fmt.Sprintf(", 1 h error rate %.0f%% over %d", *r*100, m.Windows.Hour.Samples)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// describeError says one failed completion in words:
// "overloaded (HTTP 529, overloaded_error) at 2026-11-23T20:00:00Z".
func describeError(e api.MeasuredError) string {
	s := string(e.Outcome)
	if d := e.Detail(); d != "" {
		s += " (" + d + ")"
	}
	return s + " at " + e.At.UTC().Format(time.RFC3339)
}
