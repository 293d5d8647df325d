package serve

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"weak"
)

// TestLargeSwapReturnsTheReplacedSnapshot: swapping in a large snapshot
// frees the one it replaced at once, rather than whenever the collector's
// pace gets to it, which left a replica at its swap's peak (see Store.set).
func TestLargeSwapReturnsTheReplacedSnapshot(t *testing.T) {
	large := func() *Snapshot {
		return &Snapshot{files: map[string]*representation{"incidents.json": {body: make([]byte, freeAfterSwapBytes)}}}
	}
	st := NewStore("")
	replaced := func() weak.Pointer[Snapshot] {
		s := large()
		st.set(s)
		return weak.Make(s)
	}()
	st.set(large())
	if replaced.Value() != nil {
		t.Error("the snapshot replaced by a large one is still in memory after the swap")
	}
}

// TestDecodeIncidents: incidents.json's list is read with each incident's
// own bytes, which /incidents sends as they are; they must be what
// json.Marshal writes for the incident decoded, in the list's order (newest
// first) whatever the file's, and a file that is not the document fails as
// json.Unmarshal would have.
func TestDecodeIncidents(t *testing.T) {
	older := `{"id":"a-1","service":"a","headline":"Old","severity":"minor","startedAt":"2026-10-01T00:00:00Z","endedAt":"2026-10-01T01:00:00Z","status":"resolved","source":"official","updatedAt":"2026-10-01T01:00:00Z"}`
	newer := `{"id":"b-2","service":"b","headline":"New \u003cb\u003e","severity":"major","startedAt":"2026-10-02T00:00:00Z","endedAt":null,"status":"investigating","source":"probe","updatedAt":"2026-10-02T00:00:00Z"}`
	tests := []struct {
		name, file string
		wantIDs    []string
		wantErr    bool
	}{
		{"newest first", `{"incidents":[` + newer + `,` + older + `],"timestamp":"2026-10-02T00:00:00Z"}`, []string{"b-2", "a-1"}, false},
		{"sorted when the file is not", `{"timestamp":"2026-10-02T00:00:00Z","incidents":[` + older + `,` + newer + `]}`, []string{"b-2", "a-1"}, false},
		{"space between", "{\n  \"incidents\": [\n    " + newer + ",\n    " + older + "\n  ]\n}\n", []string{"b-2", "a-1"}, false},
		{"indented", `{"incidents": [` + indent(newer) + `]}`, []string{"b-2"}, false},
		{"null list", `{"incidents":null}`, nil, false},
		{"no list", `{"timestamp":"2026-10-02T00:00:00Z"}`, nil, false},
		{"not UTF-8", `{"incidents":[{"id":"c-3","service":"c","headline":"` + "\xff" + `","severity":"minor","startedAt":"2026-10-03T00:00:00Z","status":"resolved","source":"official","updatedAt":"2026-10-03T00:00:00Z"}]}`, []string{"c-3"}, false},
		{"cut short", `{"incidents":[` + newer, nil, true},
		{"not an object", `[` + newer + `]`, nil, true},
		{"list of another kind", `{"incidents":{"id":"x"}}`, nil, true},
		{"a bad incident", `{"incidents":[{"startedAt":"yesterday"}]}`, nil, true},
		{"data after it", `{"incidents":[]} {}`, nil, true},
		{"empty", ``, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, raws, err := decodeIncidents([]byte(tt.file))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			var ids []string
			for i, inc := range list {
				ids = append(ids, inc.ID)
				want, _ := json.Marshal(inc)
				if !bytes.Equal(raws[i], want) {
					t.Errorf("%s: JSON\n %s\nwant\n %s", inc.ID, raws[i], want)
				}
			}
			if !slices.Equal(ids, tt.wantIDs) {
				t.Errorf("ids %v, want %v", ids, tt.wantIDs)
			}
		})
	}
}

func indent(s string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "  ", "  "); err != nil {
		panic(err)
	}
	return buf.String()
}
