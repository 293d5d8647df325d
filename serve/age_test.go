package serve

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/history"
)

// TestCheckSnapshotFromTheFuture: a snapshot whose generatedAt is ahead of
// the server's clock (a generator with its clock ahead) must not read as a
// negative age that never turns stale.
func TestCheckSnapshotFromTheFuture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		now       time.Time // the server's clock; the snapshot is from genTime
		wantAge   int
		wantStale bool
	}{
		{"a minute old", genTime.Add(time.Minute), 60, false},
		{"16 minutes old", genTime.Add(16 * time.Minute), 960, true},
		{"a minute ahead: clock skew", genTime.Add(-time.Minute), 0, false},
		{"exactly the skew ahead", genTime.Add(-history.MaxClockSkew), 0, false},
		{"an hour ahead", genTime.Add(-time.Hour), 0, true},
		{"a year ahead", genTime.AddDate(-1, 0, 0), 0, true},
	}
	ts := newTestServer(t, 0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts.clock.Set(tt.now)
			doc := checkDoc(t, ts, "anthropic")
			v := doc.Verdict
			if v.DataAgeSeconds == nil || *v.DataAgeSeconds != tt.wantAge || v.Stale != tt.wantStale {
				t.Fatalf("verdict %+v (age %v), want age %d, stale %v", v, deref(v.DataAgeSeconds), tt.wantAge, tt.wantStale)
			}
			if tt.wantStale && v.Level != "stale" {
				t.Errorf("level %q, want stale", v.Level)
			}
		})
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
