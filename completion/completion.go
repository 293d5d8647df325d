// Package completion measures what developers feel: one tiny streamed
// completion per configured model, timed to the first token and to the
// stream's end, its outcome classified as the provider says it. It runs
// only for services whose operator set the key's environment variable
// (catalog.CompletionProbe); the key goes to that service's API alone, in
// the header that API expects, and is never logged, stored or put in an
// error: a sample carries an outcome, an HTTP status and the provider's
// error code when the service's error table lists it (else "other"), never
// a message or a body, and nothing that holds a piece of the key (LeaksKey).
package completion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// Prompt is the fixed prompt of every measured completion, and MaxTokens
// the most output tokens asked for: spend is a few input and at most
// MaxTokens output tokens per model per sample (README, "Measured
// completions").
const (
	Prompt    = "Reply with the single word: OK"
	MaxTokens = 5
)

// maxBody bounds what is read of an answer: a tiny completion streams a few
// kilobytes; an error body is smaller still.
const maxBody = 1 << 20

// anthropicVersion is the Messages API version the request is written for.
const anthropicVersion = "2023-06-01"

// Request is one measured completion.
type Request struct {
	// Client is the program's outbound client; its redirect policy is set
	// aside: a redirect is not followed (the key would go with it).
	Client *http.Client
	Probe  catalog.CompletionProbe
	Model  catalog.MeasuredModelRef
	Key    string
	// Codes says what a provider's error code means (the catalog's table
	// for the service, Catalog.ErrorCode; with status 0, whether the table
	// lists the code at all); nil: the HTTP status decides, and no code is
	// kept in the sample (publicCode).
	Codes func(code string, status int) (catalog.ErrorCode, bool)
	// Now dates the sample; the times measured are on the monotonic clock.
	Now func() time.Time
}

// MeasureAll measures every model of probe concurrently, each once: never
// retried, bounded by ctx (the cycle's timeout). The samples are by model id.
func MeasureAll(ctx context.Context, req Request) map[string]api.CompletionSample {
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out = make(map[string]api.CompletionSample, len(req.Probe.Models))
	)
	for _, m := range req.Probe.Models {
		wg.Go(func() {
			r := req
			r.Model = m
			s := Measure(ctx, r)
			mu.Lock()
			out[m.ID] = s
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// Measure sends one streamed completion and classifies its outcome.
func Measure(ctx context.Context, req Request) api.CompletionSample {
	if req.Now == nil {
		req.Now = time.Now
	}
	sample := api.CompletionSample{At: req.Now().UTC()}
	httpReq, err := newRequest(ctx, req)
	if err != nil {
		// A configuration the catalog's validation should have refused;
		// nothing was sent.
		sample.Outcome = api.OutcomeRequestRefused
		return sample
	}
	noFollow := *req.Client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	start := time.Now()
	resp, err := noFollow.Do(httpReq)
	if err != nil {
		sample.Outcome = transportOutcome(ctx, err)
		return sample
	}
	defer resp.Body.Close()
	sample.HTTPStatus = resp.StatusCode
	body := io.LimitReader(resp.Body, maxBody)
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(body)
		code := errorCode(data)
		sample.Outcome = statusOutcome(resp.StatusCode, code, req.Codes)
		sample.Code = publicCode(code, req.Key, req.Codes)
		return sample
	}
	res := readStream(req.Probe.Style, body, start)
	end := time.Since(start)
	switch {
	case res.err != nil && ctx.Err() != nil:
		sample.Outcome = api.OutcomeTimeout
	case res.errorCode != "" || res.errorEvent:
		sample.Outcome = streamErrorOutcome(res.errorCode, req.Codes)
		sample.Code = publicCode(res.errorCode, req.Key, req.Codes)
	case res.err != nil || !res.done:
		sample.Outcome = api.OutcomeStreamCut
	case res.firstToken < 0:
		sample.Outcome = api.OutcomeEmpty
	default:
		sample.Outcome = api.OutcomeOK
		ttft, total := ms(res.firstToken), ms(end)
		sample.TTFTMs, sample.TotalMs = &ttft, &total
	}
	return sample
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// newRequest writes the request in the probe's style, the key in the
// header that API expects.
func newRequest(ctx context.Context, req Request) (*http.Request, error) {
	if err := catalog.KeyDestinationOK(req.Probe.URL); err != nil {
		return nil, err
	}
	endpoint := req.Probe.URL
	var payload any
	header := http.Header{}
	switch req.Probe.Style {
	case catalog.StyleOpenAI:
		payload = map[string]any{
			"model": req.Model.Model, "stream": true, "max_tokens": MaxTokens, "temperature": 0,
			"messages": []map[string]string{{"role": "user", "content": Prompt}},
		}
		header.Set("Authorization", "Bearer "+req.Key)
	case catalog.StyleAnthropic:
		payload = map[string]any{
			"model": req.Model.Model, "stream": true, "max_tokens": MaxTokens,
			"messages": []map[string]string{{"role": "user", "content": Prompt}},
		}
		header.Set("x-api-key", req.Key)
		header.Set("anthropic-version", anthropicVersion)
	case catalog.StyleGemini:
		endpoint += "/" + url.PathEscape(req.Model.Model) + ":streamGenerateContent?alt=sse"
		payload = map[string]any{
			"contents":         []any{map[string]any{"role": "user", "parts": []any{map[string]string{"text": Prompt}}}},
			"generationConfig": map[string]any{"maxOutputTokens": MaxTokens, "temperature": 0},
		}
		header.Set("x-goog-api-key", req.Key)
	default:
		return nil, errors.New("unknown style")
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	header.Set("Content-Type", "application/json")
	header.Set("Accept", "text/event-stream")
	for k, v := range header {
		r.Header[k] = v
	}
	return r, nil
}

// transportOutcome classifies a request that got no answer.
func transportOutcome(ctx context.Context, err error) api.CompletionOutcome {
	var timeout interface{ Timeout() bool }
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &timeout) && timeout.Timeout()) {
		return api.OutcomeTimeout
	}
	return api.OutcomeNetwork
}

// statusOutcome classifies an HTTP error answer by its status and the
// provider's code: a refused key, our quota and a request the API refuses
// are our configuration's problems; the rest are the provider's.
func statusOutcome(status int, code string, codes func(string, int) (catalog.ErrorCode, bool)) api.CompletionOutcome {
	class := catalog.ErrorCodeClass("")
	if code != "" && codes != nil {
		if row, ok := codes(code, status); ok {
			class = row.Class
		}
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return api.OutcomeKeyRefused
	case status == http.StatusPaymentRequired || class == catalog.CodeQuota:
		return api.OutcomeQuota
	case status == http.StatusTooManyRequests:
		if class == catalog.CodeOverloaded {
			return api.OutcomeOverloaded
		}
		return api.OutcomeRateLimited
	case status == 529 || class == catalog.CodeOverloaded:
		return api.OutcomeOverloaded
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout || class == catalog.CodeTimeout:
		return api.OutcomeTimeout
	case status >= 500:
		return api.OutcomeServerError
	}
	// Another 4xx, or a 1xx/2xx/3xx that is not the stream: the request as
	// we send it is refused (a model gone, an endpoint moved).
	return api.OutcomeRequestRefused
}

// streamErrorOutcome classifies an error event inside a 200 stream.
func streamErrorOutcome(code string, codes func(string, int) (catalog.ErrorCode, bool)) api.CompletionOutcome {
	if code != "" && codes != nil {
		if row, ok := codes(code, 0); ok {
			switch row.Class {
			case catalog.CodeOverloaded:
				return api.OutcomeOverloaded
			case catalog.CodeRateLimit, catalog.CodeConcurrency:
				return api.OutcomeRateLimited
			case catalog.CodeServer:
				return api.OutcomeServerError
			case catalog.CodeTimeout:
				return api.OutcomeTimeout
			}
		}
	}
	return api.OutcomeStreamCut
}

// errorBody is the error shape the three styles share: OpenAI's
// {"error":{"code","type"}}, Anthropic's {"type":"error","error":{"type"}},
// Google's {"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}.
type errorBody struct {
	Error *struct {
		Code   json.RawMessage `json:"code"`
		Status string          `json:"status"`
		Type   string          `json:"type"`
	} `json:"error"`
}

// errorCode reads the provider's code out of an error body the way /check
// tells callers to: error.code, else error.status, else error.type, a
// numeric code skipped. Only a value shaped like a code is kept: the
// message never is, since it may quote part of the key. The shape is no
// safety: a key has it too, so what is kept of the code is publicCode's.
func errorCode(data []byte) string {
	var body errorBody
	if json.Unmarshal(data, &body) != nil || body.Error == nil {
		// A JSON array of one error (Google's streaming endpoints).
		var list []errorBody
		if json.Unmarshal(data, &list) != nil || len(list) == 0 || list[0].Error == nil {
			return ""
		}
		body = list[0]
	}
	var code string
	_ = json.Unmarshal(body.Error.Code, &code) // a number or null leaves it ""
	for _, c := range []string{code, body.Error.Status, body.Error.Type} {
		if c != "" && catalog.ValidErrorCode(c) {
			return c
		}
	}
	return ""
}

// publicCode is what a sample keeps of the provider's code: the code when
// the service's error table lists it and it holds no piece of the key,
// else api.OtherErrorCode ("" when there was none). A provider may put
// anything shaped like a code where its code goes, the key included (a 401
// answering an unknown key with it as the code): only the table's values
// are known to be codes, and even one of them is checked for the key.
func publicCode(code, key string, codes func(code string, status int) (catalog.ErrorCode, bool)) string {
	if code == "" {
		return ""
	}
	if codes == nil || LeaksKey(code, key) {
		return api.OtherErrorCode
	}
	if _, listed := codes(code, 0); !listed {
		return api.OtherErrorCode
	}
	return code
}

// keyPiece is the length of the shortest piece of a key that gives part of
// it away: a value holding any of the key's pieces this long is neither
// logged nor published.
const keyPiece = 8

// LeaksKey reports whether s holds key or any 8-character piece of it, in
// any case (a provider may quote a key in part, or change its case). Every
// text derived from a provider's answer passes it before it is logged or
// stored; an empty key leaks nothing.
func LeaksKey(s, key string) bool {
	if key == "" || s == "" {
		return false
	}
	s, key = strings.ToLower(s), strings.ToLower(key)
	if len(key) <= keyPiece {
		return strings.Contains(s, key)
	}
	for i := 0; i+keyPiece <= len(key); i++ {
		if strings.Contains(s, key[i:i+keyPiece]) {
			return true
		}
	}
	return false
}
