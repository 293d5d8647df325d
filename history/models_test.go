package history

import (
	"testing"

	"github.com/aistatus/aistatus/api"
)

func TestBestModelStatus(t *testing.T) {
	t.Parallel()
	at := func(service string, st api.Status) api.ModelProvider {
		return api.ModelProvider{Service: service, Status: st}
	}
	entries := []api.ModelProvider{at("a", api.PartialOutage), at("a", api.Unknown), at("b", api.Operational), at("c", api.Unknown)}
	for _, tc := range []struct {
		service string
		want    api.Status
	}{
		{"", api.Operational}, {"a", api.PartialOutage}, {"b", api.Operational}, {"c", api.Unknown}, {"d", api.Unknown},
	} {
		if got := BestModelStatus(entries, tc.service); got != tc.want {
			t.Errorf("BestModelStatus(%q) = %s, want %s", tc.service, got, tc.want)
		}
	}
}
