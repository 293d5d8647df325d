package catalog

import (
	"strings"
	"testing"
)

var probeA = &CompletionProbe{Style: StyleOpenAI, URL: "https://api.example.com/v1/chat/completions", KeyEnv: "K",
	Models: []MeasuredModelRef{{ID: "openai/gpt-4o-mini", Model: "gpt-4o-mini"}}}

func TestCompletionProbeProblems(t *testing.T) {
	t.Parallel()
	good := *probeA
	if p := good.problems(); len(p) != 0 {
		t.Fatalf("good probe: %v", p)
	}
	for _, tt := range []struct {
		edit func(*CompletionProbe)
		want string
	}{
		{func(p *CompletionProbe) { p.Style = "grpc" }, "style"},
		{func(p *CompletionProbe) { p.URL = "http://api.example.com/v1" }, "https only"},
		{func(p *CompletionProbe) { p.URL = "https://api.example.com/v1?key=x" }, "no query"},
		{func(p *CompletionProbe) { p.KeyEnv = "openai key" }, "keyEnv"},
		{func(p *CompletionProbe) { p.Models = nil }, "models is empty"},
		{func(p *CompletionProbe) { p.Models = []MeasuredModelRef{{ID: "gpt-4o-mini", Model: "gpt-4o-mini"}} }, "author/model"},
		{func(p *CompletionProbe) { p.Models = append(p.Models, p.Models[0]) }, "twice"},
	} {
		p := good
		p.Models = append([]MeasuredModelRef(nil), good.Models...)
		tt.edit(&p)
		if got := strings.Join(p.problems(), "; "); !strings.Contains(got, tt.want) {
			t.Errorf("problems %q, want one about %q", got, tt.want)
		}
	}
}
