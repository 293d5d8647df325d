package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// TestIncidentsEncoding: /incidents assembles its response from pre-encoded
// incidents; the bytes must be exactly what json.Marshal writes for the
// same list, so that the shortcut changes nothing a client can see.
func TestIncidentsEncoding(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, query := range []string{"", "?service=openai", "?service=groq", "?since=2026-09-01&limit=2", "?severity=critical&since=2026-10-31T13:00:00%2B01:00"} {
		resp := ts.do(t, http.MethodGet, "/api/v1/incidents"+query, nil)
		got := body(t, resp)
		var list api.IncidentList
		if err := json.Unmarshal(got, &list); err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		if want = append(want, '\n'); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", query, got, want)
		}
	}
}

// TestIncidentsETag: the ETag of /incidents is derived from the snapshot and
// the query, not from the body, so it must tell apart every pair of queries
// whose bodies differ — the filters are echoed as sent — and every snapshot.
func TestIncidentsETag(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	queries := []string{"", "?limit=2", "?limit=3", "?since=2026-09-01", "?since=2026-09-01T00:00:00Z",
		"?service=openai", "?severity=major", "?service=openai&severity=major"}
	etag := func(query string) string {
		return ts.do(t, http.MethodGet, "/api/v1/incidents"+query, nil).Header.Get("ETag")
	}
	seen := map[string]string{}
	for _, q := range queries {
		e := etag(q)
		if other, dup := seen[e]; dup {
			t.Errorf("%q and %q share the ETag %s", q, other, e)
		}
		seen[e] = q
		if again := etag(q); again != e {
			t.Errorf("%q: ETag %s, then %s", q, e, again)
		}
	}
	before := etag("?service=openai")
	publishTestSnapshot(t, ts.dir, ts.cat, genTime.Add(time.Minute))
	if ok, err := ts.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	if etag("?service=openai") == before {
		t.Error("the ETag did not change with the snapshot")
	}
}
