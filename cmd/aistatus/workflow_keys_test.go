package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aistatus/aistatus/catalog"
	"go.yaml.in/yaml/v3"
)

// TestSnapshotWorkflowPassesCompletionKeys: the scheduled build gets every
// key variable the catalog names, each from the repository secret of the
// same name (empty when the secret does not exist: nothing is sent), and
// no other step gets any of them.
func TestSnapshotWorkflowPassesCompletionKeys(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "snapshot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Env   map[string]string `yaml:"env"`
			Steps []struct {
				ID  string            `yaml:"id"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, svc := range cat.Services {
		if svc.Completion != nil {
			names[svc.Completion.KeyEnv] = true
		}
	}
	if len(names) == 0 {
		t.Fatal("the catalog names no key variable")
	}
	for name := range names {
		if _, ok := wf.Env[name]; ok {
			t.Errorf("%s is set for the whole workflow: it belongs to the build step alone", name)
		}
	}
	found := false
	for job, j := range wf.Jobs {
		for name := range names {
			if _, ok := j.Env[name]; ok {
				t.Errorf("job %s: %s is set for the whole job", job, name)
			}
		}
		for _, s := range j.Steps {
			for name := range names {
				v, ok := s.Env[name]
				switch {
				case job == "build" && s.ID == "build":
					found = true
					if want := "${{ secrets." + name + " }}"; v != want {
						t.Errorf("build step: %s = %q, want %q", name, v, want)
					}
				case ok:
					t.Errorf("job %s step %q gets %s", job, s.ID, name)
				}
			}
		}
	}
	if !found {
		t.Fatal("no build step with id build in job build")
	}
}
