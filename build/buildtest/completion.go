package buildtest

import (
	"fmt"
	"net/http"

	"github.com/aistatus/aistatus/catalog"
)

// completePath is where a service's completion endpoint lives in the world.
const completePath = "complete"

// Completions returns the completion requests the API of slug received,
// headers included (a test checks where the key went).
func (w *World) Completions(slug string) []*http.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*http.Request(nil), w.completions[slug]...)
}

// streams are short answers in each style, in the shape of the real
// captures in completion/testdata (see its README).
var streams = map[catalog.CompletionStyle]string{
	catalog.StyleOpenAI: `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1763801086,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1763801086,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"OK"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1763801086,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: [DONE]

`,
	catalog.StyleAnthropic: `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-haiku-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":11,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"OK"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}

event: message_stop
data: {"type":"message_stop"}

`,
	catalog.StyleGemini: "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"OK\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"modelVersion\": \"gemini-2.5-flash-lite\"}\r\n\r\n",
}

// errorBodies are real error bodies of the providers (check/testdata/errors).
var errorBodies = map[int]string{
	529: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CZAau32QzxDkriovTaFCB"}`,
	429: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
	401: `{"error":{"message":"Incorrect API key provided: sk-VKMIs***************************************wjh3.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
}

func serveCompletion(rw http.ResponseWriter, style catalog.CompletionStyle, status int, body string) {
	if body != "" {
		if status == 0 || status == http.StatusOK {
			rw.Header().Set("Content-Type", "text/event-stream")
		} else {
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(status)
		}
		fmt.Fprint(rw, body)
		return
	}
	if status != 0 && status != http.StatusOK {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(status)
		fmt.Fprint(rw, errorBodies[status])
		return
	}
	rw.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(rw, streams[style])
}
