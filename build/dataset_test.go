package build

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// TestBuildKeepsDailyHistory runs a build a day for 35 days, from
// 1 November: November closes (on 2 December) and later builds publish its
// file byte for byte; November 1's buckets are pruned two builds before the
// last, but its day stays in the service's history, read back from the
// monthly file of the previous snapshot.
func TestBuildKeepsDailyHistory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a dozen builds")
	}
	// Two services: what is checked is openai's, and every service's rows
	// take the same path; a build of all of them costs ten times more.
	// A build every third day: enough for November to close and for its
	// first days to leave the buckets, at a third of the builds.
	h := newHarnessWith(t, scheduleCatalog(t, "openai", "anthropic"))
	for !h.clock.Now().After(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)) {
		h.cycle()
		h.clock.Advance(3*24*time.Hour - time.Minute)
	}
	novFile := filepath.Join(h.out, filepath.FromSlash(history.DatasetFile(history.DatasetUptime, "2026-11")))
	closed, err := os.ReadFile(novFile)
	if err != nil {
		t.Fatal(err)
	}
	var idx history.DatasetIndex
	h.read(snapshot.FileDatasets, &idx)
	found := false
	for _, f := range idx.Files {
		if f.Month == "2026-11" && f.Kind == history.DatasetUptime {
			found = f.Closed
		}
	}
	if !found {
		t.Fatalf("November is not listed as closed: %+v", idx.Files)
	}

	h.cycle()
	if again, err := os.ReadFile(novFile); err != nil || !bytes.Equal(again, closed) {
		t.Errorf("the closed November file changed (%v)", err)
	}
	var doc api.HistoryDoc
	h.read(snapshot.ServiceHistoryFile("openai"), &doc)
	if len(doc.Days) < 31 || doc.Days[0].Date != "2026-11-01" {
		t.Fatalf("openai's history: %d days from %q, want November 1 on", len(doc.Days), doc.From)
	}
	// November 1 and 2 are outside the buckets since the build before:
	// their rows came from the file.
	var hist history.History
	h.read(snapshot.FileHistory, &hist)
	if oldest := time.Unix(hist.Services["openai"].Buckets[0].T, 0).UTC(); !oldest.After(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("the buckets still hold %s: the test proves nothing", oldest)
	}
	if d := doc.Days[0]; d.Coverage <= 0 {
		t.Errorf("November 1 came back without its data: %+v", d)
	}
	svc := h.service("openai")
	if svc.Uptime.D90 == nil || svc.UptimeCoverage.D90 <= 0 {
		t.Errorf("90-day window %v, coverage %v", svc.Uptime.D90, svc.UptimeCoverage.D90)
	}
}
