package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// TestModelLifecycle is the "done when": against a loopback
// OpenRouter serving its real captured model list, which carries a model
// the catalog does not list (Claude Opus 4.7), one with an expiration date
// (Gemini 2.0 Flash, pinned, 2026-06-01) and not one of the catalog's
// pinned ids (Grok 4): the new model is in /models with its providers and
// /check answers for it; the other two are on the retirement calendar and
// in its .ics; /check for the gone one says retired, fix_client.
func TestModelLifecycle(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	b := newWorldBuilds(t, cat)
	list, err := os.ReadFile(filepath.Join("..", "..", "build", "feed", "testdata", "real", "openrouter-models-20260522.json"))
	if err != nil {
		t.Fatal(err)
	}
	b.world.SetModelList(string(list))
	b.world.SetServedBy("anthropic/claude-opus-4.7", "Anthropic", "Amazon Bedrock")
	b.world.SetServedBy("x-ai/grok-4.3", "xAI")
	b.clock.Set(time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC))
	b.step = 5 * time.Minute
	// Two cycles: the rotation reads every watched model within them.
	b.cycle(build.Completions{})
	b.cycle(build.Completions{})
	srv := serve.New(serve.Options{Dir: b.out, Catalog: b.cat, Log: zerolog.Nop(), Now: b.clock.Now})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	do := func(path string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = "192.0.2.1:1234"
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	get := func(path string, v any) {
		t.Helper()
		rec := do(path)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", path, rec.Code)
		}
		if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
			t.Fatal(err)
		}
	}

	const opus, flash, grok = "anthropic/claude-opus-4.7", "google/gemini-2.0-flash-001", "x-ai/grok-4"
	var models api.ModelsDoc
	get(snapshot.PathModels, &models)
	i := slices.IndexFunc(models.Models, func(m api.ModelDoc) bool { return m.ID == opus })
	if i < 0 {
		t.Fatalf("%s is not in %s", opus, snapshot.PathModels)
	}
	found := models.Models[i]
	services := map[string]api.Status{}
	for _, p := range found.Providers {
		services[p.Service] = p.Status
	}
	if found.FirstSeen == nil || found.Service != "anthropic" || services["anthropic"] != api.Operational || services["aws-bedrock"] != api.Operational {
		t.Errorf("%s = %+v, want it first seen, at Anthropic and Bedrock, operational", opus, found)
	}
	var check api.CheckDoc
	get(snapshot.PathCheck+"?q=claude-opus-4.7", &check)
	if check.Model == nil || check.Model.ID != opus || check.Service.Slug != "anthropic" || *check.Status != api.Operational {
		t.Errorf("check of %s: model %+v at %+v", opus, check.Model, check.Service)
	}

	var calendar api.RetirementsDoc
	get(snapshot.PathModelRetirements, &calendar)
	byID := map[string]api.ModelRetirement{}
	for _, r := range calendar.Retirements {
		byID[r.ID] = r
	}
	if r := byID[flash]; r.State != api.RetirementAnnounced || r.Date != "2026-06-01" || r.Service != "google-gemini" || r.Source != "openrouter-models" {
		t.Errorf("%s on the calendar: %+v, want announced for 2026-06-01", flash, r)
	}
	if r := byID[grok]; r.State != api.RetirementRetired || r.Date != "2026-05-25" || r.Service != "xai" || r.Name != "Grok 4" {
		t.Errorf("%s on the calendar: %+v, want retired when noticed gone", grok, r)
	}
	// The API answers the calendar beside its JSON, as the site's root does.
	rec := do(snapshot.PathModelRetirementsCalendar)
	ics := rec.Body.Bytes()
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != snapshot.ContentCalendar {
		t.Fatalf("%s: %d %s", snapshot.PathModelRetirementsCalendar, rec.Code, rec.Header().Get("Content-Type"))
	}
	if site, err := os.ReadFile(filepath.Join(b.out, "models", "retirements.ics")); err != nil || !bytes.Equal(site, ics) {
		t.Errorf("%s is not the site's models/retirements.ics (%v)", snapshot.PathModelRetirementsCalendar, err)
	}
	for _, want := range []string{"DTSTART;VALUE=DATE:20260601", "Gemini 2.0 Flash (" + flash + ")", "DTSTART;VALUE=DATE:20260525", "Grok 4 (" + grok + ")"} {
		if !strings.Contains(strings.ReplaceAll(string(ics), "\r\n ", ""), want) {
			t.Errorf("retirements.ics lacks %q:\n%s", want, ics)
		}
	}

	for _, q := range []string{"?q=x-ai/grok-4", "?q=grok-4&error=404", "?q=" + flash + "&code=model_not_found"} {
		get(snapshot.PathCheck+q, &check)
		v := check.Verdict
		if v.Action != api.ActionFixClient || v.Blame != api.BlameClient || check.Model == nil || check.Model.Retirement == nil ||
			v.Level == "down" || !strings.Contains(v.Headline, "retired") {
			t.Errorf("check%s: %s %s %q (%s), model %+v: want fix_client, the model retired or retiring", q, v.Action, v.Blame, v.Headline, v.Level, check.Model)
		}
		if strings.Contains(q, "grok") && !strings.Contains(v.Reason, "Grok 4.3 (x-ai/grok-4.3)") {
			t.Errorf("check%s: %q, want it to name the newer xAI model that is up", q, v.Reason)
		}
	}
	// Announced, and no error to say the caller hit it: the verdict is the
	// model's, with the date in its detail.
	get(snapshot.PathCheck+"?q="+flash, &check)
	if check.Verdict.Action == api.ActionFixClient || !strings.Contains(check.Verdict.Detail, "2026-06-01") {
		t.Errorf("check of %s with no error: %s, %q", flash, check.Verdict.Action, check.Verdict.Detail)
	}

	var changes api.ChangeList
	get(snapshot.PathChanges, &changes)
	logged := map[string]string{}
	for _, c := range changes.Changes {
		if c.Model != nil {
			logged[c.Model.ID] = string(c.Type)
		}
	}
	if logged[grok] != string(api.ChangeModelRetired) || logged[flash] != string(api.ChangeModelRetiring) {
		t.Errorf("change log: %v, want %s retired and %s retiring", logged, grok, flash)
	}
}
