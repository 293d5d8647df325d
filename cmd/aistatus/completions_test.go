package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/catalog"
	"github.com/rs/zerolog"
)

// TestCompletionKeys reads each catalog key variable that is set and not
// empty, and logs the services measured, never a key.
func TestCompletionKeys(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-secret-value-1", "ANTHROPIC_API_KEY": "", "UNRELATED_API_KEY": "x"}
	var log bytes.Buffer
	keys := completionKeys(cat, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, zerolog.New(&log))
	if len(keys) != 1 || keys["OPENAI_API_KEY"] != "sk-secret-value-1" {
		t.Fatalf("keys %v", keys)
	}
	if !strings.Contains(log.String(), `"services":["openai"]`) || strings.Contains(log.String(), "sk-secret") {
		t.Fatalf("log %s", log.String())
	}
	log.Reset()
	if keys := completionKeys(cat, func(string) (string, bool) { return "", false }, zerolog.New(&log)); len(keys) != 0 || log.Len() != 0 {
		t.Fatalf("without keys: %v, log %q", keys, log.String())
	}
}
