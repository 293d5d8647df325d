package buildtest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
)

// TestWorldServesVercel: the world serves a second gateway its own
// documents, Vercel's shape, beside the ones every gateway shares, and
// Vercel's readers read them.
func TestWorldServesVercel(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	capture := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "feed", "testdata", "real", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	const model = "deepseek/deepseek-v3.2"
	w := NewWorld(t, cat)
	urls := map[string]catalog.Gateway{}
	for _, g := range w.Catalog.Models.Gateways {
		urls[g.ID] = g
	}
	vercel, openrouter := urls[catalog.GatewayVercel], urls[catalog.GatewayOpenRouter]
	if !strings.HasPrefix(vercel.URL, w.Server.URL) || !strings.HasPrefix(vercel.ListURL, w.Server.URL) {
		t.Fatalf("the vercel gateway is not the world's: %+v", vercel)
	}
	w.SetModel(model, `{"data":{"id":"deepseek/deepseek-v3.2","endpoints":[]}}`)
	w.SetGatewayModel(catalog.GatewayVercel, model, capture("vercel-endpoints-deepseek-v3.2-20260709.json"))
	w.SetGatewayModelList(catalog.GatewayVercel, capture("vercel-models-deepseek-20260709.json"))
	ctx, client := context.Background(), &http.Client{}
	eps, err := feed.ReadVercel(ctx, client, strings.ReplaceAll(vercel.URL, catalog.ModelParam, model), model)
	if err != nil || len(eps) != 4 || eps[0].Provider != "bedrock" || eps[0].LatencyP50Ms == nil || *eps[0].LatencyP50Ms != 675 {
		t.Errorf("vercel's document: %+v, %v", eps, err)
	}
	list, err := feed.ReadVercelModels(ctx, client, vercel.ListURL, feed.Validators{})
	if err != nil || len(list.Models) != 2 || list.Validators.ETag == "" {
		t.Errorf("vercel's list: %+v, %v", list, err)
	}
	// The shared document is still OpenRouter's: another gateway's own
	// changes nothing there.
	if _, err := feed.ReadOpenRouter(ctx, client, strings.ReplaceAll(openrouter.URL, catalog.ModelParam, model), model); feed.Kind(err) != "empty" {
		t.Errorf("openrouter's document: err = %v, want the shared empty one", err)
	}
	// Taken away, Vercel's document is a 404, whatever is shared.
	w.SetGatewayModel(catalog.GatewayVercel, model, "")
	if _, err := feed.ReadVercel(ctx, client, strings.ReplaceAll(vercel.URL, catalog.ModelParam, model), model); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a document taken away: err = %v, want a 404", err)
	}
	if w.GatewayListRequests(catalog.GatewayVercel) != 1 || w.ModelListRequests() != 0 {
		t.Errorf("%d requests for Vercel's list, %d for OpenRouter's, want 1 and 0", w.GatewayListRequests(catalog.GatewayVercel), w.ModelListRequests())
	}
	// OpenRouter's list, in its shape, is never Vercel's: with nothing
	// of its own scripted, Vercel's list is a 404.
	w.SetModelList(capture("openrouter-models-20260522.json"))
	w.SetGatewayModelList(catalog.GatewayVercel, "")
	if _, err := feed.ReadVercelModels(ctx, client, vercel.ListURL, feed.Validators{}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("vercel's list with only OpenRouter's scripted: err = %v, want a 404", err)
	}
}
