// Package modelstest holds the models' test helpers. It imports nothing of
// this module, so that the tests of models, of build and of the CLI share
// it (buildtest imports models, so models' own tests cannot use that).
package modelstest

import (
	"encoding/json"
	"os"
	"testing"
)

// SplitFixture is OpenRouter's endpoints document of a model served at
// Anthropic, Bedrock, Google in us-east5, Google in europe and an
// untracked host, from the repository's root (build/feed/testdata has its
// provenance); a test joins it to its own way up to the root.
const SplitFixture = "build/feed/testdata/openrouter-split.json"

// SplitWith is the endpoints document at path (SplitFixture's form) with
// its endpoints replaced by n: the i-th is the document's (i mod its
// count)-th passed through edit, when edit is not nil.
func SplitWith(t testing.TB, path string, n int, edit func(i int, ep map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	base := doc.Data["endpoints"].([]any)
	eps := make([]map[string]any, n)
	for i := range eps {
		one, _ := json.Marshal(base[i%len(base)])
		if err := json.Unmarshal(one, &eps[i]); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(i, eps[i])
		}
	}
	doc.Data["endpoints"] = eps
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
