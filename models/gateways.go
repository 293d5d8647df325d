package models

import (
	"context"
	"net/http"

	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// Gateway is one model gateway a catalog may name, with what the rest of
// the program needs to read it.
type Gateway struct {
	// ID is the gateway's id in a catalog (one of catalog.Gateways).
	ID string
	// Name is the gateway as people know it.
	Name string
	// ReadList reads the gateway's list of the models it serves
	// (catalog.Gateway.ListURL), asking conditionally with the validators
	// of the last good read.
	ReadList func(ctx context.Context, client *http.Client, url string, v feed.Validators) (feed.ModelList, error)
	// ReadEndpoints reads the gateway's document of one model
	// (catalog.Gateway.URL with the model's id): its endpoints, by
	// provider and region, with the gateway's uptime of each.
	ReadEndpoints func(ctx context.Context, client *http.Client, url, modelID string) ([]feed.GatewayEndpoint, error)
	// FakeList writes the gateway's list of models in its own shape, and
	// FakeEndpoints its document of a model served by each of providers,
	// fully up: for the loopback world of the tests (build/buildtest:
	// World.SetServedBy), and read back by ReadList and ReadEndpoints in
	// TestGateways.
	FakeList      func(models []feed.ListedModel) []byte
	FakeEndpoints func(modelID string, providers []string) []byte
	// StatusWindow is the shortest window of the gateway's uptimes, the
	// one a provider's status is read from (history.ModelStatusOf): as
	// near to now as the gateway tells.
	StatusWindow string
	// ListsDates is true when the gateway's list announces the dates it
	// may remove models after (OpenRouter's expiration_date).
	ListsDates bool
	// ListsPinned is true for the gateway whose list the catalog's pinned
	// models are taken from (OpenRouter's): a read of its list lacking
	// them is suspect (plausibleList). Another gateway's list need not
	// carry them.
	ListsPinned bool
}

// Gateways is the one list of the model gateways, in the order of
// catalog.Gateways (TestGateways ties the two): the cycle reads each
// catalog gateway through its row, and the tests' fake world writes its
// documents with it. Adding a gateway is adding its row (and its id to
// catalog.Gateways). The slice is fresh on every call.
func Gateways() []Gateway {
	return []Gateway{
		{ID: catalog.GatewayOpenRouter, Name: "OpenRouter",
			ReadList: feed.ReadOpenRouterModels, ReadEndpoints: feed.ReadOpenRouter,
			FakeList: feed.FakeOpenRouterModels, FakeEndpoints: feed.FakeOpenRouter,
			StatusWindow: history.ModelWindow, ListsDates: true, ListsPinned: true},
		{ID: catalog.GatewayVercel, Name: "Vercel AI Gateway",
			ReadList: feed.ReadVercelModels, ReadEndpoints: feed.ReadVercel,
			FakeList: feed.FakeVercelModels, FakeEndpoints: feed.FakeVercel,
			StatusWindow: "15m"},
	}
}

// StatusWindow is the window a provider's status is read from at the
// gateway of that id: its row's, else history.ModelWindow.
func StatusWindow(id string) string {
	if g, ok := LookupGateway(id); ok && g.StatusWindow != "" {
		return g.StatusWindow
	}
	return history.ModelWindow
}

// LookupGateway returns the row of Gateways for id, and false for an id
// that is not a gateway's.
func LookupGateway(id string) (Gateway, bool) {
	for _, g := range Gateways() {
		if g.ID == id {
			return g, true
		}
	}
	return Gateway{}, false
}
