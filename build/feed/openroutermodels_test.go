package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// realModelList is the captured list, trimmed to whole entries.
const realModelList = "real/openrouter-models-20260522.json"

func TestOpenRouterModels(t *testing.T) {
	t.Parallel()
	realDoc := fixture(t, realModelList)
	for _, tc := range []struct {
		name  string
		body  string
		count int
		check map[string]ListedModel // by id: what must be read of it
	}{
		{name: "real: the captured list", body: string(realDoc), count: 61, check: map[string]ListedModel{
			"google/gemini-2.0-flash-001": {CanonicalSlug: "google/gemini-2.0-flash-001", Name: "Google: Gemini 2.0 Flash",
				Created: time.Unix(1738769413, 0).UTC(), Expires: "2026-06-01",
				Details: "/api/v1/models/google/gemini-2.0-flash-001/endpoints"},
			"x-ai/grok-4.3": {CanonicalSlug: "x-ai/grok-4.3-20260430", Name: "xAI: Grok 4.3", Created: time.Unix(1777591821, 0).UTC(),
				Details: "/api/v1/models/x-ai/grok-4.3-20260430/endpoints"},
		}},
		{name: "an entry without an id or a creation time is skipped", count: 1,
			body: `{"data":[{"id":"a/b","created":1},{"id":"","created":2},{"id":"c/d"},{"id":"e/f","created":0}]}`},
		{name: "an expiration that is no date skips its entry", count: 1,
			body: `{"data":[{"id":"a/b","created":1,"expiration_date":"soon"},{"id":"c/d","created":1,"expiration_date":null}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, jsonAccept, map[string]reply{"/models": {body: []byte(tc.body), ctype: "application/json"}})
			list, err := ReadOpenRouterModels(context.Background(), &http.Client{}, srv.URL+"/models", Validators{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Models) != tc.count {
				t.Fatalf("%d models, want %d", len(list.Models), tc.count)
			}
			for _, m := range list.Models {
				if want, ok := tc.check[m.ID]; ok {
					want.ID = m.ID
					if m != want {
						t.Errorf("%s = %+v, want %+v", m.ID, m, want)
					}
					delete(tc.check, m.ID)
				}
			}
			if len(tc.check) > 0 {
				t.Errorf("not read: %v", tc.check)
			}
		})
	}
}

// TestModelListsEnvelope: every gateway's list reader proves the list by
// its envelope and its entries alike: no data list, or one of which no
// entry has an id and a creation time, is a document of the wrong shape,
// an empty one proves nothing, and one past the cap (a real entry
// repeated) is refused, not cut.
func TestModelListsEnvelope(t *testing.T) {
	t.Parallel()
	for _, r := range []struct {
		name    string
		read    func(ctx context.Context, client *http.Client, url string, v Validators) (ModelList, error)
		fixture string
	}{
		{"OpenRouter", ReadOpenRouterModels, realModelList},
		{"Vercel", ReadVercelModels, vercelModelList},
	} {
		var doc struct {
			Data []json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(fixture(t, r.fixture), &doc); err != nil {
			t.Fatal(err)
		}
		tooMany := `{"data":[` + strings.TrimSuffix(strings.Repeat(string(doc.Data[0])+",", MaxListedModels+1), ",") + `]}`
		for _, tc := range []struct {
			name string
			body string
			fail api.FailureKind
		}{
			{name: "no entry proves itself", body: `{"data":[{"name":"x"}]}`, fail: api.FailureSchema},
			{name: "empty", body: `{"data":[]}`, fail: api.FailureEmpty},
			{name: "empty, with its object member", body: `{"object":"list","data":[]}`, fail: api.FailureEmpty},
			{name: "no data", body: `{"error":{"code":500}}`, fail: api.FailureSchema},
			{name: "data is not a list", body: `{"data":{"id":"a/b"}}`, fail: api.FailureSchema},
			{name: "null", body: `null`, fail: api.FailureSchema},
			{name: "over the cap", body: tooMany, fail: api.FailureSchema},
		} {
			t.Run(r.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv, _ := serve(t, jsonAccept, map[string]reply{"/models": {body: []byte(tc.body), ctype: "application/json"}})
				_, err := r.read(context.Background(), &http.Client{}, srv.URL+"/models", Validators{})
				if err == nil || Kind(err) != tc.fail {
					t.Fatalf("err = %v (kind %q), want a %q failure", err, Kind(err), tc.fail)
				}
			})
		}
	}
}

// TestModelListsErrors: every gateway's list reader refuses what is not
// its list, naming why.
func TestModelListsErrors(t *testing.T) {
	t.Parallel()
	for _, r := range []struct {
		name    string
		read    func(ctx context.Context, client *http.Client, url string, v Validators) (ModelList, error)
		fixture string
	}{
		{"OpenRouter", ReadOpenRouterModels, realModelList},
		{"Vercel", ReadVercelModels, vercelModelList},
	} {
		for _, tc := range jsonDocErrors(t, r.fixture) {
			t.Run(r.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv, _ := serve(t, jsonAccept, map[string]reply{"/models": tc.rep})
				_, err := r.read(context.Background(), &http.Client{}, srv.URL+"/models", Validators{})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v, want one mentioning %q", err, tc.want)
				}
			})
		}
	}
}

// TestModelListsConditional: for every gateway's list reader, the
// validators of a read are sent with the next, and a 304 is the same list,
// unchanged; a server that ignores them sends the list again, which is
// read.
func TestModelListsConditional(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		read    func(ctx context.Context, client *http.Client, url string, v Validators) (ModelList, error)
		fixture string
		models  int
	}{
		{"OpenRouter", ReadOpenRouterModels, realModelList, 61},
		{"Vercel", ReadVercelModels, vercelModelList, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := fixture(t, tc.fixture)
			var mu sync.Mutex
			var asked []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				asked = append(asked, r.Header.Get("If-None-Match")+"|"+r.Header.Get("If-Modified-Since"))
				mu.Unlock()
				if r.Header.Get("If-None-Match") == `W/"v1"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				w.Header().Set("ETag", `W/"v1"`)
				w.Header().Set("Last-Modified", "Fri, 22 May 2026 08:00:00 GMT")
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}))
			t.Cleanup(srv.Close)
			ctx := context.Background()
			first, err := tc.read(ctx, &http.Client{}, srv.URL, Validators{})
			if err != nil || first.Unchanged || len(first.Models) != tc.models {
				t.Fatalf("first read: %d models, unchanged %v, %v", len(first.Models), first.Unchanged, err)
			}
			want := Validators{ETag: `W/"v1"`, LastModified: "Fri, 22 May 2026 08:00:00 GMT"}
			if first.Validators != want {
				t.Errorf("validators %+v, want %+v", first.Validators, want)
			}
			again, err := tc.read(ctx, &http.Client{}, srv.URL, first.Validators)
			if err != nil || !again.Unchanged || len(again.Models) != 0 || again.Validators != want {
				t.Errorf("second read = %+v, %v: want unchanged, its validators kept", again, err)
			}
			other, err := tc.read(ctx, &http.Client{}, srv.URL, Validators{ETag: `W/"v0"`})
			if err != nil || other.Unchanged || len(other.Models) != tc.models {
				t.Errorf("with stale validators: unchanged %v, %d models, %v: want the list again", other.Unchanged, len(other.Models), err)
			}
			mu.Lock()
			defer mu.Unlock()
			if fmt.Sprint(asked) != `[| W/"v1"|Fri, 22 May 2026 08:00:00 GMT W/"v0"|]` {
				t.Errorf("requests sent %q", asked)
			}
		})
	}
}

func FuzzOpenRouterModels(f *testing.F) {
	f.Add(fixture(f, realModelList))
	f.Add([]byte(`{"data":[{"id":"a/b","created":1,"expiration_date":"2026-06-01"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		models, err := ParseOpenRouterModels(data)
		if err != nil {
			return
		}
		if len(models) == 0 || len(models) > MaxListedModels {
			t.Fatalf("%d models", len(models))
		}
		for _, m := range models {
			if m.ID == "" || m.Created.IsZero() {
				t.Fatalf("an entry that proves nothing: %+v", m)
			}
			if m.Expires != "" {
				if _, err := time.Parse(time.DateOnly, m.Expires); err != nil {
					t.Fatalf("expiration %q", m.Expires)
				}
			}
		}
	})
}

// TestAdmitModels: the door drops an entry whose time cannot be meant
// (before 2000, from 2100 on, or more than an hour ahead of our clock) and
// an expiration of no sane year, never the list; a list of which nothing
// passes is no list.
func TestAdmitModels(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	good := ListedModel{ID: "anthropic/claude-opus-4.7", Name: "Anthropic: Claude Opus 4.7", Created: now.Add(-48 * time.Hour), Expires: "2027-03-01"}
	for _, tc := range []struct {
		name    string
		entry   ListedModel
		kept    bool
		expires string
	}{
		{name: "a good entry", entry: good, kept: true, expires: "2027-03-01"},
		{name: "created in the year 10000", entry: ListedModel{ID: "openai/future", Created: time.Unix(253402300800, 0).UTC()}},
		{name: "created in 1970", entry: ListedModel{ID: "openai/epoch", Created: time.Unix(1, 0).UTC()}},
		{name: "created two hours ahead", entry: ListedModel{ID: "openai/early", Created: now.Add(2 * time.Hour)}},
		{name: "created within the hour's slack", entry: ListedModel{ID: "openai/soon", Created: now.Add(30 * time.Minute)}, kept: true},
		{name: "expiring 9999-12-31: the date is dropped, not the model",
			entry: ListedModel{ID: "openai/far", Created: now.Add(-time.Hour), Expires: "9999-12-31"}, kept: true},
		{name: "expiring 1999-12-31", entry: ListedModel{ID: "openai/past", Created: now.Add(-time.Hour), Expires: "1999-12-31"}, kept: true},
		{name: "an id of control characters only", entry: ListedModel{ID: "\x1b\x07", Created: now.Add(-time.Hour)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			list, dropped, err := AdmitModels(ModelList{Models: []ListedModel{good, tc.entry}}, now)
			if err != nil {
				t.Fatalf("one entry failed the list: %v", err)
			}
			if got := len(list.Models) == 2; got != tc.kept {
				t.Fatalf("kept %v (%d models, dropped %q), want %v", got, len(list.Models), dropped, tc.kept)
			}
			if tc.kept && list.Models[1].Expires != tc.expires {
				t.Errorf("expires %q, want %q", list.Models[1].Expires, tc.expires)
			}
			if (!tc.kept || tc.entry.Expires != tc.expires) && len(dropped) != 1 {
				t.Errorf("dropped %q: what is left out must be named, once", dropped)
			}
		})
	}
	if _, _, err := AdmitModels(ModelList{Models: []ListedModel{{ID: "a/b", Created: time.Unix(253402300800, 0)}}}, now); Kind(err) != api.FailureSchema {
		t.Errorf("a list of which nothing passes: %v, want a schema failure", err)
	}
	if list, _, err := AdmitModels(ModelList{Unchanged: true}, now); err != nil || !list.Unchanged {
		t.Errorf("an unchanged list: %+v, %v", list, err)
	}
}
