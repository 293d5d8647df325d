package site

import (
	"fmt"
	"strings"

	"github.com/aistatus/aistatus/api"
)

// modelRow is one watched model on the status page: its status and, per
// provider, the status with its figure and source.
type modelRow struct {
	ID, Name string
	State    StatusInfo
	// Where lists the providers, each "Amazon Bedrock: operational, 99.9 %
	// (OpenRouter, 5m)".
	Where []string
}

// modelsSection is the status page's short section on models: the models
// some source reports on, and how many others nobody does.
type modelsSection struct {
	Rows []modelRow
	// Silent counts the watched models no source reports on.
	Silent int
	// Sources names where the figures come from, with their attributions.
	Sources []string
}

func (m *model) models() modelsSection {
	var sec modelsSection
	for _, md := range m.docs.Models.Models {
		row := modelRow{ID: md.ID, Name: md.Name, State: Status(md.Status)}
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
			row.Where = append(row.Where, fmt.Sprintf("%s: %s (%s)", where, strings.ToLower(StatusLabel(p.Status)), figure))
		}
		if len(row.Where) == 0 {
			sec.Silent++
			continue
		}
		sec.Rows = append(sec.Rows, row)
	}
	for _, src := range m.docs.Models.Sources {
		if src.Enabled {
			sec.Sources = append(sec.Sources, src.Attribution)
		}
	}
	return sec
}
