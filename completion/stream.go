package completion

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/aistatus/aistatus/catalog"
)

// maxLine bounds one line of a stream; a longer one is not an answer to a
// five-token prompt.
const maxLine = 256 << 10

// streamResult is what a 200 stream carried.
type streamResult struct {
	// firstToken is when the first text arrived, after the request was
	// sent; negative when no text did.
	firstToken time.Duration
	// done: the stream reached its documented end.
	done bool
	// errorEvent: the stream carried an error event; errorCode its code.
	errorEvent bool
	errorCode  string
	// err: the stream could not be read to its end, or was not the format.
	err error
}

// event is one server-sent event.
type event struct {
	name string
	data string
}

// readStream reads server-sent events in the given style until the
// stream's end marker, an error event, or the body's end. since is when
// the request was sent.
func readStream(style catalog.CompletionStyle, body io.Reader, since time.Time) streamResult {
	res := streamResult{firstToken: -1}
	handle := map[catalog.CompletionStyle]func(event, *streamResult) error{
		catalog.StyleOpenAI:    openAIEvent,
		catalog.StyleAnthropic: anthropicEvent,
		catalog.StyleGemini:    geminiEvent,
	}[style]
	if handle == nil {
		res.err = errors.New("unknown style")
		return res
	}
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var ev event
	var data []string
	dispatch := func() bool {
		if len(data) == 0 {
			ev = event{}
			return false
		}
		ev.data = strings.Join(data, "\n")
		hadToken := res.firstToken >= 0
		if err := handle(ev, &res); err != nil {
			res.err = err
			return true
		}
		if !hadToken && res.firstToken == 0 {
			res.firstToken = max(time.Since(since), time.Microsecond)
		}
		ev, data = event{}, nil
		return res.done || res.errorEvent
	}
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			if dispatch() {
				return res
			}
		case strings.HasPrefix(line, ":"): // a comment: keep-alive
		case strings.HasPrefix(line, "event:"):
			ev.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil {
		res.err = err
		return res
	}
	// The last event may end at the body's end without a blank line.
	dispatch()
	return res
}

// A handler reads one event into res: it sets res.firstToken to 0 to mark
// the first text (readStream times it), res.done at the end marker, and
// res.errorEvent and res.errorCode for an error event.

// openAIEvent reads a chat.completion.chunk, or the "[DONE]" end marker.
func openAIEvent(ev event, res *streamResult) error {
	if ev.data == "[DONE]" {
		res.done = true
		return nil
	}
	var chunk struct {
		Choices []struct {
			Delta struct {
				Content *string `json:"content"`
			} `json:"delta"`
		} `json:"choices"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(ev.data), &chunk); err != nil {
		return err
	}
	if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
		res.errorEvent, res.errorCode = true, errorCode([]byte(`{"error":`+string(chunk.Error)+`}`))
		return nil
	}
	for _, c := range chunk.Choices {
		if c.Delta.Content != nil && *c.Delta.Content != "" && res.firstToken < 0 {
			res.firstToken = 0
		}
	}
	return nil
}

// anthropicEvent reads a Messages stream event: text arrives in
// content_block_delta, the end is message_stop, an error is an "error"
// event ({"type":"error","error":{"type":"overloaded_error"}}).
func anthropicEvent(ev event, res *streamResult) error {
	var e struct {
		Type  string `json:"type"`
		Delta struct {
			Text string `json:"text"`
		} `json:"delta"`
	}
	if err := json.Unmarshal([]byte(ev.data), &e); err != nil {
		return err
	}
	switch e.Type {
	case "content_block_delta":
		if e.Delta.Text != "" && res.firstToken < 0 {
			res.firstToken = 0
		}
	case "message_stop":
		res.done = true
	case "error":
		res.errorEvent, res.errorCode = true, errorCode([]byte(ev.data))
	}
	return nil
}

// geminiEvent reads a GenerateContentResponse: text in candidates' parts;
// the last carries a finishReason.
func geminiEvent(ev event, res *streamResult) error {
	var r struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(ev.data), &r); err != nil {
		return err
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		res.errorEvent, res.errorCode = true, errorCode([]byte(ev.data))
		return nil
	}
	for _, c := range r.Candidates {
		for _, p := range c.Content.Parts {
			if p.Text != "" && res.firstToken < 0 {
				res.firstToken = 0
			}
		}
		if c.FinishReason != "" {
			res.done = true
		}
	}
	return nil
}
