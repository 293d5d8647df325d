package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/spf13/cobra"
)

func newCheckCmd(g *globals) *cobra.Command {
	var (
		dir, catalog, observed, code string
		retryAfter                   int
		asJSON                       bool
	)
	cmd := &cobra.Command{
		Use:   "check QUERY",
		Short: "Tell whether a service is up, from a snapshot folder (name, domain or URL)",
		Long: `Tell whether a service is up, from a snapshot folder (name, domain or URL).

The exit code follows the monitoring-plugin (Nagios) convention, with or
without --json, so check can run as a monitoring plugin or in a script:

  0  up                                  (OK)
  1  degraded or maintenance             (WARNING)
  2  down: partial or major outage       (CRITICAL)
  3  unknown, stale data, untracked, or  (UNKNOWN)
     check itself failed (no snapshot, bad flag)

With --error, say what your call just got (an HTTP status such as 401,
429 or 529, or timeout or connection) and check advises what to do:
proceed, retry, wait, failover or fix_client, whose side the trouble is
on, and the alternatives that are up. With --code, give the error code or
type from the provider's error body (insufficient_quota, overloaded_error,
RESOURCE_EXHAUSTED): a quota is not a rate limit, and an overload is not
your fault. With --retry-after, the Retry-After you got. The exit code
still says the service's status, not the advice.`,
		Example: `  aistatus check openai
  aistatus check https://api.anthropic.com/v1/messages
  aistatus check claude.ai --json || echo "not up (exit $?)"
  aistatus check anthropic --error 529
  aistatus check openai --error 429 --code insufficient_quota`,
		Args:        cobra.ExactArgs(1),
		Annotations: map[string]string{errorCodeAnnotation: strconv.Itoa(exitUnknown)},
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, err := snapshot.LoadCatalog(catalog)
			if err != nil {
				return err
			}
			snap, err := serve.Load(dir)
			if err != nil {
				return fmt.Errorf("%w (run 'aistatus build --out %s' first)", err, dir)
			}
			engine := check.New(cat, check.NewCache(outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(cat)}), check.DefaultProbeTimeout, time.Now, nil), time.Now, check.FromCaller)
			req := check.Request{Query: args[0], Error: observed, Code: code}
			if cmd.Flags().Changed("retry-after") {
				req.RetryAfter = &retryAfter
			}
			doc, err := engine.Check(snap, req)
			if bad := (*check.InputError)(nil); errors.As(err, &bad) {
				return fmt.Errorf("%s: %s", flagOf[bad.Param], bad.Detail)
			} else if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(doc); err != nil {
					return err
				}
				return verdictExit(doc.Verdict.Level)
			}
			fmt.Fprintf(g.stdout, "%s %s\n", doc.Verdict.Emoji, doc.Verdict.Headline)
			if doc.LatencyMs != nil {
				fmt.Fprintf(g.stdout, "   API answered in %.0f ms\n", *doc.LatencyMs)
			}
			for _, o := range doc.OtherSurfaces {
				fmt.Fprintf(g.stdout, "   Also: %s (%s) is %s\n", o.Name, o.ID, o.Status)
			}
			if len(doc.Verdict.Suggestions) > 0 {
				fmt.Fprintf(g.stdout, "   Did you mean %s?\n", snapshot.JoinList(doc.Verdict.Suggestions, " or "))
			}
			printAdvice(g.stdout, doc.Verdict)
			return verdictExit(doc.Verdict.Level)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "public", "snapshot folder to read")
	cmd.Flags().StringVar(&catalog, "catalog", "", "catalog JSON file (default: the embedded one)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the /check response as JSON")
	cmd.Flags().StringVar(&observed, "error", "", "what your call just got: an HTTP status (100-599), timeout or connection")
	cmd.Flags().StringVar(&code, "code", "", "the error code or type in the provider's error body (insufficient_quota, overloaded_error, …)")
	cmd.Flags().IntVar(&retryAfter, "retry-after", 0, "the Retry-After your call got, in seconds")
	return cmd
}

// flagOf names the command-line form of a /check parameter, for errors.
var flagOf = map[string]string{"q": "QUERY", "error": "--error", "code": "--code", "retryAfter": "--retry-after"}

// printAdvice prints the verdict's advice for people: the action and whose
// side the trouble is on, then where to go instead. An untracked verdict
// has none.
func printAdvice(w io.Writer, v snapshot.Verdict) {
	if v.Action == "" {
		return
	}
	fmt.Fprintf(w, "   Action: %s (blame: %s, confidence: %s)", v.Action, v.Blame, v.Confidence)
	if v.RetryAfterSeconds != nil {
		fmt.Fprintf(w, ", retry after %d s", *v.RetryAfterSeconds)
	}
	fmt.Fprintf(w, "\n   %s\n", v.Reason)
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
	case "down":
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
