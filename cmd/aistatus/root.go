package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/aistatus/aistatus/logbatch"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise
// the module version from the build info is used.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// globals are the flags every command shares.
type globals struct {
	logFormat string
	logLevel  string
	stdout    io.Writer
	stderr    io.Writer
	// logs batches JSON log lines (see logbatch.Writer); execute flushes
	// it before the process exits. Nil until logger is called.
	logs *logbatch.Writer
}

// Exit codes. Every command exits 0 on success and exitError on failure,
// except check, which follows the monitoring-plugin (Nagios) convention so
// that it can be used as one: see checkExitCode.
const (
	exitOK       = 0
	exitError    = 1
	exitWarning  = 1 // check: degraded or maintenance
	exitCritical = 2 // check: partial or major outage
	exitUnknown  = 3 // check: unknown, stale, untracked — or check itself failed
)

// exitStatus is a silent outcome that asks for a given exit code: check
// has already printed its verdict.
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// errorCodeAnnotation, set on a command, is the exit code of its failures
// (a bad flag, a missing snapshot) in place of exitError: a monitoring
// plugin must say UNKNOWN, not WARNING, when it cannot tell.
const errorCodeAnnotation = "aistatus/error-exit-code"

// execute runs the CLI and maps the outcome to an exit code in one place.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr}
	root := newRootCmd(g)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if g.logs != nil {
		g.logs.Flush()
	}
	return exitCode(cmd, err, stderr)
}

// exitCode is the one place where an outcome becomes an exit code; it
// prints the error, if any.
func exitCode(cmd *cobra.Command, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var st *exitStatus
	if errors.As(err, &st) {
		return st.code
	}
	fmt.Fprintln(stderr, "aistatus:", err)
	if cmd != nil {
		if code, convErr := strconv.Atoi(cmd.Annotations[errorCodeAnnotation]); convErr == nil {
			return code
		}
	}
	return exitError
}

func newRootCmd(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "aistatus",
		Short:         "Public status API for AI services: build the snapshot, serve it",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return applyEnv(cmd)
		},
	}
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", "auto", "log format: json, console, or auto (console on a terminal)")
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	root.AddCommand(newBuildCmd(g), newServeCmd(g), newRunCmd(g), newCatalogCmd(g), newCheckCmd(g), newMCPCmd(g), newVantageKeyCmd(g), newVersionCmd(g))
	return root
}

// applyEnv fills every flag not given on the command line from its
// AISTATUS_* environment variable (--rate-limit ← AISTATUS_RATE_LIMIT).
func applyEnv(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed {
			return
		}
		name := "AISTATUS_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(name); ok {
			if e := cmd.Flags().Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %w", name, v, e)
			}
		}
	})
	return err
}

// logger builds the zerolog logger the flags ask for.
func (g *globals) logger() (zerolog.Logger, error) {
	level, err := zerolog.ParseLevel(g.logLevel)
	if err != nil {
		return zerolog.Logger{}, fmt.Errorf("--log-level: %w", err)
	}
	console := false
	switch g.logFormat {
	case "json":
	case "console":
		console = true
	case "auto":
		console = isTerminal(g.stderr)
	default:
		return zerolog.Logger{}, fmt.Errorf("--log-format %q: want json, console or auto", g.logFormat)
	}
	if console {
		// For a person at a terminal, line by line. Builds log from one
		// goroutine per service: serialise the writes.
		w := zerolog.SyncWriter(zerolog.ConsoleWriter{Out: g.stderr})
		return zerolog.New(w).Level(level).With().Timestamp().Logger(), nil
	}
	// JSON lines in batches: the access log writes one per request, and a
	// write system call each under a shared lock cost the static path a
	// fifth of its throughput. Warnings and errors are written at once.
	if g.logs == nil {
		g.logs = logbatch.New(g.stderr, logBatchInterval)
	}
	return zerolog.New(g.logs).Level(level).With().Timestamp().Logger(), nil
}

// logBatchInterval bounds how late an info line reaches the log.
const logBatchInterval = 100 * time.Millisecond

// isTerminal reports whether w is a terminal. A character device is not
// enough: /dev/null is one, and `serve 2>/dev/null` must not get the console
// writer, which formats and writes every access-log line on its own.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(g.stdout, "aistatus", versionString())
		},
	}
}
