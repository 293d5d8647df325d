package feed

// Surfaces: the parts of a service other than its API that its page lists
// (claude.ai, Claude Code, the console). Each is the same page read through
// another scope, by the same adapter and the same rules as the API, so a
// surface costs no request of its own: the reads of one service share one
// fetch of each document (Memo).

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// SurfaceResult is what one read of a service's page declared for one of
// its surfaces.
type SurfaceResult struct {
	ID catalog.SurfaceID
	// Status is the surface's status; Unknown when Err is set.
	Status    api.Status
	Incidents []api.Incident
	// Components are the page's components in the surface's scope.
	Components []api.Component
	// Tags are the names of the feed's tags in the surface's scope.
	Tags []string
	// Err is why the surface could not be read (the page failed, or
	// nothing on it is in the surface's scope); nil when it was.
	Err error
}

// ReadSurfaces reads each of the service's surfaces (not its API: Read
// does) with the adapter of its format: the service's page through each
// surface's scope, cleaned as Read cleans. Give it the client Read used,
// made with Memo, so that no document is fetched twice. A surface that
// fails is an error in its result, never a failure of the others.
//
// A surface's read sees the page through the surface's scope, and the
// page's other scopes (the API's among them) as the service's surfaces: a
// component one of them selects by id is never this one's by a name.
func ReadSurfaces(ctx context.Context, a Adapter, req Request) []SurfaceResult {
	out := make([]SurfaceResult, 0, len(req.Service.Surfaces))
	for i, sf := range req.Service.Surfaces {
		r := req
		r.Service.Feed.Scope = sf.Scope
		r.Service.Surfaces = slices.Clone(req.Service.Surfaces)
		r.Service.Surfaces[i] = catalog.Surface{ID: catalog.SurfaceAPI, Name: req.Service.Name, Scope: req.Service.Feed.Scope}
		res, _, err := Read(ctx, a, r)
		if err != nil {
			out = append(out, SurfaceResult{ID: sf.ID, Status: api.Unknown, Err: err})
			continue
		}
		var in []api.Component
		for _, c := range res.Components {
			if c.InScope {
				in = append(in, c)
			}
		}
		var tags []string
		for _, tag := range res.Tags {
			if tag.InScope {
				tags = append(tags, tag.Name)
			}
		}
		out = append(out, SurfaceResult{ID: sf.ID, Status: res.Status, Incidents: res.Incidents, Components: in, Tags: tags})
	}
	return out
}

// Memo returns a client that makes each GET of a URL once over client and
// answers every repeat from memory, the failure included: the reads of one
// service's API and surfaces in one cycle share it, so that reading a
// surface costs no request. It is meant for one cycle of one service:
// nothing is ever evicted. A body is kept up to MaxBody+1 bytes, enough
// for fetch to tell an oversized one.
func Memo(client *http.Client) *http.Client {
	if client == nil {
		client = http.DefaultClient
	}
	memo := *client
	memo.Transport = &memoTransport{next: client.Transport, seen: map[string]*memoEntry{}}
	return &memo
}

type memoTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen map[string]*memoEntry
}

// memoEntry is one answer, filled once (once) and then shared.
type memoEntry struct {
	once   sync.Once
	status int
	header http.Header
	body   []byte
	err    error
}

func (t *memoTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	if req.Method != http.MethodGet {
		return next.RoundTrip(req)
	}
	key := req.URL.String() + "\n" + req.Header.Get("Accept")
	t.mu.Lock()
	e, ok := t.seen[key]
	if !ok {
		e = &memoEntry{}
		t.seen[key] = e
	}
	t.mu.Unlock()
	e.once.Do(func() {
		resp, err := next.RoundTrip(req)
		if err != nil {
			e.err = err
			return
		}
		defer resp.Body.Close()
		e.status, e.header = resp.StatusCode, resp.Header
		e.body, e.err = io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	})
	if e.err != nil {
		return nil, e.err
	}
	return &http.Response{
		Status: strconv.Itoa(e.status) + " " + http.StatusText(e.status), StatusCode: e.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: e.header.Clone(), Body: io.NopCloser(bytes.NewReader(e.body)), ContentLength: int64(len(e.body)),
		Request: req,
	}, nil
}
