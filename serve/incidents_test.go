package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aistatus/aistatus/snapshot"
)

// TestIncidentsEncoding: /incidents assembles its response from pre-encoded
// incidents; the bytes must be exactly what json.Marshal writes for the
// same list, so that the shortcut changes nothing a client can see.
func TestIncidentsEncoding(t *testing.T) {
	ts := newTestServer(t, 0)
	for _, query := range []string{"", "?service=openai", "?service=groq", "?since=2026-09-01&limit=2", "?severity=critical&since=2026-10-31T13:00:00%2B01:00"} {
		resp := ts.do(t, http.MethodGet, "/api/v1/incidents"+query, nil)
		got := body(t, resp)
		var list snapshot.IncidentList
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
