package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"weak"

	"github.com/rs/zerolog"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// TestLargeSwapReturnsTheReplacedSnapshot: swapping in a large snapshot
// frees the one it replaced at once, rather than whenever the collector's
// pace gets to it, which left a replica at its swap's peak (see Store.set).
func TestLargeSwapReturnsTheReplacedSnapshot(t *testing.T) {
	t.Parallel()
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

// olderIncident and newerIncident are incidents as a build writes them.
var (
	olderIncident = `{"id":"a-1","service":"a","headline":"Old","severity":"minor","startedAt":"2026-10-01T00:00:00Z","endedAt":"2026-10-01T01:00:00Z","status":"resolved","source":"official","updatedAt":"2026-10-01T01:00:00Z"}`
	newerIncident = `{"id":"b-2","service":"b","headline":"New \u003cb\u003e","severity":"major","startedAt":"2026-10-02T00:00:00Z","endedAt":null,"status":"investigating","source":"probe","updatedAt":"2026-10-02T00:00:00Z"}`
)

// incidentFiles are incidents.json documents, well and badly formed, for
// TestDecodeIncidents and FuzzDecodeIncidents.
var incidentFiles = []struct {
	name, file string
	wantIDs    []string
	wantErr    bool
}{
	{"newest first", `{"incidents":[` + newerIncident + `,` + olderIncident + `],"timestamp":"2026-10-02T00:00:00Z"}`, []string{"b-2", "a-1"}, false},
	{"sorted when the file is not", `{"timestamp":"2026-10-02T00:00:00Z","incidents":[` + olderIncident + `,` + newerIncident + `]}`, []string{"b-2", "a-1"}, false},
	{"space between", "{\n  \"incidents\": [\n    " + newerIncident + ",\n    " + olderIncident + "\n  ]\n}\n", []string{"b-2", "a-1"}, false},
	{"indented", `{"incidents": [` + indent(newerIncident) + `]}`, []string{"b-2"}, false},
	{"null list", `{"incidents":null}`, nil, false},
	{"no list", `{"timestamp":"2026-10-02T00:00:00Z"}`, nil, false},
	{"not UTF-8", `{"incidents":[{"id":"c-3","service":"c","headline":"` + "\xff" + `","severity":"minor","startedAt":"2026-10-03T00:00:00Z","status":"resolved","source":"official","updatedAt":"2026-10-03T00:00:00Z"}]}`, []string{"c-3"}, false},
	// Shapes history's fast parser leaves to encoding/json.
	{"the list twice", `{"incidents":[` + olderIncident + `],"incidents":[` + newerIncident + `]}`, []string{"b-2", "a-1"}, false},
	{"an escaped key", `{"incid\u0065nts":[` + olderIncident + `]}`, []string{"a-1"}, false},
	{"cut short", `{"incidents":[` + newerIncident, nil, true},
	{"not an object", `[` + newerIncident + `]`, nil, true},
	{"list of another kind", `{"incidents":{"id":"x"}}`, nil, true},
	{"a bad incident", `{"incidents":[{"startedAt":"yesterday"}]}`, nil, true},
	{"data after it", `{"incidents":[]} {}`, nil, true},
	{"empty", ``, nil, true},
}

// TestDecodeIncidents: incidents.json's list is read with each incident's
// own bytes, which /incidents sends as they are; they must be what
// json.Marshal writes for the incident decoded, in the list's order (newest
// first) whatever the file's, and a file that is not the document fails as
// json.Unmarshal would have.
func TestDecodeIncidents(t *testing.T) {
	t.Parallel()
	for _, tt := range incidentFiles {
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

// TestChangeLogOfASwappedOutFolder: the change log is read on first use,
// from the history.json of the folder the snapshot was loaded from, even
// when a build has since swapped that folder out and removed it: never the
// newer folder's, which would mix two generations.
func TestChangeLogOfASwappedOutFolder(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	w.publish(nil)
	first := w.publish(map[string]api.Status{"openai": api.MajorOutage})
	snap, err := Load(w.dir)
	if err != nil {
		t.Fatal(err)
	}
	if snap.history == nil {
		t.Fatal("the change log was read at load, not on first use")
	}
	second := w.publish(map[string]api.Status{"openai": api.Operational, "groq": api.Degraded})
	if len(second) == 0 {
		t.Fatal("the second build logged no change")
	}
	// Requests racing for the first read (run with -race) share it.
	logs := make([]*changeLog, 8)
	var wg sync.WaitGroup
	for i := range logs {
		wg.Go(func() { logs[i] = snap.changeLog() })
	}
	wg.Wait()
	log := logs[0]
	for _, l := range logs {
		if len(l.changes) != len(log.changes) {
			t.Fatal("concurrent first reads saw different logs")
		}
	}
	if snap.logErr != nil {
		t.Fatalf("change log not read: %v", snap.logErr)
	}
	if got, want := history.LastChangeID(log.changes), first[len(first)-1].ID; got != want {
		t.Errorf("last change %d, want %d: the log of another folder", got, want)
	}
	if len(log.statusChanges["openai"]) == 0 {
		t.Error("no status change of openai indexed for ?at=")
	}
}

// TestCorruptHistoryDegrades: a history.json that cannot be decoded no
// longer fails the load (the log is read after the snapshot is served): the
// snapshot is served, its change log is changes.json's recent one, which
// says where it begins, and the server logs why, once.
func TestCorruptHistoryDegrades(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	logged := w.publish(map[string]api.Status{"openai": api.MajorOutage})
	if err := os.WriteFile(filepath.Join(w.dir, snapshot.FileHistory), []byte(`{"changes":[{"id":`), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	clock := newTestClock(w.at)
	srv := New(Options{Dir: w.dir, Catalog: w.cat, Log: zerolog.New(&logs), Now: clock.Now})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	ts := &testServer{Server: srv, clock: clock, cat: w.cat}
	if resp := ts.do(t, http.MethodGet, snapshot.PathStatus, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/status: %d", resp.StatusCode)
	}
	for range 2 {
		resp := ts.do(t, http.MethodGet, snapshot.PathChanges+"?since=0", nil)
		var list api.ChangeList
		if err := json.Unmarshal(body(t, resp), &list); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("/changes?since=0: %d %v", resp.StatusCode, err)
		}
		if list.LastID != logged[len(logged)-1].ID || list.LogStart.IsZero() {
			t.Errorf("/changes?since=0 from changes.json: last id %d, log start %v; want %d and a start", list.LastID, list.LogStart, logged[len(logged)-1].ID)
		}
	}
	if n := strings.Count(logs.String(), "change log not read"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
}

// TestFilesHeldOnDisk: a large file the server only sends is served from
// its open descriptor, and must be answered exactly as from memory —
// identity and gzip, HEAD, ranges, revalidation — and still from the folder
// it was loaded from after a build swapped that folder out and removed it.
func TestFilesHeldOnDisk(t *testing.T) {
	t.Parallel()
	w := newChangeWorld(t)
	w.publish(map[string]api.Status{"openai": api.MajorOutage})
	inMemory, err := load(w.dir, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := load(w.dir, 1) // every file it may
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, rep := range onDisk.files {
		if rep.file != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for name, want := range map[string]bool{
		"openapi.json": true, "index.html": true, "export.csv": true,
		snapshot.FileStatus: false, snapshot.FileIncidents: false, snapshot.ServiceFile("openai"): false, snapshot.FileChanges: false,
	} {
		if slices.Contains(names, name) != want {
			t.Errorf("%s held on disk: %v, want %v", name, !want, want)
		}
	}
	// A build replaces the folder; the snapshots loaded before keep theirs.
	w.publish(map[string]api.Status{"openai": api.Operational, "groq": api.Degraded})
	servers := map[*Snapshot]*Server{}
	for _, snap := range []*Snapshot{inMemory, onDisk} {
		servers[snap] = New(Options{Catalog: w.cat, Log: zerolog.Nop(), Now: newTestClock(w.at).Now})
		servers[snap].store.set(snap)
	}
	answer := func(snap *Snapshot, method, target string, header http.Header) *httptest.ResponseRecorder {
		srv := servers[snap]
		req := httptest.NewRequest(method, target, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	for _, name := range names {
		target := "/" + name
		etag := answer(inMemory, http.MethodGet, target, nil).Header().Get("ETag")
		for _, c := range []struct {
			name, method string
			header       http.Header
		}{
			{"identity", http.MethodGet, http.Header{"Accept-Encoding": {"identity"}}},
			{"gzip", http.MethodGet, http.Header{"Accept-Encoding": {"gzip"}}},
			{"HEAD", http.MethodHead, nil},
			{"range", http.MethodGet, http.Header{"Range": {"bytes=10-99"}}},
			{"range, gzip", http.MethodGet, http.Header{"Range": {"bytes=-20"}, "Accept-Encoding": {"gzip"}}},
			{"revalidation", http.MethodGet, http.Header{"If-None-Match": {etag}}},
			{"If-Match", http.MethodGet, http.Header{"If-Match": {etag}}},
		} {
			want, got := answer(inMemory, c.method, target, c.header), answer(onDisk, c.method, target, c.header)
			if got.Code != want.Code || fmt.Sprint(got.Header()) != fmt.Sprint(want.Header()) || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
				t.Errorf("%s %s: from disk %d %v (%d bytes), from memory %d %v (%d bytes)", name, c.name,
					got.Code, got.Header(), got.Body.Len(), want.Code, want.Header(), want.Body.Len())
			}
		}
	}
}
