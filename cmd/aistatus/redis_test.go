package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A malformed --redis URL is refused at start, naming the flag, rather than
// discovered as a Redis outage on the first request.
func TestServeRejectsBadRedisURL(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"serve", "--dir", filepath.Join(t.TempDir(), "public"),
		"--addr", "127.0.0.1:0", "--redis", "http://127.0.0.1:6379"}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "--redis") {
		t.Fatalf("exit %d, stderr %q; want %d naming --redis", code, stderr.String(), exitError)
	}
}
