package build

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	sitepages "github.com/aistatus/aistatus/build/site"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/gocarina/gocsv"
)

// Site describes the published site, for the documents that name it.
type Site struct {
	// BaseURL is the public address of the site, without /api/v1.
	BaseURL string
	// StaleAfter is the age past which the data is reported as stale.
	StaleAfter time.Duration
	// Generator names the program and version that wrote the snapshot.
	Generator string
	// APIOrigin is the thin server's address, to which the static-hosting
	// rules proxy /check and filtered /incidents; empty for none.
	APIOrigin string
	// Vantages is the health of the vantages' reports this cycle, for
	// sources.json; nil when the build reads none (no Redis). Build sets
	// it.
	Vantages *api.VantageSource
}

// Documents assembles the API documents of a cycle.
func Documents(site Site, cat catalog.Catalog, h *history.History, states map[string]ServiceState, now time.Time) snapshot.Documents {
	now = now.UTC()
	// Each service's list is made at its size: at the caps they copy
	// 100 000 incidents, and growing them would copy each several times.
	count := map[string]int{}
	for _, inc := range h.Incidents {
		count[inc.Service]++
	}
	byService := make(map[string][]api.Incident, len(count))
	for _, inc := range h.Incidents {
		if byService[inc.Service] == nil {
			byService[inc.Service] = make([]api.Incident, 0, count[inc.Service])
		}
		byService[inc.Service] = append(byService[inc.Service], inc)
	}
	all := h.Incidents
	if all == nil {
		all = []api.Incident{}
	}
	docs := snapshot.Documents{
		Manifest: snapshot.Manifest{
			GeneratedAt: now, StaleAfterSeconds: int(site.StaleAfter.Seconds()),
			BaseURL: site.BaseURL, Generator: site.Generator, Services: len(cat.Services),
		},
		Status: api.StatusDoc{
			Status: "ok", Timestamp: now, Source: api.Attribution(site.BaseURL), License: api.License,
		},
		Incidents:   api.IncidentList{Incidents: all, Timestamp: now, License: api.License},
		Sources:     api.SourcesDoc{Services: []api.ServiceSources{}, Vantages: site.Vantages, Timestamp: now, License: api.License},
		Models:      models.Doc(cat, h, now),
		Retirements: models.RetirementsDoc(h, now),

		Reliability: api.ReliabilityDoc{Services: []api.ServiceReliability{}, Timestamp: now, License: api.License},
	}
	docs.Sources.Models = docs.Models.Sources
	for _, svc := range cat.Services {
		st := states[svc.Slug]
		if st.Status == "" {
			st.Status = api.Unknown
		}
		if st.Basis == "" {
			st.Basis = api.BasisNone
		}
		sh := h.Lookup(svc.Slug)
		var checked *time.Time
		if !sh.LastChecked.IsZero() {
			t := sh.LastChecked.UTC()
			checked = &t
		}
		measured := sh.Measured(svc.Completion, now)
		docs.Sources.Services = append(docs.Sources.Services, api.ServiceSources{
			Slug: svc.Slug, Name: svc.Name, StatusPage: svc.StatusPage, Status: st.Status, Basis: st.Basis,
			Feed: st.Sources.Feed, Probe: st.Sources.Probe, Disagreement: st.Sources.Disagreement, Vantages: st.Sources.Vantages, Measured: measured,
		})
		incidents := byService[svc.Slug]
		if incidents == nil {
			incidents = []api.Incident{}
		}
		components := st.Components
		if components == nil {
			components = []api.Component{}
		}
		uptime, coverage := h.Windows(svc.Slug, now)
		surfaces := surfaceDocs(svc, st, sh, uptime, coverage, incidents, now)
		docs.Status.Services = append(docs.Status.Services, api.ServiceSummary{
			Slug: svc.Slug, Name: svc.Name, Category: svc.Category, Domain: svc.Domain,
			Status: st.Status, Basis: st.Basis, LastChecked: checked, URL: svc.URL, StatusPage: svc.StatusPage,
			LatencyMs: st.Sources.Probe.LatencyMs, Feed: cmp.Or(st.Sources.Feed.State, api.FeedNone),
			Disagreement: st.Sources.Disagreement, Surfaces: surfaceSummaries(surfaces),
		})
		reliability := history.ComputeReliability(svc.Slug, incidents, sh.Detections)
		var dataSince *time.Time
		if t := sh.DataSince(); !t.IsZero() {
			dataSince = &t
		}
		docs.Services = append(docs.Services, api.ServiceDoc{
			Slug: svc.Slug, Name: svc.Name, Category: svc.Category, Domain: svc.Domain,
			URL: svc.URL, StatusPage: svc.StatusPage, Status: st.Status, Basis: st.Basis, LastChecked: checked,
			LatencyMs: st.Sources.Probe.LatencyMs, Uptime: uptime, UptimeCoverage: coverage,
			DataSince: dataSince, Incidents: incidents, Components: components, Surfaces: surfaces,
			Measured: measured, ProbeLatency: sh.ProbeLatency(now),
			Sources: st.Sources, Timestamp: now, License: api.License,

			UptimeCoverageSources: sh.CoverageBreakdown(now), Reliability: reliability,
		})
		docs.Reliability.Services = append(docs.Reliability.Services, api.ServiceReliability{
			Slug: svc.Slug, Name: svc.Name, Reliability: reliability,
		})
	}
	// Computed once, from the documents just made: every output that
	// reads a subject's status reads it here.
	docs.Situation = history.Situation(now, docs.Services, docs.Models.Models, docs.Retirements.Retirements)
	return docs
}

// Render produces every file of a snapshot from the assembled cycle, in
// memory: path (slash-separated, relative to the snapshot folder) → content.
func Render(site Site, cat catalog.Catalog, h *history.History, states map[string]ServiceState, now time.Time) (snapshot.Files, error) {
	files := snapshot.Files{}
	if err := RenderTo(files, site, cat, h, states, now); err != nil {
		return nil, err
	}
	return files, nil
}

// RenderTo renders every file of a snapshot into out, one at a time, so
// that a build writing into a staging folder never holds the whole
// snapshot (about 240 MB at the retention caps).
func RenderTo(out snapshot.Sink, site Site, cat catalog.Catalog, h *history.History, states map[string]ServiceState, now time.Time) error {
	docs := Documents(site, cat, h, states, now)
	// The manifest is rendered last, listing every other file with its size
	// and hash: a replica reading the site over HTTP verifies the whole set
	// against it (see snapshot.Manifest.Files).
	sealed := snapshot.NewSealer(out)
	put := func(name string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		return sealed.Put(name, append(data, '\n'))
	}
	// The three documents that hold every incident are streamed by the
	// snapshot package's fast encoders (byte for byte encoding/json's).
	for _, doc := range docs.Services {
		if err := sealed.Stream(snapshot.ServiceFile(doc.Slug), func(w io.Writer) error { return history.WriteServiceDoc(w, doc) }); err != nil {
			return fmt.Errorf("render %s: %w", snapshot.ServiceFile(doc.Slug), err)
		}
		if err := put(snapshot.ServiceHistoryFile(doc.Slug), history.NewHistoryDoc(h, doc.Slug, site.BaseURL, now)); err != nil {
			return err
		}
	}
	index, err := history.WriteDataset(sealed, h, now, site.BaseURL)
	if err != nil {
		return err
	}
	var immutable []string
	for _, f := range index.Files {
		if f.Closed {
			immutable = append(immutable, strings.TrimPrefix(f.Path, "/"))
		}
	}
	headlines := models.NewHeadlines(docs.Incidents.Incidents)
	for _, m := range docs.Models.Models {
		if err := put(snapshot.ModelFile(m.ID), models.Document(cat, m, headlines, docs.Status.Timestamp)); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		v    any
	}{
		{snapshot.FileModels, docs.Models},
		{snapshot.FileModelRetirements, docs.Retirements},
		{snapshot.FileStatus, docs.Status},
		{snapshot.FileSources, docs.Sources},
		{snapshot.FileChanges, history.RecentChangeList(h, now)},
		{snapshot.FileReliability, docs.Reliability},
		{snapshot.FileSituation, docs.Situation},
		{snapshot.FileCatalog, cat},
	} {
		if err := put(f.name, f.v); err != nil {
			return err
		}
	}
	if err := sealed.Stream(snapshot.FileIncidents, func(w io.Writer) error { return history.WriteIncidentList(w, docs.Incidents) }); err != nil {
		return fmt.Errorf("render %s: %w", snapshot.FileIncidents, err)
	}
	if err := sealed.Stream(snapshot.FileHistory, func(w io.Writer) error { return history.WriteHistory(w, h) }); err != nil {
		return fmt.Errorf("render %s: %w", snapshot.FileHistory, err)
	}
	export, err := exportCSV(docs.Status)
	if err != nil {
		return fmt.Errorf("render %s: %w", snapshot.FileExport, err)
	}
	headers, redirects := hostingRules(site.APIOrigin, immutable)
	openAPI, err := OpenAPI(site.BaseURL, len(cat.Services))
	if err != nil {
		return fmt.Errorf("render %s: %w", snapshot.FileOpenAPI, err)
	}
	catalog, err := apiIndex(site.BaseURL, len(cat.Services))
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{snapshot.FileExport: export, snapshot.FileHeaders: headers,
		snapshot.FileRedirects: redirects, snapshot.FileOpenAPI: openAPI, snapshot.FileAPIIndex: catalog} {
		if err := sealed.Put(name, data); err != nil {
			return err
		}
	}
	// The status page, badges, feeds and discovery files, from the same documents.
	pages, err := sitepages.Render(docs, h)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		if err := sealed.Put(name, pages[name]); err != nil {
			return err
		}
	}
	sealed.Seal(&docs.Manifest)
	return put(snapshot.FileManifest, docs.Manifest)
}

// exportCSV renders the services as the contract's CSV export.
func exportCSV(status api.StatusDoc) ([]byte, error) {
	rows := make([]api.ExportRow, 0, len(status.Services))
	for _, s := range status.Services {
		row := api.ExportRow{Slug: s.Slug, Name: s.Name, Category: s.Category, Domain: s.Domain, Status: s.Status}
		if s.LastChecked != nil {
			row.LastChecked = s.LastChecked.Format(time.RFC3339)
		}
		rows = append(rows, row)
	}
	// CRLF line ends, as RFC 4180 (text/csv) has them: encoding/csv writes
	// LF unless told, and gocsv's MarshalBytes does not tell it.
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	w.UseCRLF = true
	if err := gocsv.MarshalCSV(rows, gocsv.NewSafeCSVWriter(w)); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
