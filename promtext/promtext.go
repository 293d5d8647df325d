// Package promtext writes the Prometheus text exposition (format 0.0.4,
// which OpenMetrics parsers read too) through the ecosystem's own encoder,
// prometheus/common's expfmt: the built /metrics and the families the thin
// server appends live are escaped and formatted one way, by the library
// Prometheus itself reads them with, not by hand.
package promtext

import (
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// Writer writes families one after another, each with the samples added
// after it, in the order given (expfmt sorts nothing). A family with no
// sample is left out: the exposition has no empty families. The first
// error sticks, and Close returns it.
type Writer struct {
	out    io.Writer
	family *dto.MetricFamily
	err    error
}

// NewWriter writes to out.
func NewWriter(out io.Writer) *Writer { return &Writer{out: out} }

// Family ends the family before and starts the gauge name, whose HELP
// says where its values come from. Every family aistatus writes is a
// gauge: a snapshot's figures, not counts since a start.
func (w *Writer) Family(name, help string) {
	w.flush()
	w.family = &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_GAUGE.Enum()}
}

// Sample adds one sample to the current family; labels are name, value
// pairs, in the order they are written.
func (w *Writer) Sample(value float64, labels ...string) {
	m := &dto.Metric{}
	for i := 0; i+1 < len(labels); i += 2 {
		m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(labels[i]), Value: proto.String(labels[i+1])})
	}
	m.Gauge = &dto.Gauge{Value: proto.Float64(value)}
	w.family.Metric = append(w.family.Metric, m)
}

// Close writes the last family and returns the first error.
func (w *Writer) Close() error {
	w.flush()
	return w.err
}

func (w *Writer) flush() {
	if w.family != nil && len(w.family.Metric) > 0 && w.err == nil {
		_, w.err = expfmt.MetricFamilyToText(w.out, w.family)
	}
	w.family = nil
}

// Bool is a sample's value for a yes or no: 1 or 0.
func Bool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
