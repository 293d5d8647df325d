package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
)

// TestBuildNotify runs `aistatus build --notify` with the secret from the
// environment: before the command returns, the receiver has one signed
// CloudEvent per change of the first build. Without a secret, --notify is
// refused before anything is built.
func TestBuildNotify(t *testing.T) {
	cat, err := snapshot.DefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	catalog := writeCatalog(t, world.Catalog)
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	key, _ := build.ParseWebhookSecret(secret)
	var (
		mu     sync.Mutex
		events []snapshot.CloudEvent
		bad    int
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ts int64
		var ev snapshot.CloudEvent
		_, scanErr := fmt.Sscan(r.Header.Get("webhook-timestamp"), &ts)
		mu.Lock()
		defer mu.Unlock()
		if scanErr != nil || r.Header.Get("webhook-signature") != build.SignWebhook(key, r.Header.Get("webhook-id"), ts, body) ||
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
	t.Setenv("AISTATUS_NOTIFY_SECRET", secret)
	if code, out := aistatus(context.Background(), args...); code != 0 {
		t.Fatalf("build exited %d: %s", code, out)
	}
	var list snapshot.ChangeList
	data, err := os.ReadFile(filepath.Join(dir, snapshot.FileChanges))
	if err != nil || json.Unmarshal(data, &list) != nil {
		t.Fatalf("changes.json: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if bad > 0 || len(events) != len(list.Changes) || len(events) < len(cat.Services) {
		t.Fatalf("receiver: %d signed events, %d refused; the build logged %d changes", len(events), bad, len(list.Changes))
	}
	for i, ev := range events {
		if ev.ID != snapshot.ChangeIDString(list.Changes[i].ID) || ev.Source != "https://aistatus.example/api/v1" {
			t.Errorf("event %d: %+v", i, ev)
		}
	}
}

// TestRunNotifyDrainsOnStop stops `aistatus run --notify` while its first
// build's webhooks are still queued behind a slow receiver: run delivers
// them before it returns, though the signal that stopped it came first.
func TestRunNotifyDrainsOnStop(t *testing.T) {
	cat, err := snapshot.DefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	catalog := writeCatalog(t, world.Catalog)
	t.Setenv("AISTATUS_NOTIFY_SECRET", "whsec_"+base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef")))
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
			"--base-url", "https://aistatus.example", "--timeout", "5s", "--every", "1h", "--notify", rcv.URL)
		done <- code
	}()
	var list snapshot.ChangeList
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
