package build

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/notify"
	"github.com/aistatus/aistatus/notify/notifytest"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
	"golang.org/x/net/html"
)

// TestClaudeAIDownAPIUp is the outage of the issue that asked for surface
// transitions: claude.ai and Claude Code in major outage while the Claude
// API is operational. Anthropic's real captured page (its API component
// set operational and its incident, which lists the API, taken out) is
// served after the same page with every component operational, through
// full builds with a webhook receiver. The change log has one
// surface.status.changed per surface that went down and no status.changed
// for the API; the receiver gets claude.ai's once, though a third build
// sees the same page; the index's card says claude.ai is down and the API
// up, and the banner counts both surfaces.
func TestClaudeAIDownAPIUp(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(filepath.Join("feed", "testdata", "real", "statuspage-anthropic-20260729.json"))
	if err != nil {
		t.Fatal(err)
	}
	calm := buildtest.ComponentsVariant(t, real, func(id string, status string) string { return "operational" })
	appDown := buildtest.ComponentsVariant(t, real, func(id string, status string) string {
		if id == "k8w3r06qmzrp" { // Claude API (api.anthropic.com)
			return "operational"
		}
		return status
	})

	rcv := notifytest.NewWebhookReceiver(t)
	b := newPageBuilds(t, "anthropic", calm)
	n, err := notify.New(context.Background(), notify.Options{URLs: []string{rcv.URL}, Secret: notifytest.Secret,
		BaseURL: "https://aistatus.example", Client: &http.Client{}, Log: zerolog.New(&b.log), QueueSize: 100, Attempts: 3, Backoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b.notifier = n
	b.cycle()
	var before api.ChangeList
	b.read(snapshot.FileChanges, &before)
	b.Serve(appDown)
	b.cycle()
	b.cycle() // the same page again: nothing moved
	drain, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n.Close(drain)

	var list api.ChangeList
	b.read(snapshot.FileChanges, &list)
	type entry struct {
		typ, subject string
		old, new     api.Status
	}
	var got []entry
	for _, c := range list.Changes[len(before.Changes):] {
		got = append(got, entry{string(c.Type), c.Subject(), c.OldStatus, c.NewStatus})
	}
	want := []entry{
		{"surface.status.changed", "anthropic/app", api.Operational, api.MajorOutage},
		{"surface.status.changed", "anthropic/agent", api.Operational, api.MajorOutage},
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes after the calm build:\n got %v\nwant %v", got, want)
	}

	var app []api.CloudEvent
	for _, ev := range rcv.Events() {
		if ev.Subject == "anthropic/app" && ev.Data.NewStatus == api.MajorOutage {
			app = append(app, ev)
		}
	}
	bad := len(rcv.Refused())
	if bad > 0 {
		t.Errorf("the receiver refused %d deliveries", bad)
	}
	if len(app) != 1 || app[0].Type != "ai.aistatus.surface.status.changed" || app[0].Data.Service != "anthropic" ||
		app[0].Data.Surface != "app" || app[0].Data.OldStatus != api.Operational {
		t.Errorf("claude.ai going down reached the receiver as %+v, want one surface.status.changed", app)
	}

	index, err := os.ReadFile(filepath.Join(b.out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(string(index)))
	if err != nil {
		t.Fatal(err)
	}
	if card := buildtest.NodeText(doc, "worst-surface"); card != "API up · claude.ai major outage" {
		t.Errorf("Anthropic's card says %q, want API up · claude.ai major outage", card)
	}
	if banner := buildtest.NodeText(doc, "overall"); !strings.Contains(banner, "2 surfaces with issues") {
		t.Errorf("banner %q does not count claude.ai and Claude Code", banner)
	}
}
