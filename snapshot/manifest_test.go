package snapshot

import (
	"strings"
	"testing"
	"time"
)

// TestManifestCheckFiles checks that a sealed manifest passes and that each
// way of tampering with its list is caught before a reader fetches anything.
func TestManifestCheckFiles(t *testing.T) {
	t.Parallel()
	sealed := func() Manifest {
		var m Manifest
		s := NewSealer(Files{})
		for _, f := range []struct{ name, data string }{{FileStatus, "{}\n"}, {ServiceFile("openai"), `{"a":1}` + "\n"}, {FileManifest, "ignored"}} {
			if err := s.Put(f.name, []byte(f.data)); err != nil {
				t.Fatal(err)
			}
		}
		s.Seal(&m)
		return m
	}
	if m := sealed(); m.CheckFiles() != nil || len(m.Files) != 2 || m.Files[1].Path != FileStatus {
		t.Fatalf("sealed manifest: %v, files %+v", m.CheckFiles(), m.Files)
	}
	for name, tc := range map[string]struct {
		edit func(*Manifest)
		want string
	}{
		"no list":        {func(m *Manifest) { m.Files, m.Generation = nil, "" }, "lists no files"},
		"size edited":    {func(m *Manifest) { m.Files[0].Size++ }, "does not match"},
		"file dropped":   {func(m *Manifest) { m.Files = m.Files[1:] }, "does not match"},
		"escaping path":  {func(m *Manifest) { m.Files[0].Path = "../etc/passwd" }, "not a snapshot path"},
		"absolute path":  {func(m *Manifest) { m.Files[0].Path = "/status.json" }, "not a snapshot path"},
		"the manifest":   {func(m *Manifest) { m.Files[1].Path = FileManifest }, "not a snapshot path"},
		"duplicate":      {func(m *Manifest) { m.Files[1] = m.Files[0] }, "listed twice"},
		"malformed hash": {func(m *Manifest) { m.Files[0].SHA256 = "xyz" }, "malformed"},
		"negative size":  {func(m *Manifest) { m.Files[0].Size = -1 }, "negative"},
	} {
		m := sealed()
		tc.edit(&m)
		if err := m.CheckFiles(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
}

func TestManifestStale(t *testing.T) {
	t.Parallel()
	gen := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	m := Manifest{GeneratedAt: gen, StaleAfterSeconds: 600}
	tests := []struct {
		name string
		now  time.Time
		want bool
	}{
		{"just generated", gen, false},
		{"clock behind generation", gen.Add(-time.Minute), false},
		{"one second before the limit", gen.Add(599 * time.Second), false},
		{"exactly at the limit", gen.Add(600 * time.Second), false},
		{"one nanosecond past the limit", gen.Add(600*time.Second + 1), true},
		{"an hour later", gen.Add(time.Hour), true},
		{"other time zone, same instant past the limit", gen.Add(11 * time.Minute).In(time.FixedZone("X", 5*3600)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.Stale(tt.now); got != tt.want {
				t.Errorf("Stale(%v) = %v, want %v", tt.now, got, tt.want)
			}
		})
	}
	t.Run("zero StaleAfterSeconds", func(t *testing.T) {
		z := Manifest{GeneratedAt: gen}
		if z.Stale(gen) {
			t.Error("stale at generation time")
		}
		if !z.Stale(gen.Add(time.Second)) {
			t.Error("not stale one second after generation with StaleAfterSeconds 0")
		}
	})
}
