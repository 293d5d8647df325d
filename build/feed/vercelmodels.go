package feed

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/aistatus/aistatus/api"
)

// ReadVercelModels reads Vercel AI Gateway's public model list (GET
// /v1/models, no key), conditionally as ReadOpenRouterModels does. The
// list passes the same door (AdmitModels) before anything keeps it.
func ReadVercelModels(ctx context.Context, client *http.Client, url string, v Validators) (ModelList, error) {
	return readModelList(ctx, client, url, v, ParseVercelModels)
}

// vercelLanguage is the type of the models whose endpoints carry a time to
// first token: the list also names embedding, image, video, speech and
// other models, which aistatus does not watch.
const vercelLanguage = "language"

// ParseVercelModels reads a model list (fields per Vercel's REST API
// reference, "List models": id, name, created in Unix seconds, type). The
// document proves itself by its data list of entries with an id and a
// creation time, as OpenRouter's does; an empty list proves nothing
// (FailureEmpty), one of more than MaxListedModels is refused
// (FailureSchema). An entry without an id or a creation time is skipped,
// and so is one of a type other than "language" (an entry without a type
// is kept). The list names no dated id, no endpoints path and no
// retirement date that its reference documents: those stay "".
func ParseVercelModels(data []byte) ([]ListedModel, error) {
	items, err := listItems(data)
	if err != nil {
		return nil, err
	}
	var out []ListedModel
	proved := 0
	for _, item := range items {
		var entry struct {
			ID      string `json:"id"`
			Name    string `json:"name"`
			Created *int64 `json:"created"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(item, &entry) != nil || entry.Created == nil || *entry.Created <= 0 {
			continue
		}
		id := api.CleanText(entry.ID, MaxGatewayName)
		if id == "" {
			continue
		}
		proved++
		if entry.Type != "" && entry.Type != vercelLanguage {
			continue
		}
		out = append(out, ListedModel{ID: id, Name: api.CleanText(entry.Name, MaxGatewayName), Created: time.Unix(*entry.Created, 0).UTC()})
	}
	switch {
	case proved == 0:
		return nil, failure(api.FailureSchema, "no entry of data has an id and a creation time: not a model list")
	case len(out) == 0:
		return nil, failure(api.FailureEmpty, "the list names no language model")
	}
	return out, nil
}
