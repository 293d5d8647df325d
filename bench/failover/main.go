// Command failover measures how long Portkey's gateway takes to land a
// request on the next provider when the first fails the way outages do,
// with the fallback plan's Portkey configuration (bench/failover.sh runs
// it; bench/README.md holds the table).
//
// It reads the configuration as emitted (the golden file the renderer is
// held to), replaces each ${NAME} reference with a made-up value (as a
// sender substitutes its environment) and gives each target a custom_host
// on loopback: the first target a fake provider that fails in one way per
// row, every other target a fake Anthropic that answers "pong", and checks
// that the key the configuration names is the one that arrives. Nothing
// else of the configuration changes: its on_status_codes, cb_config and
// request_timeout are what is measured. Each request is sent through the
// gateway with the configuration as its x-portkey-config header, and
// timed until the next provider's first token (streamed) or answer (not
// streamed), or until the client gives up.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// A fault is one way the first provider fails.
type fault struct {
	name   string
	stream bool // the request asks for a stream
	// serve answers the first target's request; nil: nothing listens.
	serve func(w http.ResponseWriter, r *http.Request)
}

var faults = []fault{
	{name: "529 storm (overloaded)", serve: status(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
	{name: "500s", serve: status(500, `{"message":"Internal server error"}`)},
	{name: "connection refused"},
	{name: "silent (accepts, never answers)", serve: silent},
	{name: "first token after 30 s (streamed)", stream: true, serve: slowFirstToken},
	{name: "stream cut short (streamed)", stream: true, serve: cutShort},
	{name: "200 with no content", serve: emptyAnswer},
}

func status(code int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// silent holds the request until its client leaves (or a minute passes).
func silent(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute):
	}
}

// slowFirstToken sends a stream's headers at once, as a provider does,
// and its first token only after 30 s.
func slowFirstToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	select {
	case <-r.Context().Done():
	case <-time.After(30 * time.Second):
	}
}

// cutShort starts a stream and drops the connection mid-frame.
func cutShort(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte{0, 0, 0, 90, 0, 0, 0, 60}) // a frame's prelude, and no more
	w.(http.Flusher).Flush()
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// emptyAnswer is a success with no content: Bedrock's Converse answer
// with an empty message.
func emptyAnswer(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":0,"totalTokens":1}}`)
}

// healthy is a fake Anthropic Messages API that answers "pong", streamed
// or not, and counts the requests that arrived with the key the
// configuration names (wantKey) and those that did not.
type healthy struct {
	wantKey     string
	hits, wrong atomic.Int64
}

func (h *healthy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.hits.Add(1)
	if h.wantKey == "" || r.Header.Get("x-api-key") != h.wantKey {
		h.wrong.Add(1)
		status(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)(w, r)
		return
	}
	var req struct {
		Stream bool `json:"stream"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",`+
			`"content":[{"type":"text","text":"pong"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range []string{
		`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}`,
		`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"pong"}}`,
		`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`,
		`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
	} {
		io.WriteString(w, ev+"\n\n")
	}
}

// serve listens on a loopback port and serves h there.
func serve(h http.Handler) (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }
}

var envRef = regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*)\}`)

// madeUp is the value a ${NAME} reference is replaced with.
func madeUp(name string) string { return "made-up-" + strings.ToLower(name) }

// configFor is the emitted configuration with its references replaced and
// each target's custom_host set: the first's to first, the others' to
// rest.
func configFor(emitted []byte, first, rest string) (string, error) {
	body := envRef.ReplaceAllStringFunc(string(emitted), func(ref string) string { return madeUp(envRef.FindStringSubmatch(ref)[1]) })
	var cfg map[string]any
	if err := json.Unmarshal([]byte(body), &cfg); err != nil {
		return "", err
	}
	targets, _ := cfg["targets"].([]any)
	if len(targets) < 2 {
		return "", errors.New("the configuration has fewer than two targets")
	}
	for i, t := range targets {
		target := t.(map[string]any)
		host := rest
		if i == 0 {
			host = first
		}
		if target["provider"] == "anthropic" {
			host += "/v1" // Anthropic's base, to which the gateway adds /messages
		}
		target["custom_host"] = host
	}
	out, err := json.Marshal(cfg)
	return string(out), err
}

// outcome is one request's.
type outcome struct {
	landed  bool          // the next provider's "pong" reached the client
	elapsed time.Duration // to the landing, else to the client's end
	got     string        // what the client got when it did not land
}

// send asks the gateway for a completion with cfg and times it.
func send(gateway, cfg string, stream bool, giveUp time.Duration) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), giveUp)
	defer cancel()
	body := fmt.Sprintf(`{"model":"claude-sonnet-4.5","max_tokens":16,"stream":%v,"messages":[{"role":"user","content":"ping"}]}`, stream)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, gateway+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-portkey-config", cfg)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return outcome{elapsed: time.Since(start), got: "no answer: " + shorten(err.Error())}
	}
	defer resp.Body.Close()
	if !stream {
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK && bytes.Contains(data, []byte("pong")) {
			return outcome{landed: true, elapsed: time.Since(start)}
		}
		if resp.StatusCode == http.StatusOK {
			return outcome{elapsed: time.Since(start), got: "200, an answer with no text"}
		}
		return outcome{elapsed: time.Since(start), got: fmt.Sprintf("%d %s", resp.StatusCode, shorten(string(data)))}
	}
	sc := bufio.NewScanner(resp.Body)
	var seen []string
	for sc.Scan() {
		if strings.Contains(sc.Text(), "pong") {
			return outcome{landed: true, elapsed: time.Since(start)}
		}
		if strings.TrimSpace(sc.Text()) != "" {
			seen = append(seen, sc.Text())
		}
	}
	got := fmt.Sprintf("%d, a stream ending without a token", resp.StatusCode)
	if err := sc.Err(); err != nil {
		got = fmt.Sprintf("%d, a stream broken off: %s", resp.StatusCode, shorten(err.Error()))
	}
	if len(seen) > 0 {
		got += ": " + shorten(seen[len(seen)-1])
	}
	return outcome{elapsed: time.Since(start), got: got}
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 90 {
		return s[:90] + "…"
	}
	return s
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "failover:", err)
	os.Exit(1)
}

func main() {
	gateway := flag.String("gateway", "", "the gateway's address (http://127.0.0.1:PORT)")
	config := flag.String("config", "fallback/testdata/golden/sonnet.portkey.json", "the emitted Portkey configuration")
	rounds := flag.Int("rounds", 3, "requests per fault")
	giveUp := flag.Duration("give-up", 45*time.Second, "how long the client waits for an answer")
	only := flag.String("faults", "", "a comma-separated list of the faults to run (by the start of their names); all when empty")
	flag.Parse()
	emitted, err := os.ReadFile(*config)
	if err != nil {
		fail(err)
	}
	// The key the first Anthropic target names, as its sender substitutes it.
	var named struct {
		Targets []struct {
			Provider string `json:"provider"`
			APIKey   string `json:"api_key"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(emitted, &named); err != nil {
		fail(err)
	}
	i := slices.IndexFunc(named.Targets, func(t struct {
		Provider string `json:"provider"`
		APIKey   string `json:"api_key"`
	}) bool {
		return t.Provider == "anthropic"
	})
	if i != 1 {
		fail(fmt.Errorf("%s: the second target is to be Anthropic's: %+v", *config, named.Targets))
	}
	// A configuration that names no key sends none, which Anthropic
	// refuses, and so does the fake.
	next := &healthy{}
	if m := envRef.FindStringSubmatch(named.Targets[1].APIKey); m != nil {
		next.wantKey = madeUp(m[1])
	}
	nextURL, stop := serve(next)
	defer stop()

	// One request first, untimed: the gateway's first request through a
	// configuration costs it 0.1-0.2 s more than the next ones (loading).
	warmURL, stopWarm := serve(http.HandlerFunc(status(500, `{}`)))
	if cfg, err := configFor(emitted, warmURL, nextURL); err == nil {
		send(*gateway, cfg, false, *giveUp)
	}
	stopWarm()
	next.hits.Store(0)

	fmt.Printf("| fault (first target: %s) | request | landed on the next provider | time to land, median (max) | first target tried | what the client got otherwise |\n", named.Targets[0].Provider)
	fmt.Println("|---|---|---|---|---|---|")
	for _, f := range faults {
		if *only != "" && !slices.ContainsFunc(strings.Split(*only, ","), func(p string) bool { return strings.HasPrefix(f.name, p) }) {
			continue
		}
		var tried atomic.Int64
		var firstURL string
		stopFirst := func() {}
		if f.serve == nil {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				fail(err)
			}
			firstURL = "http://" + ln.Addr().String()
			ln.Close() // nothing listens there now
		} else {
			firstURL, stopFirst = serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tried.Add(1)
				f.serve(w, r)
			}))
		}
		cfg, err := configFor(emitted, firstURL, nextURL)
		if err != nil {
			fail(err)
		}
		var landed []time.Duration
		var others, seen []string
		for range *rounds {
			o := send(*gateway, cfg, f.stream, *giveUp)
			if o.landed {
				landed = append(landed, o.elapsed)
			} else if !slices.Contains(seen, o.got) {
				seen = append(seen, o.got)
				others = append(others, fmt.Sprintf("%s (after %s)", o.got, seconds(o.elapsed)))
			}
		}
		stopFirst()
		request := "not streamed"
		if f.stream {
			request = "streamed"
		}
		timing := "—"
		if len(landed) > 0 {
			slices.Sort(landed)
			timing = fmt.Sprintf("%s (%s)", seconds(landed[len(landed)/2]), seconds(landed[len(landed)-1]))
		}
		firstTried := fmt.Sprintf("%d of %d requests", tried.Load(), *rounds)
		if f.serve == nil {
			firstTried = "refused each"
		}
		got := strings.Join(others, "; ")
		if got == "" {
			got = "—"
		}
		fmt.Printf("| %s | %s | %d of %d | %s | %s | %s |\n", f.name, request, len(landed), *rounds, timing, firstTried, got)
	}
	fmt.Printf("\nThe next provider got %d requests, %d of them without the key the configuration names.\n", next.hits.Load(), next.wrong.Load())
	if next.wrong.Load() > 0 {
		os.Exit(1)
	}
}

func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.0f ms", float64(d.Milliseconds()))
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
