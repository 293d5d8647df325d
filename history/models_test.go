package history

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

func TestBestModelStatus(t *testing.T) {
	t.Parallel()
	at := func(service string, st api.Status) api.ModelProvider {
		return api.ModelProvider{Service: service, Status: st}
	}
	entries := []api.ModelProvider{at("a", api.PartialOutage), at("a", api.Unknown), at("b", api.Operational), at("c", api.Unknown)}
	for _, tc := range []struct {
		service string
		want    api.Status
	}{
		{"", api.Operational}, {"a", api.PartialOutage}, {"b", api.Operational}, {"c", api.Unknown}, {"d", api.Unknown},
	} {
		if got := BestModelStatus(entries, tc.service); got != tc.want {
			t.Errorf("BestModelStatus(%q) = %s, want %s", tc.service, got, tc.want)
		}
	}
}

// TestReadsTook: a new version replaces what was kept and takes its
// validators; a 304 moves ReadAt only; a failure moves CheckedAt only; a
// suspect read is remembered and replaces nothing; a good read forgets it.
func TestReadsTook(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	suspect := &SuspectList{Since: t0, Fingerprint: "f", Why: "it lacks most"}
	var r Reads
	if !r.Took(t0, false, nil, false, `"v1"`, "Mon") || r.ReadAt != t0 || r.ETag != `"v1"` || r.LastModified != "Mon" {
		t.Fatalf("a new version: %+v", r)
	}
	t1 := t0.Add(time.Hour)
	if r.Took(t1, true, nil, false, "", "") || r.CheckedAt != t1 || r.ReadAt != t0 || r.ETag != `"v1"` {
		t.Errorf("a failed read: %+v", r)
	}
	t2 := t1.Add(time.Hour)
	if r.Took(t2, true, suspect, false, `"v2"`, "") || r.Suspect != suspect || r.ReadAt != t0 || r.ETag != `"v1"` {
		t.Errorf("a suspect read: %+v", r)
	}
	t3 := t2.Add(time.Hour)
	if r.Took(t3, false, nil, true, "", "") || r.ReadAt != t3 || r.Suspect != nil || r.ETag != `"v1"` {
		t.Errorf("a 304: %+v", r)
	}
}
