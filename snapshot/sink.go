package snapshot

import (
	"bytes"
	"fmt"
	"io"

	"github.com/aistatus/aistatus/api"
)

// Sink receives a snapshot's files as they are rendered: a Staging folder
// (a build), or Files in memory.
type Sink interface {
	// Put takes one file, a slash-separated path relative to the snapshot;
	// a name may be put once.
	Put(name string, data []byte) error
	// Stream takes one file as write produces it, so that a large one is
	// never held whole.
	Stream(name string, write func(io.Writer) error) error
}

// Files is a snapshot in memory, path → content.
type Files map[string][]byte

// Put adds a file.
func (f Files) Put(name string, data []byte) error {
	if _, taken := f[name]; taken {
		return fmt.Errorf("render: %s is written twice", name)
	}
	f[name] = data
	return nil
}

// Stream adds a file as write produces it.
func (f Files) Stream(name string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	return f.Put(name, buf.Bytes())
}

// Documents are the API documents of one snapshot before they are encoded:
// the generator writes them as files, and the human page, badges, feeds and
// llms.txt are rendered from the same values, so they cannot disagree.
type Documents struct {
	Manifest Manifest
	Status   api.StatusDoc
	// Services are the detail documents, in catalog order.
	Services  []api.ServiceDoc
	Incidents api.IncidentList
	Sources   api.SourcesDoc
	// Models are the watched models (models.json); each model's own
	// document adds its incidents (ModelDocument).
	Models api.ModelsDoc
	// Retirements are the models' retirement calendar.
	Retirements api.RetirementsDoc

	Reliability api.ReliabilityDoc
	// Situation is every subject's status, read from the documents above
	// (history.Situation); the pages, /metrics and the façade read their
	// statuses from it.
	Situation api.Situation
}
