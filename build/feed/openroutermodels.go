package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/aistatus/aistatus/api"
)

// ListedModel is one entry of a gateway's list of the models it serves.
type ListedModel struct {
	// ID is the gateway's id of the model ("anthropic/claude-sonnet-4.5").
	ID string
	// CanonicalSlug is the gateway's dated id of the same model
	// ("anthropic/claude-4.5-sonnet-20250929").
	CanonicalSlug string
	Name          string
	// Created is when the gateway added the model.
	Created time.Time
	// Expires is the date after which the gateway may remove the model
	// ("2026-06-01"); "" when none is announced.
	Expires string
	// Details is the path of the model's endpoints document, as listed.
	Details string
}

// ModelList is a read of a gateway's model list.
type ModelList struct {
	Models []ListedModel
	// Validators identify the version read, for the next read's
	// conditional request.
	Validators Validators
	// Unchanged is a 304: the list is the one read before, and Models is
	// empty.
	Unchanged bool
}

// MaxListedModels bounds the entries of a model list. OpenRouter listed 356
// models in May 2026 and its list grows by a few dozen a quarter; a list of
// more is broken or hostile (a 5 MiB body of bare entries holds some 50 000)
// and fails as a document of the wrong shape, not cut: which models
// survived a cut would be the document's choice.
const MaxListedModels = 2000

// ReadOpenRouterModels reads OpenRouter's public model list (GET
// /api/v1/models, no key). Given the validators of the previous read it asks
// conditionally, and a 304 is a read of the same list (Unchanged).
func ReadOpenRouterModels(ctx context.Context, client *http.Client, url string, v Validators) (ModelList, error) {
	return readModelList(ctx, client, url, v, ParseOpenRouterModels)
}

// ParseOpenRouterModels reads a model list (fields per OpenRouter's API
// description, type Model: id, canonical_slug, name, created in Unix
// seconds, expiration_date YYYY-MM-DD or null, links.details). The document
// proves itself by its data list of entries with an id and a creation time;
// an empty list proves nothing (FailureEmpty), one of more than
// MaxListedModels is refused (FailureSchema). An entry without an id or a
// creation time, or with an expiration that is not a date, is skipped: the
// others stand.
func ParseOpenRouterModels(data []byte) ([]ListedModel, error) {
	items, err := listItems(data)
	if err != nil {
		return nil, err
	}
	var out []ListedModel
	for _, item := range items {
		var entry struct {
			ID            string  `json:"id"`
			CanonicalSlug string  `json:"canonical_slug"`
			Name          string  `json:"name"`
			Created       *int64  `json:"created"`
			Expiration    *string `json:"expiration_date"`
			Links         struct {
				Details string `json:"details"`
			} `json:"links"`
		}
		if json.Unmarshal(item, &entry) != nil || entry.Created == nil || *entry.Created <= 0 {
			continue
		}
		// The id as it will be kept: one of only spaces or control
		// characters is no id.
		id := api.CleanText(entry.ID, MaxGatewayName)
		if id == "" {
			continue
		}
		m := ListedModel{ID: id, CanonicalSlug: api.CleanText(entry.CanonicalSlug, MaxGatewayName),
			Name: api.CleanText(entry.Name, MaxGatewayName), Created: time.Unix(*entry.Created, 0).UTC(),
			Details: api.CleanText(entry.Links.Details, 2*MaxGatewayName)}
		if entry.Expiration != nil {
			if _, err := time.Parse(time.DateOnly, *entry.Expiration); err != nil {
				continue // not the documented date: what it announces is unknown
			}
			// A date of any year is kept here: the door (AdmitModels)
			// says which it takes, and logs the others.
			m.Expires = *entry.Expiration
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, failure(api.FailureSchema, "no entry of data has an id and a creation time: not a model list")
	}
	return out, nil
}

// AdmitModels is the door every gateway's model list passes before
// anything of ours keeps or renders it, as Read is the feeds' door: a
// listed model must be added at a sane time (api.SaneTime) no later than
// now plus api.IncidentFutureSlack, or it is dropped; an expiration date
// outside the sane years is no announcement and is dropped, the model
// kept. Text is bounded and made inert. One entry can cost only itself,
// never the list or the cycle: the year 10000 cannot even be encoded as
// JSON. dropped names what was left out, for the log. A list of which
// nothing passes is a document of the wrong shape (FailureSchema).
func AdmitModels(list ModelList, now time.Time) (admitted ModelList, dropped []string, err error) {
	if list.Unchanged {
		return list, nil, nil
	}
	limit := now.Add(api.IncidentFutureSlack)
	kept := make([]ListedModel, 0, len(list.Models))
	for _, m := range list.Models {
		m.ID = api.CleanText(m.ID, MaxGatewayName)
		m.CanonicalSlug = api.CleanText(m.CanonicalSlug, MaxGatewayName)
		m.Name = api.CleanText(m.Name, MaxGatewayName)
		m.Details = api.CleanText(m.Details, 2*MaxGatewayName)
		switch {
		case m.ID == "":
			dropped = append(dropped, "an entry without an id")
			continue
		case !api.SaneTime(m.Created):
			dropped = append(dropped, fmt.Sprintf("model %s: created %s out of range", m.ID, m.Created.Format(time.RFC3339)))
			continue
		case m.Created.After(limit):
			dropped = append(dropped, fmt.Sprintf("model %s: created %s is in the future", m.ID, m.Created.Format(time.RFC3339)))
			continue
		}
		if m.Expires != "" {
			if at, perr := time.Parse(time.DateOnly, m.Expires); perr != nil || !api.SaneTime(at) {
				dropped = append(dropped, fmt.Sprintf("model %s: expiration %q out of range, not taken", m.ID, api.CleanText(m.Expires, 20)))
				m.Expires = ""
			}
		}
		kept = append(kept, m)
	}
	if len(kept) == 0 {
		return ModelList{}, dropped, failure(api.FailureSchema, "no entry of the list is of a sane time: not a model list")
	}
	list.Models = kept
	return list, dropped, nil
}
