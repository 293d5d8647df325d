package models

import (
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// The lifecycle of watched models (docs/api.md, "The lifecycle"): the
// rules that put a model on the retirement calendar and settle its date
// are history's (history.AssembleLifecycle), applied to the last good
// reads of the gateways' lists (watch.go) and of the makers' pages
// (makerpages.go).

// RetirementsDoc is the retirement calendar as published
// (models/retirements.json).
func RetirementsDoc(h *history.History, now time.Time) api.RetirementsDoc {
	doc := api.RetirementsDoc{Retirements: []api.ModelRetirement{}, Timestamp: now, License: api.License}
	if h.Models != nil {
		doc.Retirements = append(doc.Retirements, h.Models.Retirements...)
	}
	return doc
}
