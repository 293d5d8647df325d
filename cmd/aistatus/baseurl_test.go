package main

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestBaseURLFromAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ addr, want string }{
		{":9090", "http://localhost:9090"},
		{":8080", "http://localhost:8080"},
		{"127.0.0.1:8081", "http://127.0.0.1:8081"},
		{"0.0.0.0:8080", "http://localhost:8080"},
		{"[::]:8080", "http://localhost:8080"},
		{"[::1]:80", "http://[::1]"},
		{"[::1]:8080", "http://[::1]:8080"},
		{"localhost:80", "http://localhost"},
		{"status.example.com:8443", "http://status.example.com:8443"},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			got, err := baseURLFromAddr(tc.addr)
			if err != nil || got != tc.want {
				t.Errorf("baseURLFromAddr(%q) = %q, %v; want %q", tc.addr, got, err, tc.want)
			}
		})
	}
	if got, err := baseURLFromAddr("8080"); err == nil {
		t.Errorf("baseURLFromAddr(%q) = %q, want an error", "8080", got)
	}
}

// TestRunBaseURL: run's --base-url defaults to its --addr; an explicit
// --base-url, on the command line or in the environment, wins.
func TestRunBaseURL(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"default addr", nil, nil, "http://localhost:8080"},
		{"port only", []string{"--addr", ":9090"}, nil, "http://localhost:9090"},
		{"loopback", []string{"--addr", "127.0.0.1:8081"}, nil, "http://127.0.0.1:8081"},
		{"ipv6 default port", []string{"--addr", "[::1]:80"}, nil, "http://[::1]"},
		{"addr from env", nil, map[string]string{"AISTATUS_ADDR": ":7070"}, "http://localhost:7070"},
		{"flag wins", []string{"--addr", ":9090", "--base-url", "https://status.example.com"}, nil, "https://status.example.com"},
		{"env wins", []string{"--addr", ":9090"}, map[string]string{"AISTATUS_BASE_URL": "https://env.example.com"}, "https://env.example.com"},
		{"flag beats env", []string{"--base-url", "https://flag.example.com"}, map[string]string{"AISTATUS_BASE_URL": "https://env.example.com"}, "https://flag.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var (
				b buildOptions
				s serveOptions
			)
			cmd := &cobra.Command{Use: "run"}
			b.register(cmd.Flags())
			s.register(cmd.Flags(), false)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := applyEnv(cmd); err != nil {
				t.Fatal(err)
			}
			if err := b.defaultBaseURL(cmd.Flags(), s.addr); err != nil {
				t.Fatal(err)
			}
			if b.baseURL != tc.want {
				t.Errorf("base URL %q, want %q", b.baseURL, tc.want)
			}
		})
	}
}
