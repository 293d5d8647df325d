package snapshot

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// CompletionStyle is the request style of a service's completion API.
type CompletionStyle string

// The request styles the completion probe speaks.
const (
	// StyleOpenAI: POST {url} (…/chat/completions) with "stream": true; the
	// answer is server-sent events "data: {chunk}" ending in "data: [DONE]".
	// The key goes in "Authorization: Bearer". OpenAI, Groq, Mistral,
	// DeepSeek, xAI, Together, Fireworks, OpenRouter and others speak it.
	StyleOpenAI CompletionStyle = "openai"
	// StyleAnthropic: POST {url} (…/v1/messages) with "stream": true; the
	// answer is named events from message_start to message_stop. The key
	// goes in "x-api-key".
	StyleAnthropic CompletionStyle = "anthropic"
	// StyleGemini: POST {url}/{model}:streamGenerateContent?alt=sse; the
	// answer is "data: {GenerateContentResponse}" events, the last with a
	// finishReason. The key goes in "x-goog-api-key", never in the query.
	StyleGemini CompletionStyle = "gemini"
)

// CompletionStyles lists every style.
var CompletionStyles = []CompletionStyle{StyleOpenAI, StyleAnthropic, StyleGemini}

// CompletionProbe configures the measured completions of one service: where
// a tiny streamed completion is sent, in which style, with the key of which
// environment variable, for which models. Nothing is sent unless the
// operator sets that variable.
type CompletionProbe struct {
	Style CompletionStyle `json:"style"`
	// URL is the endpoint (for Gemini, the models collection the model
	// name is appended to). It must be https: the key goes nowhere else
	// (plain http is accepted only for a loopback address, for tests and
	// local fakes).
	URL string `json:"url"`
	// KeyEnv is the environment variable holding the key, the one the
	// provider's own SDKs read (OPENAI_API_KEY, ANTHROPIC_API_KEY, …).
	KeyEnv string             `json:"keyEnv"`
	Models []MeasuredModelRef `json:"models"`
}

// MeasuredModelRef is one model a completion probe measures.
type MeasuredModelRef struct {
	// ID names the model as author/model, the form OpenRouter uses
	// ("openai/gpt-4o-mini"), so that figures join across services.
	ID string `json:"id"`
	// Model is the model as the service's API names it in a request.
	Model string `json:"model"`
}

var (
	keyEnvPattern  = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)
	modelIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._:-]*$`)
	apiModelChars  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$`)
)

// KeyDestinationOK reports whether a key may be sent to raw: over https, or
// over plain http to a loopback address only (a test's or a local fake's).
func KeyDestinationOK(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	if u.User != nil {
		return errors.New("the URL carries credentials")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
			return nil
		}
		return fmt.Errorf("%s: a key is sent over https only (plain http to a loopback address alone)", u.Host)
	}
	return fmt.Errorf("%s: scheme %q: a key is sent over https only", u.Host, u.Scheme)
}

// problems lists what is wrong with a completion probe's configuration.
func (p CompletionProbe) problems() []string {
	var out []string
	if !slices.Contains(CompletionStyles, p.Style) {
		out = append(out, fmt.Sprintf("completion.style %q is not one of %v", p.Style, CompletionStyles))
	}
	if err := KeyDestinationOK(p.URL); err != nil {
		out = append(out, "completion.url: "+err.Error())
	} else if u, _ := url.Parse(p.URL); u.RawQuery != "" || u.Fragment != "" {
		out = append(out, "completion.url: no query or fragment (the key never travels in a URL)")
	}
	if !keyEnvPattern.MatchString(p.KeyEnv) {
		out = append(out, fmt.Sprintf("completion.keyEnv %q must be an environment variable name (A-Z, 0-9, _)", p.KeyEnv))
	}
	if len(p.Models) == 0 {
		out = append(out, "completion.models is empty")
	}
	seen := map[string]bool{}
	for i, m := range p.Models {
		if !modelIDPattern.MatchString(m.ID) {
			out = append(out, fmt.Sprintf("completion.models[%d].id %q must be author/model in lower case", i, m.ID))
		}
		if !apiModelChars.MatchString(m.Model) {
			out = append(out, fmt.Sprintf("completion.models[%d].model %q is not a model name", i, m.Model))
		}
		if seen[m.ID] {
			out = append(out, fmt.Sprintf("completion.models[%d].id %q is listed twice", i, m.ID))
		}
		seen[m.ID] = true
	}
	return out
}

// CompletionOutcome classifies one measured completion as the provider
// answered it.
type CompletionOutcome string

// The outcomes. Failures of the provider count in the error rate and move
// the status; our configuration's problems (a refused key, a model the key
// cannot use, our quota) and measurements blamed on our own network do not.
const (
	OutcomeOK CompletionOutcome = "ok"
	// OutcomeRateLimited: 429 whose code is not a quota of ours.
	OutcomeRateLimited CompletionOutcome = "rate_limited"
	// OutcomeOverloaded: 529, or a code the provider documents as overload.
	OutcomeOverloaded  CompletionOutcome = "overloaded"
	OutcomeServerError CompletionOutcome = "server_error"
	OutcomeTimeout     CompletionOutcome = "timeout"
	// OutcomeStreamCut: the stream ended, or carried an error event, before
	// its documented end ([DONE], message_stop, a finishReason).
	OutcomeStreamCut CompletionOutcome = "stream_cut"
	// OutcomeEmpty: a complete stream with no text in it.
	OutcomeEmpty CompletionOutcome = "empty"
	// OutcomeNetwork: no answer (refused, reset, DNS, TLS).
	OutcomeNetwork CompletionOutcome = "network"
	// OutcomeKeyRefused: 401 or 403: our key, not an outage.
	OutcomeKeyRefused CompletionOutcome = "key_refused"
	// OutcomeQuota: 402, or a 429 whose code is a quota or billing limit:
	// our account, not an outage.
	OutcomeQuota CompletionOutcome = "quota"
	// OutcomeRequestRefused: another 4xx (a model gone or not available to
	// the key, a request refused): our configuration.
	OutcomeRequestRefused CompletionOutcome = "request_refused"
	// OutcomeDiscarded: a failure in a cycle when most of our probes failed
	// at once (our own network): no evidence about the provider.
	OutcomeDiscarded CompletionOutcome = "discarded"
)

// CompletionOutcomes lists every outcome.
var CompletionOutcomes = []CompletionOutcome{OutcomeOK, OutcomeRateLimited, OutcomeOverloaded, OutcomeServerError,
	OutcomeTimeout, OutcomeStreamCut, OutcomeEmpty, OutcomeNetwork, OutcomeKeyRefused, OutcomeQuota,
	OutcomeRequestRefused, OutcomeDiscarded}

// ProviderFailure reports whether o is the provider's failure: it counts
// in the error rate and moves the status.
func (o CompletionOutcome) ProviderFailure() bool {
	switch o {
	case OutcomeRateLimited, OutcomeOverloaded, OutcomeServerError, OutcomeTimeout, OutcomeStreamCut, OutcomeEmpty, OutcomeNetwork:
		return true
	}
	return false
}

// Counted reports whether o says anything about the provider: a success or
// one of its failures, not our configuration's problem or our network's.
func (o CompletionOutcome) Counted() bool { return o == OutcomeOK || o.ProviderFailure() }

// ourProblem reports whether o is our configuration's problem.
func (o CompletionOutcome) ourProblem() bool {
	return o == OutcomeKeyRefused || o == OutcomeQuota || o == OutcomeRequestRefused
}

// CompletionSample is one measured completion, as the history keeps it.
type CompletionSample struct {
	At      time.Time         `json:"at"`
	Outcome CompletionOutcome `json:"outcome"`
	// HTTPStatus is the answer's status; 0 when there was none.
	HTTPStatus int `json:"httpStatus,omitempty"`
	// Code is the provider's error code or type from its error body or
	// error event ("overloaded_error", "rate_limit_exceeded") when the
	// service's error table lists it, else OtherErrorCode; never its
	// message, which may quote part of the key.
	Code string `json:"code,omitempty"`
	// TTFTMs is the time from sending the request to the first token of
	// text; TotalMs to the stream's end. Set on success only.
	TTFTMs  *float64 `json:"ttftMs,omitempty"`
	TotalMs *float64 `json:"totalMs,omitempty"`
}

// OtherErrorCode is a sample's code when the provider sent one that the
// service's error table does not list (or that holds a piece of the key):
// a value where a code goes can be anything the provider echoes, the key
// included, so only the table's values are published as they came.
const OtherErrorCode = "other"

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
func (sh *ServiceHistory) RecordCompletion(id string, s CompletionSample) {
	if sh.Completions == nil {
		sh.Completions = map[string][]CompletionSample{}
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

// MeasuredModel is what our completions measured of one model, in a
// service's detail document.
type MeasuredModel struct {
	// Model is author/model ("openai/gpt-4o-mini"), the key to join on.
	Model string `json:"model"`
	// APIModel is the name the service's API was asked for.
	APIModel string `json:"apiModel"`
	// Status is the model's status by the measured rule (docs/api.md).
	Status Status `json:"status"`
	// LastSampleAt and LastOutcome describe the latest completion sent.
	LastSampleAt *time.Time        `json:"lastSampleAt"`
	LastOutcome  CompletionOutcome `json:"lastOutcome,omitempty"`
	// Note says why the status is unknown when our configuration is at
	// fault (a refused key): that is not the provider's outage.
	Note string `json:"note,omitempty"`
	// Windows are the figures over the last hour and the last day.
	Windows MeasuredWindows `json:"windows"`
}

// MeasuredWindows are a model's figures over the two windows.
type MeasuredWindows struct {
	Hour MeasuredWindow `json:"1h"`
	Day  MeasuredWindow `json:"24h"`
}

// MeasuredWindow is a model's figures over one window, ending at the
// snapshot's generation.
type MeasuredWindow struct {
	Window string `json:"window"`
	// Samples counts the completions that say something of the provider:
	// successes and its failures (ProviderFailure), not our own problems.
	Samples int `json:"samples"`
	// TTFTMs and TotalMs are over the successful samples, nearest-rank.
	TTFTMs  Percentiles `json:"ttftMs"`
	TotalMs Percentiles `json:"totalMs"`
	// ErrorRate is the provider's failures over Samples; nil without samples.
	ErrorRate *float64 `json:"errorRate"`
	// LastError is the latest provider failure in the window; nil if none.
	LastError *MeasuredError `json:"lastError"`
}

// Percentiles are nearest-rank percentiles; nil without data.
type Percentiles struct {
	P50 *float64 `json:"p50"`
	P95 *float64 `json:"p95"`
}

// MeasuredError is one failed completion.
type MeasuredError struct {
	At         time.Time         `json:"at"`
	Outcome    CompletionOutcome `json:"outcome"`
	HTTPStatus int               `json:"httpStatus,omitempty"`
	Code       string            `json:"code,omitempty"`
}

// Measured computes the published figures of every model of p from the
// service's samples, at now. Models without any sample in MeasuredKeep are
// left out: a service whose key is not set publishes an empty list.
func (sh *ServiceHistory) Measured(p *CompletionProbe, now time.Time) []MeasuredModel {
	out := []MeasuredModel{}
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
		m := MeasuredModel{
			Model: ref.ID, APIModel: ref.Model, LastSampleAt: &at, LastOutcome: last.Outcome,
			Windows: MeasuredWindows{
				Hour: window("1h", samples, now.Add(-time.Hour), now),
				Day:  window("24h", samples, now.Add(-24*time.Hour), now),
			},
		}
		m.Status = modelStatus(samples, m.Windows.Hour, now)
		if m.Status == Unknown && last.Outcome.ourProblem() {
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
func modelStatus(samples []CompletionSample, hour MeasuredWindow, now time.Time) Status {
	if !samples[len(samples)-1].Outcome.Counted() {
		return Unknown
	}
	var recent []CompletionSample // counted, newest first
	for i := len(samples) - 1; i >= 0 && len(recent) < MeasuredDownAfter; i-- {
		if samples[i].Outcome.Counted() {
			recent = append(recent, samples[i])
		}
	}
	if len(recent) == 0 || now.Sub(recent[0].At) > MeasuredFresh {
		return Unknown
	}
	hard := len(recent) == MeasuredDownAfter
	for _, s := range recent {
		hard = hard && s.Outcome.ProviderFailure() && s.Outcome != OutcomeRateLimited
	}
	switch {
	case hard:
		return MajorOutage
	case recent[0].Outcome.ProviderFailure():
		return Degraded
	case hour.Samples >= MeasuredMinSamples && hour.ErrorRate != nil && *hour.ErrorRate >= MeasuredDegradedRate:
		return Degraded
	}
	return Operational
}

// window computes the figures of the samples in (from, to].
func window(name string, samples []CompletionSample, from, to time.Time) MeasuredWindow {
	w := MeasuredWindow{Window: name}
	var ttft, total []float64
	failures := 0
	for _, s := range samples {
		if !s.At.After(from) || s.At.After(to) || !s.Outcome.Counted() {
			continue
		}
		w.Samples++
		if s.Outcome.ProviderFailure() {
			failures++
			w.LastError = &MeasuredError{At: s.At.UTC(), Outcome: s.Outcome, HTTPStatus: s.HTTPStatus, Code: s.Code}
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
func PercentilesOf(values []float64) Percentiles {
	if len(values) == 0 {
		return Percentiles{}
	}
	slices.Sort(values)
	rank := func(p float64) *float64 {
		i := int(math.Ceil(p*float64(len(values)))) - 1
		v := math.Round(values[max(i, 0)]*10) / 10
		return &v
	}
	return Percentiles{P50: rank(0.50), P95: rank(0.95)}
}

// ServiceMeasured folds the models' statuses into the service's measured
// status: unknown when no model has one; major_outage when every model
// with a status is down; partial_outage when some are down; degraded when
// any is degraded; operational when all are.
func ServiceMeasured(models []MeasuredModel) Status {
	known, down, degraded := 0, 0, 0
	for _, m := range models {
		switch m.Status {
		case Unknown:
			continue
		case MajorOutage:
			down++
		case Degraded:
			degraded++
		}
		known++
	}
	switch {
	case known == 0:
		return Unknown
	case down == known:
		return MajorOutage
	case down > 0:
		return PartialOutage
	case degraded > 0:
		return Degraded
	}
	return Operational
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
			if !slices.Contains(CompletionOutcomes, s.Outcome) {
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

// Detail is the HTTP status and code of a failed completion in words,
// "HTTP 529, overloaded_error"; "" when it has neither.
func (e MeasuredError) Detail() string {
	var parts []string
	if e.HTTPStatus != 0 {
		parts = append(parts, fmt.Sprintf("HTTP %d", e.HTTPStatus))
	}
	if e.Code != "" {
		parts = append(parts, e.Code)
	}
	return strings.Join(parts, ", ")
}
