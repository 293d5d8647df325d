package promtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestRoundTrip: what the writer writes, Prometheus's own parser reads
// back to the same families, labels and values, whatever the label values
// hold; a family without samples is left out.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	hostile := "a \"quoted\" back\\slash\nand a newline"
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Family("aistatus_empty", "No samples: left out.")
	w.Family("aistatus_test_status", "A help text with a \\ and a\nnewline.")
	w.Sample(1, "service", "openai", "name", hostile)
	w.Sample(0.125, "service", "anthropic", "name", "plain")
	w.Family("aistatus_test_timestamp_seconds", "A large figure.")
	w.Sample(1.780272e+09)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("%v in\n%s", err, b.String())
	}
	if _, ok := families["aistatus_empty"]; ok || len(families) != 2 {
		t.Errorf("families %v: want the two with samples", families)
	}
	st := families["aistatus_test_status"]
	if st.GetHelp() != "A help text with a \\ and a\nnewline." || len(st.Metric) != 2 {
		t.Fatalf("status family %v", st)
	}
	if got := st.Metric[0].Label[1].GetValue(); got != hostile || st.Metric[0].GetGauge().GetValue() != 1 {
		t.Errorf("label read back %q, want %q", got, hostile)
	}
	if got := families["aistatus_test_timestamp_seconds"].Metric[0].GetGauge().GetValue(); got != 1.780272e+09 {
		t.Errorf("a large figure read back as %v", got)
	}
}

func TestBool(t *testing.T) {
	t.Parallel()
	if Bool(true) != 1 || Bool(false) != 0 {
		t.Error("Bool is not 1 and 0")
	}
}
