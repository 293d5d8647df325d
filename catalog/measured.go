package catalog

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
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
