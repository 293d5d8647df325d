package snapshot

import (
	"testing"
)

func TestServiceFile(t *testing.T) {
	t.Parallel()
	if got, want := ServiceFile("openai"), "services/openai.json"; got != want {
		t.Errorf("ServiceFile(openai) = %q, want %q", got, want)
	}
}
