package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// trickyStrings are strings encoding/json escapes, or might be thought to:
// the appenders must write each exactly as it does.
var trickyStrings = []string{
	"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\r", "\x00\x01\x1f\x7f",
	"é中文🙂", "line\u2028sep\u2029", "bad \xff utf-8", "\xe2\x80", "https://status.example/incidents/01H?x=1&y=2",
}

func randomIncident(r *rand.Rand, i int) api.Incident {
	pick := func() string { return trickyStrings[r.IntN(len(trickyStrings))] }
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(300 * 24 * time.Hour))))
	if r.IntN(4) == 0 {
		start = start.Add(time.Duration(r.IntN(1e9))) // nanoseconds
	}
	inc := api.Incident{ID: fmt.Sprintf("inc-%d", i) + pick(), Service: "svc" + pick(), Headline: pick(),
		Severity: []api.Severity{api.Minor, api.Major, api.Critical}[r.IntN(3)], StartedAt: start, Status: pick(),
		Source: api.SourceOfficial, URL: pick(), UpdatedAt: start.Add(time.Minute)}
	if r.IntN(3) > 0 {
		end := start.Add(time.Duration(r.IntN(600)) * time.Minute)
		inc.EndedAt = &end
	}
	return inc
}

func marshalLine(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// TestAppendIncident: the hand-written encodings are byte for byte
// encoding/json's, over every field's edges.
func TestAppendIncident(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		inc := randomIncident(r, i)
		got, err := AppendIncident(nil, inc)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(inc); !bytes.Equal(got, want) {
			t.Fatalf("incident %d:\n got %s\nwant %s", i, got, want)
		}
		c := api.Change{ID: int64(i) + 1, Type: api.ChangeIncidentUpdated, Service: inc.Service, Time: inc.UpdatedAt}
		switch i % 3 {
		case 0:
			c.Type, c.OldStatus, c.NewStatus = api.ChangeStatus, api.Operational, api.Degraded
		case 1:
			c.Incident, c.Changed = &inc, []string{"severity", trickyStrings[i%len(trickyStrings)]}
		}
		got, err = AppendChange(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(c); !bytes.Equal(got, want) {
			t.Fatalf("change %d:\n got %s\nwant %s", i, got, want)
		}
	}
	// A time encoding/json refuses is refused, not written.
	bad := api.Incident{StartedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := AppendIncident(nil, bad); err == nil {
		t.Error("a year past 9999 was encoded")
	}
	// Another zone is written as encoding/json writes it.
	zoned := api.Incident{StartedAt: time.Date(2026, 5, 1, 12, 0, 0, 0, time.FixedZone("X", 5*3600+1800))}
	if got, _ := AppendIncident(nil, zoned); !bytes.Equal(got, must(json.Marshal(zoned))) {
		t.Errorf("zoned time: %s", got)
	}
}

func must(data []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return data
}

// TestAppendersCoverEveryField: an Incident or a Change with every field
// set encodes to as many keys as encoding/json writes, so a field added to
// either type without its appender fails here.
func TestAppendersCoverEveryField(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 5, 1, 13, 0, 0, 0, time.UTC)
	inc := api.Incident{}
	fill(reflect.ValueOf(&inc).Elem(), end)
	model := api.ChangeModel{}
	fill(reflect.ValueOf(&model).Elem(), end)
	c := api.Change{Incident: &inc, Model: &model}
	fill(reflect.ValueOf(&c).Elem(), end)
	for name, pair := range map[string][2]any{"incident": {inc, AppendIncident}, "change": {c, AppendChange}} {
		var got []byte
		var err error
		switch v := pair[0].(type) {
		case api.Incident:
			got, err = AppendIncident(nil, v)
		case api.Change:
			got, err = AppendChange(nil, v)
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := must(json.Marshal(pair[0])); !bytes.Equal(got, want) {
			t.Errorf("%s with every field set:\n got %s\nwant %s", name, got, want)
		}
	}
}

// fill sets every settable field of v to a non-zero value.
func fill(v reflect.Value, at time.Time) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(at))
		case f.Type() == reflect.TypeFor[*time.Time]():
			f.Set(reflect.ValueOf(&at))
		case f.Kind() == reflect.String:
			f.SetString(v.Type().Field(i).Name)
		case f.Kind() == reflect.Int64 || f.Kind() == reflect.Int:
			f.SetInt(7)
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			f.Set(reflect.ValueOf([]string{"a", "b"}).Convert(f.Type()))
		case f.Kind() == reflect.Pointer && !f.IsNil():
		default:
			panic("fill: add a case for " + f.Type().String())
		}
	}
}

// TestWriteDocuments: history.json, incidents.json, a service document and
// the NDJSON are written byte for byte as encoding/json writes them, with
// lists empty, nil and long enough to be streamed in several chunks.
func TestWriteDocuments(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var many []api.Incident
	for i := range 3000 { // about 1 MB: several chunks
		many = append(many, randomIncident(r, i))
	}
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	changes := []api.Change{
		{ID: 1, Type: api.ChangeStatus, Service: "a", Time: now, NewStatus: api.Degraded},
		{ID: 2, Type: api.ChangeIncidentOpened, Service: "a", Time: now, Incident: &many[0]},
	}
	surfaceHistory := &ServiceHistory{LastChecked: now, LastStatus: api.Operational,
		Surfaces: map[catalog.SurfaceID]*ServiceHistory{"app": {Incidents: many[:2]}, "agent": {}}}
	for name, lists := range map[string][]api.Incident{"none": nil, "empty": {}, "one": many[:1], "many": many} {
		t.Run(name, func(t *testing.T) {
			h := &History{Version: HistoryVersion, UpdatedAt: now, Incidents: lists,
				Services: map[string]*ServiceHistory{"a": surfaceHistory, "b": {LastChecked: now}}}
			if len(lists) > 1 {
				h.Changes, h.ChangesSince, h.NextChangeID = changes, now.Add(-time.Hour), 3
			}
			list := api.IncidentList{Incidents: lists, Timestamp: now, License: api.License}
			doc := api.ServiceDoc{Slug: "a", Incidents: lists, Components: []api.Component{}, Timestamp: now, License: api.License,
				Surfaces: []api.SurfaceDoc{{ID: catalog.SurfaceAPI, Incidents: lists}, {ID: "app", Incidents: many[3:5]}, {ID: "agent"}}}
			other := doc
			other.Surfaces = []api.SurfaceDoc{{ID: catalog.SurfaceAPI, Incidents: many[5:7]}}
			alone := doc
			alone.Surfaces = nil
			for what, tc := range map[string]struct {
				v     any
				write func(*bytes.Buffer) error
			}{
				"history":                   {h, func(b *bytes.Buffer) error { return WriteHistory(b, h) }},
				"incident list":             {list, func(b *bytes.Buffer) error { return WriteIncidentList(b, list) }},
				"service":                   {doc, func(b *bytes.Buffer) error { return WriteServiceDoc(b, doc) }},
				"service, own API list":     {other, func(b *bytes.Buffer) error { return WriteServiceDoc(b, other) }},
				"service, with no surfaces": {alone, func(b *bytes.Buffer) error { return WriteServiceDoc(b, alone) }},
			} {
				var got bytes.Buffer
				if err := tc.write(&got); err != nil {
					t.Fatal(err)
				}
				if want := marshalLine(t, tc.v); !bytes.Equal(got.Bytes(), want) {
					t.Errorf("%s differs from encoding/json's at byte %s", what, firstDiff(got.Bytes(), want))
				}
			}
			var got, want bytes.Buffer
			if err := WriteNDJSON(&got, lists); err != nil {
				t.Fatal(err)
			}
			enc := json.NewEncoder(&want)
			for _, inc := range lists {
				if err := enc.Encode(inc); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("NDJSON differs from json.Encoder's at byte %s", firstDiff(got.Bytes(), want.Bytes()))
			}
		})
	}
}

// firstDiff says where a and b first differ, with the bytes around it.
func firstDiff(a, b []byte) string {
	i := 0
	for i < min(len(a), len(b)) && a[i] == b[i] {
		i++
	}
	start := max(i-40, 0)
	return fmt.Sprintf("%d:\n got …%s\nwant …%s", i, a[start:min(i+40, len(a))], b[start:min(i+40, len(b))])
}

// TestAppendStringEveryByte: a string with any one ASCII byte in it is
// written as encoding/json writes it.
func TestAppendStringEveryByte(t *testing.T) {
	t.Parallel()
	for c := range 0x80 {
		s := "a" + string(rune(c)) + "b"
		if got, want := appendString(nil, s), must(json.Marshal(s)); !bytes.Equal(got, want) {
			t.Errorf("byte %#x: got %s, want %s", c, got, want)
		}
	}
}
