package feed

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// vercelModelList is the captured list's two entries (testdata/real/README.md).
const vercelModelList = "real/vercel-models-deepseek-20260709.json"

func TestVercelModels(t *testing.T) {
	t.Parallel()
	realDoc := fixture(t, vercelModelList)
	var doc struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(realDoc, &doc); err != nil {
		t.Fatal(err)
	}
	// withEntry is the captured list with one more entry, a copy of its
	// first changed by edit.
	withEntry := func(edit func(e map[string]any)) string {
		var e map[string]any
		if err := json.Unmarshal(doc.Data[0], &e); err != nil {
			t.Fatal(err)
		}
		edit(e)
		more, _ := json.Marshal(e)
		out, _ := json.Marshal(map[string]any{"data": append(append([]json.RawMessage(nil), doc.Data...), more)})
		return string(out)
	}
	added := time.Unix(1755815280, 0).UTC()
	v32 := ListedModel{ID: "deepseek/deepseek-v3.2", Name: "DeepSeek V3.2", Created: added}
	thinking := ListedModel{ID: "deepseek/deepseek-v3.2-thinking", Name: "DeepSeek V3.2 Thinking", Created: added}
	for _, tc := range []struct {
		name string
		body string
		want []ListedModel
		fail api.FailureKind
	}{
		{name: "real: the captured entries", body: string(realDoc), want: []ListedModel{v32, thinking}},
		{name: "a model of another type is not watched", want: []ListedModel{v32, thinking},
			body: withEntry(func(e map[string]any) { e["id"], e["type"] = "deepseek/deepseek-image", "image" })},
		{name: "an entry without a type is kept", want: []ListedModel{v32, thinking, {ID: "deepseek/deepseek-v4", Name: "DeepSeek V3.2", Created: added}},
			body: withEntry(func(e map[string]any) { e["id"] = "deepseek/deepseek-v4"; delete(e, "type") })},
		{name: "an entry without a creation time is skipped", want: []ListedModel{v32, thinking},
			body: withEntry(func(e map[string]any) { e["id"] = "deepseek/deepseek-v4"; delete(e, "created") })},
		{name: "an entry of no id is skipped", want: []ListedModel{v32, thinking},
			body: withEntry(func(e map[string]any) { e["id"] = "\x1b\u202e" })},
		{name: "only models of other types", body: `{"object":"list","data":[{"id":"openai/gpt-image-1","created":1,"type":"image"}]}`, fail: api.FailureEmpty},
		{name: "an endpoints document instead", body: string(fixture(t, vercelV32)), fail: api.FailureSchema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, jsonAccept, map[string]reply{"/v1/models": {body: []byte(tc.body), ctype: "application/json"}})
			list, err := ReadVercelModels(context.Background(), &http.Client{}, srv.URL+"/v1/models", Validators{})
			if tc.fail != "" {
				if err == nil || Kind(err) != tc.fail {
					t.Fatalf("err = %v (kind %q), want a %q failure", err, Kind(err), tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Models) != len(tc.want) {
				t.Fatalf("%d models %+v, want %d", len(list.Models), list.Models, len(tc.want))
			}
			for i, w := range tc.want {
				if list.Models[i] != w {
					t.Errorf("model %d = %+v, want %+v", i, list.Models[i], w)
				}
			}
			// The list passes the gateways' door as it is.
			if admitted, dropped, err := AdmitModels(list, time.Date(2026, 7, 9, 16, 0, 0, 0, time.UTC)); err != nil || len(dropped) > 0 || len(admitted.Models) != len(tc.want) {
				t.Errorf("admitted %d, dropped %v, err = %v", len(admitted.Models), dropped, err)
			}
		})
	}
}

func FuzzVercelModels(f *testing.F) {
	f.Add(fixture(f, vercelModelList))
	f.Add([]byte(`{"object":"list","data":[{"id":"a/b","created":1,"type":"language"},{"id":"c/d","created":2,"type":"image"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		models, err := ParseVercelModels(data)
		if err != nil {
			return
		}
		if len(models) == 0 || len(models) > MaxListedModels {
			t.Fatalf("%d models", len(models))
		}
		for _, m := range models {
			if m.ID == "" || m.Created.IsZero() || !cleanGatewayText(m.ID) || !cleanGatewayText(m.Name) || m.Expires != "" || m.Details != "" {
				t.Fatalf("an entry that proves nothing, or says what the list does not: %+v", m)
			}
		}
	})
}
