package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/notify"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
)

// notifySecret signs the webhooks of these tests.
var notifySecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

// notifyWorld starts a fake world of the default catalog's services and
// returns that catalog and the file to pass as --catalog.
func notifyWorld(t *testing.T) (catalog.Catalog, string) {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	return cat, writeCatalog(t, world.Catalog)
}

// TestBuildNotify runs `aistatus build --notify` with the secret from the
// environment: before the command returns, the receiver has one signed
// CloudEvent per change of the first build. Without a secret, --notify is
// refused before anything is built.
func TestBuildNotify(t *testing.T) {
	cat, catalog := notifyWorld(t)
	key, _ := notify.ParseWebhookSecret(notifySecret)
	var (
		mu     sync.Mutex
		events []api.CloudEvent
		bad    int
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ts int64
		var ev api.CloudEvent
		_, scanErr := fmt.Sscan(r.Header.Get("webhook-timestamp"), &ts)
		mu.Lock()
		defer mu.Unlock()
		if scanErr != nil || r.Header.Get("webhook-signature") != notify.SignWebhook(key, r.Header.Get("webhook-id"), ts, body) ||
			json.Unmarshal(body, &ev) != nil || r.UserAgent() != outbound.UserAgent {
			bad++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		events = append(events, ev)
	}))
	defer rcv.Close()
	dir := filepath.Join(t.TempDir(), "public")
	args := []string{"build", "--out", dir, "--catalog", catalog, "--base-url", "https://aistatus.example", "--timeout", "5s", "--notify", rcv.URL}

	if code, out := aistatus(context.Background(), args...); code == 0 || !strings.Contains(out, "--notify-secret") {
		t.Errorf("--notify without a secret: exit %d: %s", code, out)
	}
	t.Setenv("AISTATUS_NOTIFY_SECRET", notifySecret)
	list, _ := buildChanges(t, dir, args...)
	mu.Lock()
	defer mu.Unlock()
	if bad > 0 || len(events) != len(list.Changes) || len(events) < len(cat.Services) {
		t.Fatalf("receiver: %d signed events, %d refused; the build logged %d changes", len(events), bad, len(list.Changes))
	}
	for i, ev := range events {
		if ev.ID != api.ChangeIDString(list.Changes[i].ID) || ev.Source != "https://aistatus.example/api/v1" {
			t.Errorf("event %d: %+v", i, ev)
		}
	}
}

// buildChanges runs a build that must succeed and returns the change list
// it published in dir, and its output.
func buildChanges(t *testing.T, dir string, args ...string) (api.ChangeList, string) {
	t.Helper()
	code, out := aistatus(context.Background(), args...)
	if code != 0 {
		t.Fatalf("build exited %d: %s", code, out)
	}
	var list api.ChangeList
	data, err := os.ReadFile(filepath.Join(dir, snapshot.FileChanges))
	if err != nil || json.Unmarshal(data, &list) != nil {
		t.Fatalf("changes.json: %v", err)
	}
	return list, out
}

// TestRunNotifyDrainsOnStop stops `aistatus run --notify` while its first
// build's webhooks are still queued behind a slow receiver: run delivers
// them before it returns, though the signal that stopped it came first.
func TestRunNotifyDrainsOnStop(t *testing.T) {
	t.Parallel()
	cat, catalog := notifyWorld(t)
	var (
		mu       sync.Mutex
		received int
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // the queue is still full when run is stopped
		mu.Lock()
		received++
		mu.Unlock()
	}))
	defer rcv.Close()
	dir := filepath.Join(t.TempDir(), "public")
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		code, _ := aistatus(ctx, "run", "--out", dir, "--catalog", catalog, "--addr", "127.0.0.1:0",
			"--base-url", "https://aistatus.example", "--timeout", "5s", "--every", "1h", "--notify", rcv.URL, "--notify-secret", notifySecret)
		done <- code
	}()
	var list api.ChangeList
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(filepath.Join(dir, snapshot.FileChanges)); err == nil && json.Unmarshal(data, &list) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no snapshot published within 30 s")
		}
	}
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("run exited %d", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(list.Changes) < len(cat.Services) || received != len(list.Changes) {
		t.Fatalf("the receiver got %d of the first build's %d changes", received, len(list.Changes))
	}
}

// TestBuildNotifyFollowsNoRedirect: `aistatus build --notify` posts each
// change once to a receiver that redirects, even to its own host, and
// sends nothing where the redirect points; the log names the Location's host.
func TestBuildNotifyFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	_, catalog := notifyWorld(t)
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var mu sync.Mutex
			hits := map[string]int{}
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				hits[r.Method+" "+r.URL.Path]++
				mu.Unlock()
				if r.URL.Path == "/hook" {
					http.Redirect(w, r, "/moved", status)
				}
			}))
			defer rcv.Close()
			dir := filepath.Join(t.TempDir(), "public")
			list, out := buildChanges(t, dir, "build", "--out", dir, "--catalog", catalog,
				"--base-url", "https://aistatus.example", "--timeout", "5s", "--notify", rcv.URL+"/hook", "--notify-secret", notifySecret)
			mu.Lock()
			defer mu.Unlock()
			if want := map[string]int{"POST /hook": len(list.Changes)}; !maps.Equal(hits, want) || len(list.Changes) == 0 {
				t.Errorf("the receiver got %v; want %v", hits, want)
			}
			// The Location is named by its scheme and host alone: its path
			// and query may carry a token.
			if !strings.Contains(out, "(Location: "+rcv.URL+"/…): webhooks follow no redirect") || strings.Contains(out, "/moved") {
				t.Errorf("no failed delivery naming the Location by its host alone in the log: %s", out)
			}
		})
	}
}

// TestBuildNotifyConfig runs `aistatus build --notify-config` twice with a
// file naming a loopback Slack receiver by an environment variable and
// filtering to OpenAI, and no --notify-secret (no destination is a
// Standard Webhook): the first build's first checks send nothing, OpenAI's
// outage in the second sends one Slack message, and the URL's token is in
// no output. A file with a mistake is refused before anything is built,
// naming the destination and not its URL.
func TestBuildNotifyConfig(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	catalogFile := writeCatalog(t, world.Catalog)
	var (
		mu    sync.Mutex
		posts []string
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, r.URL.Path+" "+string(body))
		mu.Unlock()
	}))
	defer rcv.Close()
	t.Setenv("AISTATUS_TEST_SLACK_URL", rcv.URL+"/services/T000/B000/SLACKTOKEN")
	config := filepath.Join(t.TempDir(), "notify.json")
	write := func(s string) {
		if err := os.WriteFile(config, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "public")
	args := []string{"build", "--out", dir, "--catalog", catalogFile, "--base-url", "https://aistatus.example", "--timeout", "5s", "--notify-config", config}

	write(`{"destinations": [{"urlEnv": "AISTATUS_TEST_SLACK_URL", "kind": "slack", "services": ["opneai"]}]}`)
	if code, out := aistatus(context.Background(), args...); code == 0 || !strings.Contains(out, `destinations[0]: services: "opneai" is no tracked service`) || strings.Contains(out, "SLACKTOKEN") {
		t.Errorf("a misspelt service: exit %d: %s", code, out)
	}
	write(`{"destinations": [{"urlEnv": "AISTATUS_TEST_SLACK_URL", "kind": "slack", "services": ["openai"]}]}`)
	_, out1 := buildChanges(t, dir, args...)
	world.Set("openai", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	_, out2 := buildChanges(t, dir, args...)
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 1 || !strings.HasPrefix(posts[0], "/services/T000/B000/SLACKTOKEN {") ||
		!strings.Contains(posts[0], `"blocks"`) || !strings.Contains(posts[0], "OpenAI: up → major outage") {
		t.Fatalf("the receiver got %q; want one Slack message of OpenAI's outage", posts)
	}
	if strings.Contains(out1+out2, "SLACKTOKEN") {
		t.Errorf("the output names the webhook's token: %s%s", out1, out2)
	}
}
