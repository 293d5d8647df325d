package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Manifest describes one generated snapshot. The server reads it to know the
// snapshot's age and when its data should be called stale.
type Manifest struct {
	GeneratedAt time.Time `json:"generatedAt"`
	// StaleAfterSeconds: past this age the data is reported as stale.
	StaleAfterSeconds int    `json:"staleAfterSeconds"`
	BaseURL           string `json:"baseUrl"`
	Generator         string `json:"generator"`
	Services          int    `json:"services"`
	// Generation identifies the set of files below: a hash over their
	// paths, sizes and hashes, so two builds with the same content share it
	// and a replica can tell, from the manifest alone, whether it already
	// holds this set.
	Generation string `json:"generation,omitempty"`
	// Files lists every other file of the snapshot, sorted by path, so that
	// a replica reading the snapshot over HTTP can fetch the whole set and
	// prove each file belongs to this generation before serving any of it.
	Files []ManifestFile `json:"files,omitempty"`
}

// ManifestFile is one file of a snapshot, as the manifest lists it.
type ManifestFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Sealer passes files on to a Sink and lists each with its size and hash,
// for the manifest, so that no file need be held to be listed.
type Sealer struct {
	out   Sink
	files []ManifestFile
}

// NewSealer lists the files put through it into out.
func NewSealer(out Sink) *Sealer { return &Sealer{out: out} }

// Put lists the file and passes it on.
func (s *Sealer) Put(name string, data []byte) error {
	return s.Stream(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Stream lists the file, hashed as it is written, and passes it on.
func (s *Sealer) Stream(name string, write func(io.Writer) error) error {
	sum := sha256.New()
	var size countWriter
	err := s.out.Stream(name, func(w io.Writer) error { return write(io.MultiWriter(w, sum, &size)) })
	if err != nil {
		return err
	}
	if name != FileManifest {
		s.files = append(s.files, ManifestFile{Path: name, Size: int64(size), SHA256: hex.EncodeToString(sum.Sum(nil))})
	}
	return nil
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// Seal lists the files put so far (the manifest itself excluded) in m and
// sets its generation. It is called once every file is rendered: any file
// put after it is not listed.
func (s *Sealer) Seal(m *Manifest) {
	m.Files = slices.Clone(s.files)
	slices.SortFunc(m.Files, func(a, b ManifestFile) int { return strings.Compare(a.Path, b.Path) })
	m.Generation = GenerationOf(m.Files)
}

// GenerationOf is the generation id of a file list: the first 16 bytes, in
// hex, of the SHA-256 of one "path size sha256" line per file, in order.
func GenerationOf(files []ManifestFile) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %d %s\n", f.Path, f.Size, f.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// CheckFiles reports whether the file list is one a reader can trust to
// name files inside the snapshot: sorted unique relative paths, sizes not
// negative, well-formed hashes, and the generation that matches them. A
// manifest whose list was cut or edited fails here, before anything is fetched.
func (m Manifest) CheckFiles() error {
	if len(m.Files) == 0 || m.Generation == "" {
		return fmt.Errorf("%s lists no files (written by a generator older than the file list?)", FileManifest)
	}
	for i, f := range m.Files {
		if !fs.ValidPath(f.Path) || f.Path == "." || f.Path == FileManifest || strings.Contains(f.Path, "\\") {
			return fmt.Errorf("%s: %q is not a snapshot path", FileManifest, f.Path)
		}
		if i > 0 && m.Files[i-1].Path >= f.Path {
			return fmt.Errorf("%s: files not sorted or %q listed twice", FileManifest, f.Path)
		}
		if f.Size < 0 {
			return fmt.Errorf("%s: %s has a negative size", FileManifest, f.Path)
		}
		if b, err := hex.DecodeString(f.SHA256); err != nil || len(b) != sha256.Size {
			return fmt.Errorf("%s: %s has a malformed sha256", FileManifest, f.Path)
		}
	}
	if got := GenerationOf(m.Files); got != m.Generation {
		return fmt.Errorf("%s: generation %s does not match its file list (%s)", FileManifest, m.Generation, got)
	}
	return nil
}

// Stale reports whether a snapshot generated at m.GeneratedAt is stale at now.
func (m Manifest) Stale(now time.Time) bool {
	return now.Sub(m.GeneratedAt) > time.Duration(m.StaleAfterSeconds)*time.Second
}
