package site

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/aistatus/aistatus/api"
)

// FileModelsPage is the page of every watched model.
const FileModelsPage = "models.html"

// modelRow is one watched model on the pages: its status and, per
// provider, the status with its figure and source.
type modelRow struct {
	// Base is the site's address, for the link to the model's document.
	Base     string
	ID, Name string
	State    StatusInfo
	// Where lists the providers, each "Amazon Bedrock: operational, 99.9 %
	// (OpenRouter, 5m)".
	Where []string
	// Witnesses says, per service where more than one witness speaks,
	// which stand behind its status: the agreement's statement.
	Witnesses []string
	// TTFT is our measured completions' time to first token over the last
	// hour, "" when none were measured.
	TTFT string
	// Since is when the model was released ("2026-04-16"), or first
	// watched when its gateway does not say; Retires the retirement date
	// announced or passed.
	Since, Retires string
	// Retired is true once the date has come: a model nobody can call is
	// shown retired, not by its providers' last status.
	Retired bool
}

// modelsSection is the status page's short section on models: the models
// in trouble, how many are watched in all, and how many no source reports
// on (the models page lists them all).
type modelsSection struct {
	Rows []modelRow
	// Watched counts the watched models, Silent those no source reports on.
	Watched, Silent int
	// Sources names where the figures come from, with their attributions.
	Sources []string
}

// modelGroup is one maker's models on the models page.
type modelGroup struct {
	Title string
	Rows  []modelRow
}

type modelsPage struct {
	layout
	Groups  []modelGroup
	Sources []string
	// Retirements lists the models retired or announced to be.
	Retirements []api.ModelRetirement
}

// modelRows are every watched model's row, in the documents' order; the
// model keeps them (newModel), as the index, the models page and each
// service's page show them.
func (m *model) modelRows() []modelRow {
	ttft := map[string]float64{}
	for _, svc := range m.services {
		for _, mm := range svc.Measured {
			if p := mm.Windows.Hour.TTFTMs.P50; p != nil {
				ttft[mm.Model] = *p
			}
		}
	}
	retires := map[string]string{}
	for _, r := range m.docs.Retirements.Retirements {
		retires[r.ID] = r.Date
	}
	var rows []modelRow
	for _, md := range m.docs.Models.Models {
		id := api.ModelSubjectID(md.ID)
		row := modelRow{Base: m.base, ID: md.ID, Name: md.Name, State: Status(m.said.status(id)), Retires: retires[md.ID],
			Retired: m.said[id].Retired != ""}
		for _, p := range md.Providers {
			if p.Status == api.Unknown {
				continue
			}
			where := p.Provider
			if p.Region != nil {
				where += " " + *p.Region
			}
			figure := p.Source.Name
			if p.Uptime != nil {
				figure = fmt.Sprintf("%.1f %%, %s over %s", *p.Uptime, p.Source.Name, p.Source.Window)
			}
			if l := p.Latency; l != nil {
				figure += fmt.Sprintf("; first token %.0f ms p50 over %s", l.P50, l.Window)
			}
			row.Where = append(row.Where, fmt.Sprintf("%s: %s (%s)", where, strings.ToLower(p.Status.Label()), figure))
		}
		for _, a := range md.Agreement {
			if a.Verdict != api.AgreementNone && a.Verdict != api.AgreementSingle {
				row.Witnesses = append(row.Witnesses, a.Statement)
			}
		}
		if ms, ok := ttft[md.ID]; ok {
			row.TTFT = fmt.Sprintf("%.0f ms", ms)
		}
		if at := cmp.Or(md.Created, md.FirstSeen); at != nil {
			row.Since = at.UTC().Format("2006-01-02")
		}
		rows = append(rows, row)
	}
	return rows
}

// models is the index's section: only the models in trouble are listed,
// with the count of all, which the models page lists.
func (m *model) models() modelsSection {
	sec := modelsSection{Watched: len(m.modelList), Sources: m.modelSources()}
	for _, row := range m.modelList {
		switch {
		case len(row.Where) == 0: // no source reports on it
			sec.Silent++
		case row.State.Issue:
			sec.Rows = append(sec.Rows, row)
		}
	}
	return sec
}

func (m *model) modelSources() []string {
	var out []string
	for _, src := range m.docs.Models.Sources {
		if src.Enabled {
			out = append(out, src.Attribution)
		}
	}
	return out
}

// modelsOf are the rows of the watched models whose maker is the service.
func (m *model) modelsOf(slug string) []modelRow {
	var out []modelRow
	for i, md := range m.docs.Models.Models {
		if md.Service == slug {
			out = append(out, m.modelList[i])
		}
	}
	return out
}

// modelsPage lists every watched model, by maker: its service's name, or
// the maker's id for a maker aistatus does not track.
func (m *model) modelsPage() modelsPage {
	p := modelsPage{
		layout: m.layout("AI models status: aistatus",
			"Is the model up, and where? Every watched AI model's status per provider, with the gateway's figures and our measured completions.",
			"./", m.base+"/models"),
		Sources:     m.modelSources(),
		Retirements: m.docs.Retirements.Retirements,
	}
	at := map[string]int{}
	for i, md := range m.docs.Models.Models {
		title := md.Author
		if svc := m.bySlug[md.Service]; svc != nil {
			title = svc.Name
		}
		g, ok := at[title]
		if !ok {
			g = len(p.Groups)
			at[title] = g
			p.Groups = append(p.Groups, modelGroup{Title: title})
		}
		p.Groups[g].Rows = append(p.Groups[g].Rows, m.modelList[i])
	}
	slices.SortStableFunc(p.Groups, func(a, b modelGroup) int { return strings.Compare(a.Title, b.Title) })
	return p
}
