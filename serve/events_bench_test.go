package serve

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// syntheticChanges is a change log of n entries with consecutive ids, half
// status changes and half incident updates with a headline and a link, the
// mix a busy log holds (about 480 bytes an event, as a 50 000-entry log
// averages).
func syntheticChanges(n int) []api.Change {
	const first = 1793534400000000
	services := []string{"openai", "anthropic", "groq", "mistral", "cohere", "gemini"}
	out := make([]api.Change, n)
	for i := range out {
		c := api.Change{ID: first + int64(i), Service: services[i%len(services)], Time: genTime.Add(time.Duration(i) * time.Second)}
		if i%2 == 0 {
			c.Type, c.OldStatus, c.NewStatus = api.ChangeStatus, api.Operational, api.Degraded
		} else {
			ended := c.Time
			c.Type, c.Changed = api.ChangeIncidentUpdated, []string{"status", "headline"}
			c.Incident = &api.Incident{ID: fmt.Sprintf("%s-%08d", c.Service, i), Service: c.Service,
				Headline: "Elevated error rates on the chat completions API for some customers in the EU region",
				Severity: api.Major, StartedAt: c.Time.Add(-time.Hour), EndedAt: &ended, Status: "resolved",
				Source: api.SourceOfficial, URL: "https://status.example.com/incidents/" + fmt.Sprint(i), UpdatedAt: c.Time}
		}
		out[i] = c
	}
	return out
}

// logSnapshot is a snapshot holding only what the event stream reads: the
// manifest and the change log.
func logSnapshot(changes []api.Change) *Snapshot {
	return &Snapshot{Manifest: snapshot.Manifest{GeneratedAt: genTime, BaseURL: "https://aistatus.example"}, log: changeLog{changes: changes}}
}

// streamSink is the ResponseWriter of one stream run in process: it counts
// what is written (and keeps it, with keep) and ends the request (cancels
// its context) once a frame with the id it waits for has gone out.
type streamSink struct {
	h       http.Header
	n       int
	flushes int
	keep    bool
	data    []byte
	until   []byte
	cancel  context.CancelFunc
}

func (w *streamSink) Header() http.Header { return w.h }
func (w *streamSink) WriteHeader(int)     {}
func (w *streamSink) Flush()              { w.flushes++ }

// SetWriteDeadline is there as on a connection: a writer without it costs
// the stream an error value per write.
func (w *streamSink) SetWriteDeadline(time.Time) error { return nil }
func (w *streamSink) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.keep {
		w.data = append(w.data, p...)
	}
	if bytes.Contains(p, w.until) {
		w.cancel()
	}
	return len(p), nil
}

// catchUp runs one stream through srv's handler, in process, from
// Last-Event-ID from until the frame with id until has gone out, and
// returns its sink.
func catchUp(tb testing.TB, srv *Server, from, until string, keep bool) *streamSink {
	// A stream that never sends that id would run on: the deadline only
	// ends a broken test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, snapshot.PathEvents, nil)
	req.RemoteAddr = "192.0.2.1:1234"
	req.Header.Set("Last-Event-ID", from)
	w := &streamSink{h: http.Header{}, keep: keep, until: []byte("id: " + until + "\n"), cancel: cancel}
	srv.Handler().ServeHTTP(w, req)
	if ctx.Err() == context.DeadlineExceeded {
		tb.Errorf("the stream never sent id %s", until)
	}
	return w
}

// BenchmarkEventCatchUp measures one /events stream sending the changes it
// has not seen: each op is a stream that connects with Last-Event-ID just
// before the newest n changes and is sent them, through the full handler,
// until the newest id has gone out. "shared" streams all read one snapshot,
// as every open stream does after a build; "fresh" gives each stream a
// snapshot of its own, as the first stream to read a new build is.
//
//	go test -run '^$' -bench EventCatchUp -benchmem ./serve
func BenchmarkEventCatchUp(b *testing.B) {
	log := syntheticChanges(history.MaxChanges)
	for _, n := range []int{100, 10_000, history.MaxChanges} {
		for _, shared := range []bool{true, false} {
			name := fmt.Sprintf("changes=%d/fresh", n)
			if shared {
				name = fmt.Sprintf("changes=%d/shared", n)
			}
			b.Run(name, func(b *testing.B) {
				srv := New(Options{Catalog: catalog.Catalog{}, Log: zerolog.Nop(), Now: newTestClock(genTime).Now})
				srv.store.set(logSnapshot(log))
				// The id before the newest n: 0 (every change) for the whole log.
				from := "0"
				if n < len(log) {
					from = fmt.Sprint(log[len(log)-n-1].ID)
				}
				lastID := fmt.Sprint(history.LastChangeID(log))
				var sent int
				b.ReportAllocs()
				for b.Loop() {
					if !shared {
						srv.store.set(logSnapshot(log))
					}
					sent = catchUp(b, srv, from, lastID, false).n
				}
				b.ReportMetric(float64(sent), "bytes-sent/op")
			})
		}
	}
}
