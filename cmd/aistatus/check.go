package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/serve/mcpserver"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkOptions are the flags of aistatus check.
type checkOptions struct {
	dir     string
	catalog string
	// api is a running instance to ask instead of reading dir, within
	// timeout.
	api     string
	timeout time.Duration
	json    bool
	// observed, code, retryAfter and model are what the caller saw and
	// asks about (check.Request's); retryAfterSet says --retry-after was
	// given, for 0 is a Retry-After too.
	observed      string
	code          string
	retryAfter    int
	retryAfterSet bool
	model         string
}

func newCheckCmd(g *globals) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check QUERY",
		Short: "Tell whether a service is up, from a snapshot folder or a running instance (name, domain or URL)",
		Long: `Tell whether a service is up, from a snapshot folder or, with --api, from a
running aistatus instance's /api/v1/check (name, domain or URL).

The exit code follows the monitoring-plugin (Nagios) convention, with or
without --json, so check can run as a monitoring plugin or in a script:

  0  up                                  (OK)
  1  degraded or maintenance             (WARNING)
  2  down: partial or major outage       (CRITICAL)
  3  unknown, stale data, untracked, or  (UNKNOWN)
     check itself failed (no snapshot, bad flag, --api unreachable)

The first line of the text output is the verdict followed by performance
data, as monitoring plugins print it: "| latency_ms=<ms>;;;0", the live
probe of the service's API host in milliseconds (U when there is none),
no warning or critical threshold, minimum 0. The lines after it say more:
the verdict's detail (our probes overruling the status page, a feed that
could not be read), the latency, the advice.

With --error, say what your call just got (an HTTP status such as 401,
429 or 529, or timeout or connection) and check advises what to do:
proceed, retry, wait, failover or fix_client, whose side the trouble is
on, and the alternatives that are up. With --code, give the error code or
type from the provider's error body (insufficient_quota, overloaded_error,
RESOURCE_EXHAUSTED), or the exception an SDK raised (ThrottlingException):
a quota is not a rate limit, and an overload is not your fault. --code
works without --error too: a code that came without an HTTP status is
read by itself, as the provider sends it most often. With --retry-after, the Retry-After you got. The exit code
still says the service's status, not the advice.`,
		Example: `  aistatus check openai
  aistatus check https://api.anthropic.com/v1/messages
  aistatus check claude.ai --json || echo "not up (exit $?)"
  aistatus check anthropic --error 529
  aistatus check openai --error 429 --code insufficient_quota
  aistatus check gemini --code RESOURCE_EXHAUSTED
  aistatus check claude-sonnet-4.5 --error 529
  aistatus check bedrock --model claude-sonnet-4.5
  aistatus check groq --api https://status.example.com`,
		Args:        cobra.ExactArgs(1),
		Annotations: map[string]string{errorCodeAnnotation: strconv.Itoa(exitUnknown)},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.retryAfterSet = cmd.Flags().Changed("retry-after")
			return o.run(cmd.Context(), g, args[0])
		},
	}
	o.register(cmd.Flags())
	return cmd
}

func (o *checkOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.dir, "dir", "public", "snapshot folder to read")
	fs.StringVar(&o.catalog, "catalog", "", "catalog JSON file whose hosts may be probed (default: the embedded one); the snapshot's own catalog answers when it has one")
	// --api wins over --dir rather than excluding it, as for aistatus mcp:
	// AISTATUS_DIR may be set in the environment for serve.
	fs.StringVar(&o.api, "api", "", "address of a running aistatus instance to ask (its /api/v1/check) instead of reading --dir (https://status.example.com)")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "time limit for the request to --api")
	fs.BoolVar(&o.json, "json", false, "print the /check response as JSON")
	fs.StringVar(&o.observed, "error", "", "what your call just got: an HTTP status (100-599), timeout or connection")
	fs.StringVar(&o.code, "code", "", "the error code or type in the provider's error body (insufficient_quota, overloaded_error, …)")
	fs.IntVar(&o.retryAfter, "retry-after", 0, "the Retry-After your call got, in seconds")
	fs.StringVar(&o.model, "model", "", "a watched model to check at the service (QUERY may also name the model alone)")
}

// request is the question QUERY and the flags ask.
func (o *checkOptions) request(query string) check.Request {
	req := check.Request{Query: query, Error: o.observed, Code: o.code, Model: o.model}
	if o.retryAfterSet {
		req.RetryAfter = &o.retryAfter
	}
	return req
}

// run checks query and prints the verdict, for people or as JSON; its
// error carries the verdict's exit code (verdictExit).
func (o *checkOptions) run(ctx context.Context, g *globals, query string) error {
	doc, err := o.answer(ctx, g, o.request(query))
	if err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
		return verdictExit(doc.Verdict.Level)
	}
	printVerdict(g.stdout, doc)
	return verdictExit(doc.Verdict.Level)
}

// answer asks --api's instance, within --timeout, or else the engine
// in-process on --dir.
func (o *checkOptions) answer(ctx context.Context, g *globals, req check.Request) (api.CheckDoc, error) {
	if o.api != "" {
		ctx, cancel := context.WithTimeout(ctx, o.timeout)
		defer cancel()
		return remoteCheck(ctx, o.api, req)
	}
	log, err := g.logger()
	if err != nil {
		return api.CheckDoc{}, err
	}
	return localCheck(o.dir, o.catalog, req, log)
}

// localCheck answers from the snapshot folder dir, with the check engine
// in-process (its live probe included). As the server does, it answers by
// the catalog the snapshot was built with when it carries one, and probes
// only the hosts of its own (catalogPath, else the embedded one), less
// the aliases that name another service of its own (logged to log): the
// command and a server on the same folder say the same thing.
func localCheck(dir, catalogPath string, req check.Request, log zerolog.Logger) (api.CheckDoc, error) {
	own, err := catalog.Load(catalogPath)
	if err != nil {
		return api.CheckDoc{}, err
	}
	snap, err := serve.Load(dir)
	if err != nil {
		return api.CheckDoc{}, fmt.Errorf("%w (run 'aistatus build --out %s' first, or ask a running instance with --api)", err, dir)
	}
	cat := own
	if built, ok := snap.Catalog(); ok {
		cat = serve.DropForeignAliases(built, own, log)
	}
	client := outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(own)})
	engine := check.New(cat, check.NewCache(client, check.DefaultProbeTimeout, time.Now, nil), time.Now, check.FromCaller)
	doc, err := engine.Check(snap, req)
	if bad := (*check.InputError)(nil); errors.As(err, &bad) {
		return api.CheckDoc{}, fmt.Errorf("%s: %s", flagOf[bad.Param], bad.Detail)
	}
	return doc, err
}

// remoteCheck asks the aistatus instance at apiURL for GET /api/v1/check,
// through the outbound client (our User-Agent, the dial guard; the address
// given is allowed even on loopback or a private network). A parameter the
// server refuses is reported under its flag's name, as localCheck does.
func remoteCheck(ctx context.Context, apiURL string, req check.Request) (api.CheckDoc, error) {
	if u, err := url.Parse(apiURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return api.CheckDoc{}, fmt.Errorf("--api %q: want the absolute http(s) address of an aistatus instance (https://status.example.com)", apiURL)
	}
	client := mcpserver.API{BaseURL: apiURL, Client: outbound.NewClient(outbound.Options{AllowedURLs: []string{apiURL}})}
	q := mcpserver.CheckQuery{Query: req.Query, Error: req.Error, Code: req.Code, Model: req.Model}
	if req.RetryAfter != nil {
		q.RetryAfter = *req.RetryAfter
	}
	doc, err := client.Check(ctx, q)
	perr := (*mcpserver.ProblemError)(nil)
	if errors.As(err, &perr) {
		// The remote server's words, bound for a terminal (see terminalText).
		perr.Problem.Detail = api.CleanText(perr.Problem.Detail, maxProblemDetail)
	}
	switch {
	case err == nil:
		return doc, nil
	case errors.As(err, &perr) && perr.Problem.Param != "" && perr.StatusCode == http.StatusBadRequest:
		name := flagOf[perr.Problem.Param]
		if name == "" {
			name = perr.Problem.Param
		}
		return api.CheckDoc{}, fmt.Errorf("%s: %s", name, perr.Problem.Detail)
	case errors.As(err, &perr) && perr.StatusCode == http.StatusServiceUnavailable:
		return api.CheckDoc{}, fmt.Errorf("--api %s has no snapshot to answer from yet: %w", apiURL, err)
	case errors.As(err, &perr) && perr.StatusCode == http.StatusNotFound:
		return api.CheckDoc{}, fmt.Errorf("--api %s: no /api/v1/check there (%w): is it an aistatus instance?", apiURL, err)
	case errors.Is(err, context.DeadlineExceeded):
		return api.CheckDoc{}, fmt.Errorf("--api %s did not answer in time (--timeout): %w", apiURL, err)
	default:
		return api.CheckDoc{}, fmt.Errorf("--api %s: %w", apiURL, err)
	}
}

// maxProblemDetail bounds the detail of a problem --api answers, in
// characters: ours are a sentence or two.
const maxProblemDetail = 500

// printVerdict prints a verdict for people and monitoring systems: the
// headline with the performance data (perfData), then the detail, the
// latency, the suggestions and the advice, one thing a line. Every line
// goes through terminalText: with --api the text is another server's.
func printVerdict(out io.Writer, doc api.CheckDoc) {
	w := terminalText{out}
	fmt.Fprintf(w, "%s %s | %s\n", doc.Verdict.Emoji, doc.Verdict.Headline, perfData(doc))
	if doc.Verdict.Detail != "" {
		fmt.Fprintf(w, "   %s\n", doc.Verdict.Detail)
	}
	if doc.LatencyMs != nil {
		of := "API"
		if sf := doc.Surface; sf != nil && sf.ID != catalog.SurfaceAPI {
			// claude.ai is probed at its own host, not the API's.
			of = sf.Name + "'s host"
		}
		fmt.Fprintf(w, "   %s answered in %.0f ms\n", of, *doc.LatencyMs)
	}
	for _, o := range doc.OtherSurfaces {
		fmt.Fprintf(w, "   Also: %s (%s) is %s\n", o.Name, o.ID, o.Status.Word())
	}
	if len(doc.Verdict.Suggestions) > 0 {
		fmt.Fprintf(w, "   Did you mean %s?\n", api.JoinList(doc.Verdict.Suggestions, " or "))
	}
	printAdvice(w, doc.Verdict)
}

// terminalText writes to w what check prints, inert: every control
// character becomes a space but the line end that closes a write (each
// write is part of one line, or its end), and invisible format characters
// (bidirectional overrides, zero-width ones) and bytes that are not UTF-8
// are dropped, as api.CleanText does to feed text. With --api the words
// are a remote server's (and its origin's catalog's): a raw ESC among them
// is a command to the terminal, which could retitle the window or rewrite
// the lines above, and a line end would let them pass for a line of ours.
type terminalText struct{ w io.Writer }

func (t terminalText) Write(p []byte) (int, error) {
	s, end := string(p), ""
	if strings.HasSuffix(s, "\n") {
		s, end = s[:len(s)-1], "\n"
	}
	if _, err := io.WriteString(t.w, strings.Map(inertRune, s)+end); err != nil {
		return 0, err
	}
	return len(p), nil
}

// inertRune maps a rune as terminalText writes it: itself, a space, or
// nothing (-1).
func inertRune(r rune) rune {
	switch {
	case r == utf8.RuneError, unicode.Is(unicode.Cf, r):
		return -1
	case unicode.IsControl(r): // C0, DEL and C1 (0x9b is a CSI too)
		return ' '
	}
	return r
}

// perfData is the verdict's performance data in the monitoring-plugin
// format ('label'=value[UOM];[warn];[crit];[min];[max]): the live probe's
// latency in whole milliseconds, minimum 0, no thresholds (check's exit
// code already says the status). The unit is in the label, not a UOM, so
// that the figure reads the same in every tool; U is the convention for a
// value that could not be measured.
func perfData(doc api.CheckDoc) string {
	value := "U"
	if doc.LatencyMs != nil {
		value = strconv.FormatFloat(math.Round(*doc.LatencyMs), 'f', 0, 64)
	}
	return "latency_ms=" + value + ";;;0"
}

// flagOf names the command-line form of a /check parameter, for errors.
var flagOf = map[string]string{"q": "QUERY", "error": "--error", "code": "--code", "retryAfter": "--retry-after", "model": "--model"}

// printAdvice prints the verdict's advice for people: the action and whose
// side the trouble is on, then where to go instead. An untracked verdict
// has none.
func printAdvice(w io.Writer, v api.Verdict) {
	if v.Action == "" {
		return
	}
	fmt.Fprintf(w, "   Action: %s (blame: %s, confidence: %s)", v.Action, v.Blame, v.Confidence)
	if v.RetryAfterSeconds != nil {
		fmt.Fprintf(w, ", retry after %d s", *v.RetryAfterSeconds)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "   %s\n", v.Reason)
	if v.PollAfterSeconds != nil {
		fmt.Fprintf(w, "   Ask again in %d s", *v.PollAfterSeconds)
		if len(v.ResumeWhen) > 0 {
			whens := make([]string, len(v.ResumeWhen))
			for i, c := range v.ResumeWhen {
				whens[i] = c.When
			}
			fmt.Fprintf(w, ", or as soon as %s", api.JoinList(whens, " or "))
		}
		fmt.Fprintln(w)
	}
	if len(v.Alternatives) > 0 {
		alts := make([]string, len(v.Alternatives))
		for i, a := range v.Alternatives {
			alts[i] = fmt.Sprintf("%s (%s, %s)", a.Name, a.Slug, a.Status)
		}
		fmt.Fprintf(w, "   Alternatives: %s\n", strings.Join(alts, ", "))
	}
}

// checkExitCode maps a /check verdict level to a monitoring-plugin exit
// code. Maintenance is WARNING, not OK: the service is not fully usable,
// but it is planned work, not an outage. A level this version does not know
// is UNKNOWN rather than a guess.
func checkExitCode(level string) int {
	switch level {
	case "up":
		return exitOK
	case "degraded", "maintenance":
		return exitWarning
	case "down", api.LevelRetired: // a retired model: nobody can call it
		return exitCritical
	default: // unknown, stale, untracked
		return exitUnknown
	}
}

// verdictExit is check's outcome for a verdict it has already printed: nil
// when up, otherwise a silent exitStatus carrying the code.
func verdictExit(level string) error {
	if code := checkExitCode(level); code != exitOK {
		return &exitStatus{code: code}
	}
	return nil
}
