package serve

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/snapshot"
)

// testGatewayReads is a cycle in which the gateway sees Claude Sonnet 4.5
// failing at Anthropic and fine on Bedrock, and cannot read GPT-5.
func testGatewayReads() map[string]map[string]models.GatewayRead {
	pct := func(v float64) *float64 { return &v }
	window := func(v5 float64) map[string]*float64 {
		return map[string]*float64{"5m": pct(v5), "30m": pct(v5), "1d": pct(99)}
	}
	return map[string]map[string]models.GatewayRead{catalog.GatewayOpenRouter: {
		"anthropic/claude-sonnet-4.5": {Endpoints: []feed.GatewayEndpoint{
			{Provider: "Anthropic", Tag: "anthropic", Uptime: window(60)},
			{Provider: "Amazon Bedrock", Tag: "amazon-bedrock", Uptime: window(99.9)},
		}},
		"openai/gpt-5": {Err: &feed.Error{Kind: api.FailureHTTP, Err: errHTTP429}},
	}}
}

var errHTTP429 = textError("GET https://openrouter.ai/api/v1/models/openai/gpt-5/endpoints: HTTP 429 Too Many Requests")

type textError string

func (e textError) Error() string { return string(e) }

func TestModels(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	resp := ts.do(t, http.MethodGet, snapshot.PathModels, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var list api.ModelsDoc
	if err := json.Unmarshal(body(t, resp), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != len(ts.cat.Models.Pinned) {
		t.Fatalf("%d models, want every watched one (%d)", len(list.Models), len(ts.cat.Models.Pinned))
	}
	byID := map[string]api.ModelDoc{}
	for _, m := range list.Models {
		byID[m.ID] = m
	}
	sonnet := byID["anthropic/claude-sonnet-4.5"]
	got := map[string]api.Status{}
	for _, p := range sonnet.Providers {
		got[p.Service] = p.Status
		if p.Uptime == nil || p.Source.Attribution == "" || p.Source.Window != history.ModelWindow {
			t.Errorf("%s: %+v lacks its figure, window or attribution", p.Service, p)
		}
	}
	if got["anthropic"] != api.PartialOutage || got["aws-bedrock"] != api.Operational || sonnet.Status != api.Operational {
		t.Errorf("sonnet = %+v, want a partial outage at Anthropic (60 %%) and operational on Bedrock", sonnet)
	}
	if m := byID["openai/gpt-5"]; m.Status != api.Unknown {
		t.Errorf("gpt-5 = %s, want unknown: the gateway refused, and OpenAI's own status is no model's", m.Status)
	}
	// The catalog's second gateway, Vercel's, is listed with its own
	// health and its list's, as the catalog orders them, then the makers'
	// three pages.
	if len(list.Sources) != 7 || list.Sources[0].State != api.FeedError || list.Sources[0].Failure != api.FailureHTTP ||
		list.Sources[1].Kind != api.ModelSourceList ||
		list.Sources[2].ID != catalog.GatewayVercel || !list.Sources[2].Enabled || list.Sources[2].State == api.ModelSourceDisabled ||
		list.Sources[3].ID != catalog.GatewayVercel+"-models" || list.Sources[3].State == api.ModelSourceDisabled ||
		list.Sources[4].Kind != api.ModelSourceLifecycle || list.Sources[5].Kind != api.ModelSourceLifecycle || list.Sources[6].Kind != api.ModelSourceLifecycle {
		t.Errorf("sources = %+v, want the gateway's failure, then its list, Vercel's and its list, then the makers' three pages", list.Sources)
	}

	one := ts.do(t, http.MethodGet, snapshot.APIBase+"/models/anthropic/claude-sonnet-4.5", nil)
	if one.StatusCode != http.StatusOK {
		t.Fatalf("one model: %d", one.StatusCode)
	}
	for _, tc := range []struct{ path, param string }{
		{"/models/anthropic/claude-sonnet-9", "model"},
		{"/models/Anthropic/claude-sonnet-4.5", "model"},
		{"/models/anthropic/claude..x", "model"},
	} {
		if p, ok := problemAt(t, ts, snapshot.APIBase+tc.path, http.StatusNotFound); ok && p.Param != tc.param {
			t.Errorf("%s: param %q, want %q", tc.path, p.Param, tc.param)
		}
	}
	if resp := ts.do(t, http.MethodGet, snapshot.APIBase+"/models/anthropic/claude-sonnet-4.5?x=%zz", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a malformed query: %d, want 400", resp.StatusCode)
	}
}

// TestCheckModel asks /check about a model over HTTP: the example,
// an error 529 while Claude Sonnet 4.5 sits at 60 % on Anthropic and
// 99.9 % on Bedrock, validated against the contract.
func TestCheckModel(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	resp := ts.do(t, http.MethodGet, snapshot.PathCheck+"?q=claude-sonnet-4.5&error=529", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var doc api.CheckDoc
	if err := json.Unmarshal(body(t, resp), &doc); err != nil {
		t.Fatal(err)
	}
	v := doc.Verdict
	if doc.Model == nil || doc.Model.Status != api.PartialOutage || v.Action != api.ActionFailover ||
		len(v.Alternatives) == 0 || v.Alternatives[0].Slug != "aws-bedrock" {
		t.Errorf("model %+v, advice %s, alternatives %+v: want a failover to Bedrock", doc.Model, v.Action, v.Alternatives)
	}
	for _, tc := range []struct{ query, param string }{
		{"?q=anthropic&model=", "model"},
		{"?q=anthropic&model=claude-sonnet-9", "model"},
	} {
		if p, ok := problemAt(t, ts, snapshot.PathCheck+tc.query, http.StatusBadRequest); ok && p.Param != tc.param {
			t.Errorf("%s: param %q, want %q", tc.query, p.Param, tc.param)
		}
	}
}
