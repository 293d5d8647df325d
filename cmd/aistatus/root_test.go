package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogFormatAuto checks that --log-format auto writes JSON lines, in
// batches, to everything but a terminal: /dev/null is a character device,
// and taking it for a terminal gave `serve 2>/dev/null` the console writer,
// which formats and writes each access-log line on its own.
func TestLogFormatAuto(t *testing.T) {
	t.Parallel()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var buf bytes.Buffer
	for name, w := range map[string]io.Writer{"/dev/null": devNull, "a file": file, "a buffer": &buf} {
		g := &globals{logFormat: "auto", logLevel: "info", stderr: w}
		if isTerminal(w) {
			t.Errorf("%s is taken for a terminal", name)
		}
		log, err := g.logger()
		if err != nil {
			t.Fatal(err)
		}
		log.Info().Msg("hello")
		if g.logs == nil {
			t.Errorf("%s: JSON lines are not batched", name)
			continue
		}
		if err := g.logs.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if got := buf.String(); !strings.HasPrefix(got, `{"level":"info"`) || !strings.HasSuffix(got, "\"message\":\"hello\"}\n") {
		t.Errorf("log line %q is not a JSON line", got)
	}
}
