package api

import (
	"fmt"
	"strings"
	"time"
)

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
func (o CompletionOutcome) OurProblem() bool {
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
