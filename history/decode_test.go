package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
)

// TestDecodeHistory: history.json read by the fast path is what
// json.Unmarshal reads, for the documents a build writes (every tricky
// string, nil and empty lists) and for the ones it does not, which fall
// back to json.Unmarshal.
func TestDecodeHistory(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var many []api.Incident
	for i := range 500 {
		many = append(many, randomIncident(r, i))
	}
	var changes []api.Change
	for i, inc := range many[:200] {
		c := api.Change{ID: int64(i + 1), Type: api.ChangeIncidentOpened, Service: inc.Service, Time: inc.StartedAt, Incident: &many[i]}
		switch {
		case i%6 == 1:
			c = api.Change{ID: int64(i + 1), Type: api.ChangeSurfaceStatus, Service: "a", Surface: catalog.SurfaceApp, Time: now,
				OldStatus: api.Operational, NewStatus: api.MajorOutage}
		case i%6 == 3:
			c = api.Change{ID: int64(i + 1), Type: api.ChangeModelStatus, Model: &api.ChangeModel{ID: "meta-llama/llama-3.3-70b-instruct", Name: "Llama 3.3 70B Instruct"}, Time: now,
				OldStatus: api.Operational, NewStatus: api.Degraded}
		case i%2 == 0:
			c = api.Change{ID: int64(i + 1), Type: api.ChangeStatus, Service: "a", Time: now, OldStatus: api.Operational, NewStatus: api.Degraded}
		}
		if i%7 == 0 {
			c.Changed = []string{"headline", trickyStrings[i%len(trickyStrings)]}
		}
		changes = append(changes, c)
	}
	written := func(h *History) []byte {
		var buf bytes.Buffer
		if err := WriteHistory(&buf, h); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	full := written(&History{Version: HistoryVersion, UpdatedAt: now, Incidents: many, Changes: changes,
		ChangesSince: now.Add(-time.Hour), NextChangeID: 201,
		Services: map[string]*ServiceHistory{"a": {LastChecked: now, Surfaces: map[catalog.SurfaceID]*ServiceHistory{"app": {Incidents: many[:2]}}}}})
	inputs := map[string]string{
		"written":         string(full),
		"empty lists":     string(written(&History{Version: HistoryVersion, Incidents: []api.Incident{}, Services: map[string]*ServiceHistory{}})),
		"nil lists":       string(written(&History{Version: HistoryVersion})),
		"spaced":          `{ "version" : 1 , "incidents" : [ { "id" : "a" , "endedAt" : null } ] , "changes" : [ ] }`,
		"null values":     `{"incidents":[{"id":null,"startedAt":null,"endedAt":null}],"changes":[{"incident":null,"changed":null,"id":null}]}`,
		"key in a case":   `{"Incidents":[{"id":"a"}]}`,
		"field in a case": `{"incidents":[{"ID":"a"}]}`,
		"unknown field":   `{"incidents":[{"id":"a","extra":[1,{"x":"]"}]}],"later":{"a":"}"}}`,
		"key twice":       `{"incidents":[{"id":"a","id":"b"}]}`,
		"list twice":      `{"incidents":[{"id":"a"}],"incidents":[]}`,
		"fraction id":     `{"changes":[{"id":1.5}]}`,
		"exponent id":     `{"changes":[{"id":1e3}]}`,
		"big id":          `{"changes":[{"id":99999999999999999999}]}`,
		"leading zero":    `{"changes":[{"id":012}]}`,
		"escaped":         `{"incidents":[{"id":"a\"b\u00e9\ud83d\ude00","headline":"\u003cb\u003e"}]}`,
		"bad escape":      `{"incidents":[{"id":"a\qb"}]}`,
		"bad utf-8":       "{\"incidents\":[{\"id\":\"a\xffb\"}]}",
		"control char":    "{\"incidents\":[{\"id\":\"a\x01b\"}]}",
		"bad time":        `{"incidents":[{"startedAt":"yesterday"}]}`,
		"time as number":  `{"incidents":[{"startedAt":5}]}`,
		"string as num":   `{"incidents":[{"id":5}]}`,
		"trailing":        `{"incidents":[]} x`,
		"trailing comma":  `{"incidents":[{"id":"a"},]}`,
		"unclosed":        `{"incidents":[{"id":"a"}`,
		"not an object":   `[1,2]`,
		"bad rest":        `{"version":"one","incidents":[]}`,
		"rest invalid":    `{"version":1 2,"incidents":[]}`,
		"nullx":           `{"incidents":nullx}`,
		"empty":           ``,
	}
	for name, in := range inputs {
		if err := sameAsEncodingJSON([]byte(in)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The fast path itself took the documents a build writes.
	for _, name := range []string{"written", "empty lists", "nil lists", "spaced", "null values", "escaped"} {
		for _, window := range []int{readWindow, 1} {
			r := iotest.OneByteReader(strings.NewReader(inputs[name]))
			if err := fastHistory(r, len(inputs[name]), window, &History{}); err != nil {
				t.Errorf("%s, window %d: the fast path gave up: %v", name, window, err)
			}
		}
	}
}

// FuzzDecodeHistory: whatever the bytes, the fast path decodes what
// json.Unmarshal decodes, and fails where it fails.
func FuzzDecodeHistory(f *testing.F) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	inc := api.Incident{ID: "a", Service: "s", Headline: "h <b>", Severity: api.Minor, StartedAt: now, Status: "resolved", Source: api.SourceOfficial, UpdatedAt: now}
	var seed bytes.Buffer
	if err := WriteHistory(&seed, &History{Version: HistoryVersion, UpdatedAt: now, Incidents: []api.Incident{inc},
		Changes: []api.Change{{ID: 1, Type: api.ChangeIncidentOpened, Service: "s", Time: now, Incident: &inc, Changed: []string{"x"}}}}); err != nil {
		f.Fatal(err)
	}
	f.Add(seed.Bytes())
	f.Add([]byte(`{"incidents":[{"id":"a\u00e9","endedAt":null}],"changes":[{"id":-0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := sameAsEncodingJSON(data); err != nil {
			t.Fatal(err)
		}
	})
}

// decodeHistory decodes history.json into h, which must be zero, as
// ReadHistory does: the fast path, then json.Unmarshal.
func decodeHistory(data []byte, h *History) error {
	if fastHistory(bytes.NewReader(data), len(data), readWindow, h) == nil {
		return nil
	}
	*h = History{}
	return json.Unmarshal(data, h)
}

// sameAsEncodingJSON decodes data as history.json with decodeHistory, and
// with the fast path reading one byte at a time through a window of a few
// bytes (every token then spans refills), and says how either differs from
// json.Unmarshal.
func sameAsEncodingJSON(data []byte) error {
	var std History
	errStd := json.Unmarshal(data, &std)
	for _, window := range []int{0, 1, 7} {
		var got History
		var err error
		if window == 0 {
			err = decodeHistory(data, &got)
		} else if err = fastHistory(iotest.OneByteReader(bytes.NewReader(data)), len(data), window, &got); err != nil {
			continue // left to json.Unmarshal, as decodeHistory does
		}
		if (err == nil) != (errStd == nil) {
			return fmt.Errorf("window %d: error %v, encoding/json's %v", window, err, errStd)
		}
		if errStd == nil && !reflect.DeepEqual(got, std) {
			return fmt.Errorf("window %d: decoded %+v, encoding/json %+v", window, got, std)
		}
	}
	// The change log read alone (ReadChangeLog's pass), which passes over
	// the rest unchecked: the same log where the whole file decodes.
	for _, window := range []int{1, 7, readWindow} {
		var log History
		err := readHistory(iotest.OneByteReader(bytes.NewReader(data)), len(data), window, &log, true)
		if err == nil && errStd == nil && (!reflect.DeepEqual(log.Changes, std.Changes) || !log.ChangesSince.Equal(std.ChangesSince)) {
			return fmt.Errorf("window %d: log %+v since %v, encoding/json's %+v since %v", window, log.Changes, log.ChangesSince, std.Changes, std.ChangesSince)
		}
	}
	return nil
}

// TestPassKeepsNoWindow: passing over a value without keeping it reads it
// through a window that does not grow, where skipping it (keeping its
// bytes) grows the window to hold it all: the change log's reader passes
// over 35 MB of incidents at the retention cap.
func TestPassKeepsNoWindow(t *testing.T) {
	t.Parallel()
	value := `[` + strings.Repeat(`{"id":"a,]}","n":[1,2,{"x":"\"]"}]},`, 2000) + `{}]`
	input := value + `,"next"`
	for _, keep := range []bool{false, true} {
		p := &parser{r: strings.NewReader(input), data: make([]byte, 0, 64), size: len(input), mark: -1}
		kept, err := passOrSkip(p, keep)
		if err != nil {
			t.Fatalf("keep %v: %v", keep, err)
		}
		switch {
		case keep && string(kept) != value:
			t.Errorf("skip kept %d bytes, not the value's %d", len(kept), len(value))
		case !keep && cap(p.data) > 64:
			t.Errorf("passing over %d bytes grew the window to %d", len(value), cap(p.data))
		}
		if !p.take(',') {
			t.Fatalf("keep %v: not at the comma after the value", keep)
		}
	}
}

// passOrSkip skips the next value, keeping it (skip), or passes over it
// (pass).
func passOrSkip(p *parser, keep bool) ([]byte, error) {
	if keep {
		return p.skip()
	}
	return nil, p.pass()
}

// TestPassAcrossRefills: a value is passed over, kept or not, whatever
// byte of it the window ends at: an escape at the window's end once sent
// a refill past the window's end, a panic.
func TestPassAcrossRefills(t *testing.T) {
	t.Parallel()
	for _, value := range []string{`"ab\"cd\\"`, `["a\"b",{"c":"\\","d":"\u003c"}]`, `{"x":[1,"]\""]}`, `12.5e3`} {
		input := value + `,`
		for _, keep := range []bool{false, true} {
			for window := 1; window <= len(input); window++ {
				p := &parser{r: iotest.OneByteReader(strings.NewReader(input)), data: make([]byte, 0, window), size: len(input), mark: -1}
				kept, err := passOrSkip(p, keep)
				if err != nil {
					t.Fatalf("%s, keep %v, window %d: %v", value, keep, window, err)
				}
				if keep && string(kept) != value {
					t.Errorf("%s, window %d: kept %q", value, window, kept)
				}
				if !p.take(',') {
					t.Fatalf("%s, keep %v, window %d: not at the comma after it", value, keep, window)
				}
			}
		}
	}
}

// TestReadChangeLogHoldsNoIncidents: reading the change log alone passes
// over the incidents before it without holding them: what it allocates is
// its window and the log, not the file. (Not parallel: it counts the
// bytes the process allocates.)
func TestReadChangeLogHoldsNoIncidents(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := &History{Version: HistoryVersion, UpdatedAt: now, ChangesSince: now, NextChangeID: 2,
		Changes: []api.Change{{ID: 1, Type: api.ChangeStatus, Service: "s", Time: now, NewStatus: api.Degraded}}}
	for i := range 20000 { // about 7 MB
		h.Incidents = append(h.Incidents, api.Incident{ID: fmt.Sprint("s-", i), Service: "s", Headline: "Elevated errors",
			Severity: api.Minor, StartedAt: now, Status: "resolved", Source: api.SourceOfficial, UpdatedAt: now})
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, snapshot.FileHistory))
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(WriteHistory(f, h), f.Close()); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	changes, _, err := ReadChangeLog(os.DirFS(dir))
	runtime.ReadMemStats(&after)
	if err != nil || len(changes) != 1 {
		t.Fatalf("%d changes, %v", len(changes), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
		t.Errorf("reading the log allocated %d bytes: the incidents were held", n)
	}
}

// TestReadChangeLog: the change log read alone is the log json.Unmarshal
// reads from the whole file; a file the fast path does not take is read
// by json.Unmarshal; no file is an empty log.
func TestReadChangeLog(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	inc := api.Incident{ID: "a", Service: "s", Headline: "h", Severity: api.Minor, StartedAt: now, Status: "resolved", Source: api.SourceOfficial, UpdatedAt: now}
	var written bytes.Buffer
	if err := WriteHistory(&written, &History{Version: HistoryVersion, UpdatedAt: now, Incidents: []api.Incident{inc, inc},
		Services: map[string]*ServiceHistory{"s": {LastChecked: now}}, ChangesSince: now.Add(-time.Hour), NextChangeID: 3,
		Changes: []api.Change{{ID: 1, Type: api.ChangeStatus, Service: "s", Time: now, NewStatus: api.Degraded},
			{ID: 2, Type: api.ChangeIncidentOpened, Service: "s", Time: now, Incident: &inc}}}); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"written":        written.String(),
		"another case":   `{"Changes":[{"id":1,"type":"status.changed","service":"s","time":"2026-11-01T12:00:00Z"}],"changessince":"2026-11-01T11:00:00Z"}`,
		"no log":         `{"version":1,"incidents":[]}`,
		"since only":     `{"changesSince":"2026-11-01T11:00:00Z"}`,
		"log before all": `{"changes":[{"id":7,"type":"status.changed","service":"s","time":"2026-11-01T12:00:00Z"}],"incidents":[{"id":"x"}]}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, snapshot.FileHistory), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var want struct {
			Changes      []api.Change `json:"changes"`
			ChangesSince time.Time    `json:"changesSince"`
		}
		if err := json.Unmarshal([]byte(content), &want); err != nil {
			t.Fatal(err)
		}
		changes, since, err := ReadChangeLog(os.DirFS(dir))
		if err != nil || !reflect.DeepEqual(changes, want.Changes) || !since.Equal(want.ChangesSince) {
			t.Errorf("%s: %+v, %v, %v; want %+v, %v", name, changes, since, err, want.Changes, want.ChangesSince)
		}
	}
	// What a build writes is read by the fast path, not the fallback.
	var h History
	if err := readHistory(&written, written.Len(), readWindow, &h, true); err != nil || len(h.Changes) != 2 || h.Incidents != nil {
		t.Errorf("the fast path did not read the log alone: %v, %d changes, %d incidents", err, len(h.Changes), len(h.Incidents))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, snapshot.FileHistory), []byte(`{"changes":[{"id":"x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadChangeLog(os.DirFS(dir)); err == nil {
		t.Error("a log of the wrong shape was read")
	}
	if changes, since, err := ReadChangeLog(os.DirFS(t.TempDir())); changes != nil || !since.IsZero() || err != nil {
		t.Errorf("no history: %v %v %v", changes, since, err)
	}
}

// gen returns a snapshot whose every file carries the generation number.
func gen(n int) map[string][]byte {
	s := strconv.Itoa(n)
	return map[string][]byte{
		snapshot.FileManifest:          []byte(`{"generation":` + s + `}`),
		snapshot.FileStatus:            []byte("status " + s),
		snapshot.ServiceFile("openai"): []byte("openai " + s),
		snapshot.ServiceFile("cohere"): []byte("cohere " + s),
		"deep/er/nested/x.json":        []byte("nested " + s),
	}
}

func mustPublish(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatalf("Publish: %v", err)
	}
}

func TestReadHistory(t *testing.T) {
	t.Parallel()
	t.Run("missing folder", func(t *testing.T) {
		h, raw, err := ReadHistory(filepath.Join(t.TempDir(), "never-built"))
		if err != nil || raw != nil {
			t.Fatalf("ReadHistory = _, %q, %v; want no bytes, no error", raw, err)
		}
		if !reflect.DeepEqual(h, New()) {
			t.Errorf("history = %+v, want New()", h)
		}
	})

	t.Run("folder without history", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "public")
		mustPublish(t, dir, gen(1))
		h, raw, err := ReadHistory(dir)
		if err != nil || raw != nil || !reflect.DeepEqual(h, New()) {
			t.Errorf("ReadHistory = %+v, %q, %v; want an empty history", h, raw, err)
		}
	})

	t.Run("round trip", func(t *testing.T) {
		want := New()
		want.UpdatedAt = at(30 * day)
		sh := want.Track("openai")
		sh.Record(at(30*day-10*time.Minute), api.Operational, new(120.5))
		sh.Record(at(30*day-5*time.Minute), api.PartialOutage, new(130.0))
		sh.Record(at(30*day), api.MajorOutage, nil)
		sh.FailedProbes, sh.FailingSince = 2, at(30*day-5*time.Minute)
		sh.ProbeIncident = "probe-openai-1"
		want.Track("cohere").Record(at(29*day), api.Maintenance, nil)
		want.Incidents = []api.Incident{
			incident("probe-openai-1", at(30*day-5*time.Minute), nil),
			incident("official-1", at(20*day), ptr(at(21*day))),
		}
		data, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "public")
		files := gen(1)
		files[snapshot.FileHistory] = data
		mustPublish(t, dir, files)

		got, raw, err := ReadHistory(dir)
		if err != nil {
			t.Fatal(err)
		}
		if raw != nil {
			t.Error("the bytes of a usable history were returned")
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
		}
		// The decoded history still computes: 300 s operational and 300 s
		// partial were credited; 100 × (600 − 0.3 × 300)/600 = 85.
		checkPct(t, "24h uptime after the round trip", got.Services["openai"].Uptime(at(30*day)).H24, pct(85))
	})

	t.Run("null services", func(t *testing.T) {
		dir := t.TempDir()
		writeHistory(t, dir, `{"version":1,"services":null,"incidents":null}`)
		h, _, err := ReadHistory(dir)
		if err != nil {
			t.Fatal(err)
		}
		if h.Services == nil {
			t.Error("Services is nil, want an empty map")
		}
		h.Track("x") // must not panic
	})

	corrupt := []struct {
		name, content, want string
	}{
		{"malformed JSON", `{"version":1,"services":{`, "unexpected end of JSON input"},
		{"not JSON", "<html>", "invalid character"},
		{"empty file", "", "unexpected end of JSON input"},
		{"wrong type", `{"version":"1"}`, "cannot unmarshal"},
		{"newer version", `{"version":2,"services":{}}`, "version 2, want 1"},
		{"array", `[]`, "cannot unmarshal"},
	}
	for _, tt := range corrupt {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeHistory(t, dir, tt.content)
			h, raw, err := ReadHistory(dir)
			if !errors.Is(err, ErrCorruptHistory) {
				t.Fatalf("err = %v, want one wrapping ErrCorruptHistory", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
			if h != nil {
				t.Errorf("history = %+v, want nil", h)
			}
			if raw == nil || string(raw) != tt.content {
				t.Errorf("raw = %q, want the file's bytes %q", raw, tt.content)
			}
		})
	}

	t.Run("no version", func(t *testing.T) {
		for _, content := range []string{`{"services":{}}`, `{}`, `null`, `{"format":"other"}`} {
			dir := t.TempDir()
			writeHistory(t, dir, content)
			if _, raw, err := ReadHistory(dir); !errors.Is(err, ErrCorruptHistory) || string(raw) != content {
				t.Errorf("%s: ReadHistory err = %v, raw %q; want ErrCorruptHistory and the bytes", content, err, raw)
			}
		}
	})

	t.Run("unreadable path is not corrupt", func(t *testing.T) {
		// The "folder" is a regular file: an I/O error, not an empty history.
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		h, _, err := ReadHistory(file)
		if err == nil || errors.Is(err, ErrCorruptHistory) || h != nil {
			t.Errorf("ReadHistory = %v, %v; want a plain error", h, err)
		}
	})
}

func writeHistory(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, snapshot.FileHistory), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
