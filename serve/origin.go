package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// OriginOptions configure an Origin. Every dependency is passed in.
type OriginOptions struct {
	// URL is the published site: snapshot.json and every file it lists are
	// fetched relative to it (https://owner.github.io/repo/, a CDN, or
	// another aistatus instance).
	URL string
	// Client makes the requests. Its redirect policy is replaced: only
	// redirects to the same scheme and host are followed.
	Client *http.Client
	// Poll is the time between two looks at the manifest.
	Poll time.Duration
	Log  zerolog.Logger
	Now  func() time.Time
	// MaxManifestBytes, MaxFileBytes and MaxTotalBytes cap what one sync may
	// read; 0 means the defaults below.
	MaxManifestBytes, MaxFileBytes, MaxTotalBytes int64
	// Concurrency bounds the files fetched at once; 0 means 4.
	Concurrency int
	// Timeout bounds one whole sync (manifest and files); 0 means 2 minutes.
	Timeout time.Duration
}

// DefaultMaxTotalBytes is the default cap on a replica's set, the files it
// fetches for one snapshot in all (serve --origin --max-set-bytes). The
// memory a replica needs follows from it: see docs/operations.md.
const DefaultMaxTotalBytes = 512 << 20

// The default caps sit far above a real snapshot (about 200 files, a few MB
// in all; at the retention cap, about 150 MiB, incidents.json at 33 MB the
// largest file) yet keep a misconfigured or hostile origin from filling the
// replica's memory.
const (
	defaultMaxManifestBytes = 4 << 20
	defaultMaxFileBytes     = 64 << 20
	maxOriginRedirects      = 3
	// maxConditionalPolls: after this many conditional polls in a row the
	// manifest is fetched in full. A validator can lie — a host whose file
	// times went backwards (a restore, a clock fixed) answers 304 to a new
	// manifest — and this bounds how long a replica can be fooled.
	maxConditionalPolls = 10
	// olderPollsToFollow: a manifest older than the set being served is
	// taken when this many polls in a row offered older ones (see Sync).
	olderPollsToFollow = 3
)

// Origin keeps a Store in step with a snapshot published over HTTP: it polls
// the manifest with conditional requests and, when it changes, fetches the
// whole set of files, verifies each against the manifest and swaps the set
// in only when it is complete. Anything less keeps the snapshot being served.
type Origin struct {
	opts   OriginOptions
	base   *url.URL
	client *http.Client
	source *sourceTracker
	// The validators of the manifest whose set is being served; only the
	// polling goroutine uses them (Run, or Sync in tests).
	etag, lastModified string
	// conditional counts the conditional polls since the last full one.
	conditional int
	// older counts the polls in a row whose manifest was older than the set
	// being served.
	older   int
	syncing sync.Mutex
}

// NewOrigin checks the origin's URL and returns an Origin for it.
func NewOrigin(opts OriginOptions) (*Origin, error) {
	base, err := url.Parse(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("origin: %w", err)
	}
	if (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("origin: %q is not an http(s) URL", opts.URL)
	}
	if base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("origin: %q: give the site's address without a query or fragment", opts.URL)
	}
	// The files are relative to the site: without the slash, url resolution
	// would drop a project site's last segment (…/repo → …/status.json).
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Poll <= 0 {
		opts.Poll = 30 * time.Second
	}
	if opts.MaxManifestBytes <= 0 {
		opts.MaxManifestBytes = defaultMaxManifestBytes
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = defaultMaxFileBytes
	}
	if opts.MaxTotalBytes <= 0 {
		opts.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	client := opts.Client
	if client == nil {
		client = outbound.NewClient(outbound.Options{AllowedURLs: []string{opts.URL}})
	}
	c := *client
	// The origin is configuration, but a redirect is the host speaking: it
	// may move the site within itself (a trailing slash, a custom path), never
	// send the replica to another host, or from https to http.
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxOriginRedirects {
			return fmt.Errorf("stopped after %d redirects", maxOriginRedirects)
		}
		if req.URL.Scheme != base.Scheme || req.URL.Host != base.Host {
			return fmt.Errorf("refusing a redirect to another host: %s", req.URL.Redacted())
		}
		return nil
	}
	return &Origin{opts: opts, base: base, client: &c, source: newSourceTracker("origin", base.Redacted())}, nil
}

// Health reports the origin's polls, for /healthz and /readyz.
func (o *Origin) Health() SourceHealth { return o.source.health(o.opts.Now()) }

// Run syncs st with the origin every Poll until ctx ends. A failed sync is
// logged and retried at the next poll; the store keeps its snapshot.
func (o *Origin) Run(ctx context.Context, st *Store) {
	t := time.NewTicker(o.opts.Poll)
	defer t.Stop()
	for {
		swapped, err := o.Sync(ctx, st)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			ev := o.opts.Log.Error().Err(err).Str("origin", o.base.Redacted())
			if cur := st.Current(); cur != nil {
				age, _ := cur.Age(o.opts.Now())
				ev = ev.Time("servingGeneratedAt", cur.Manifest.GeneratedAt).Dur("servingAge", age)
			}
			ev.Msg("origin sync failed; serving the previous snapshot, retrying at the next poll")
		case swapped:
			m := st.Current().Manifest
			o.opts.Log.Info().Time("generatedAt", m.GeneratedAt).Str("generation", m.Generation).
				Int("files", len(m.Files)).Msg("snapshot loaded from the origin")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sync looks at the origin's manifest once and, when it names another set
// of files than the one served, fetches, verifies and swaps it in. It
// reports whether it swapped.
//
// The origin is the truth, and the replica follows what it publishes now;
// the origin's clock is not. Ordering sets by their generatedAt alone let
// one set dated ahead (a generator whose clock ran fast, a restored backup)
// freeze every replica: each genuine set after it looked older and was
// refused until the real clock caught up, in 2030 for a set dated 2030. So:
//
//   - A set dated more than history.MaxClockSkew ahead of the replica's
//     clock is refused: its time is impossible, and its data must not be
//     presented as current. The set served stays, and turns stale by its
//     own age if nothing better comes.
//   - A set dated at or after the one served is taken.
//   - A set older than the one served is either a cache answering with a
//     copy it kept (a CDN edge behind the others) or what the origin now
//     publishes (an operator's rollback, or a set after one dated ahead
//     within the allowance). A cache behind answers between answers of the
//     current set, and going back on each would make the replica flap; the
//     origin's own answer is the same on every poll. An older set is
//     therefore taken on the olderPollsToFollow-th poll in a row that
//     offers one (any confirmation of the set served starts the count
//     again), or at once when the set served is itself dated beyond the
//     allowance (this clock was set back since it was taken).
//
// A set dated up to the allowance ahead thus holds the genuine sets after
// it back for olderPollsToFollow-1 polls at most, not until its time comes.
func (o *Origin) Sync(ctx context.Context, st *Store) (swapped bool, err error) {
	o.syncing.Lock()
	defer o.syncing.Unlock()
	ctx, cancel := context.WithTimeout(ctx, o.opts.Timeout)
	defer cancel()
	defer func() { o.source.polled(o.opts.Now(), swapped, err) }()

	cur := st.Current()
	req, err := o.request(ctx, snapshot.FileManifest)
	if err != nil {
		return false, err
	}
	if o.conditional++; cur != nil && o.conditional <= maxConditionalPolls {
		// Only the manifest of the set being served is revalidated: after a
		// failed sync no validator is kept, so the next poll fetches it again.
		if o.etag != "" {
			req.Header.Set("If-None-Match", o.etag)
		}
		if o.lastModified != "" {
			req.Header.Set("If-Modified-Since", o.lastModified)
		}
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified && cur != nil {
		o.older = 0
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("GET %s: HTTP %s", snapshot.FileManifest, resp.Status)
	}
	o.conditional = 0
	manifestData, err := readCapped(resp.Body, o.opts.MaxManifestBytes)
	if err != nil {
		return false, fmt.Errorf("GET %s: %w", snapshot.FileManifest, err)
	}
	var m snapshot.Manifest
	if err := json.Unmarshal(manifestData, &m); err != nil {
		return false, fmt.Errorf("%s: %w", snapshot.FileManifest, err)
	}
	if err := m.CheckFiles(); err != nil {
		return false, err
	}
	etag, lastModified := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	now := o.opts.Now()
	if futureBeyondSkew(m.GeneratedAt, now) {
		return false, fmt.Errorf("origin offers generation %s of %s, %s ahead of this replica's clock (%s): the generator's clock or this one is wrong; not served as current",
			m.Generation, m.GeneratedAt.Format(time.RFC3339), m.GeneratedAt.Sub(now).Round(time.Second), now.Format(time.RFC3339))
	}
	if cur != nil {
		switch held := cur.Manifest; {
		case m.Generation == held.Generation:
			o.older = 0
			o.etag, o.lastModified = etag, lastModified
			return false, nil
		case !m.GeneratedAt.Before(held.GeneratedAt):
		case futureBeyondSkew(held.GeneratedAt, now):
			o.opts.Log.Warn().Time("generatedAt", held.GeneratedAt).Str("generation", held.Generation).
				Msg("the snapshot served is dated beyond the clock-skew allowance: taking the origin's older one")
		default:
			if o.older++; o.older < olderPollsToFollow {
				return false, fmt.Errorf("origin offers generation %s of %s, older than the one served (%s): a cache behind, or a rollback followed after %d such polls in a row (%d so far)",
					m.Generation, m.GeneratedAt.Format(time.RFC3339), held.GeneratedAt.Format(time.RFC3339), olderPollsToFollow, o.older)
			}
			o.opts.Log.Warn().Time("generatedAt", m.GeneratedAt).Time("servingGeneratedAt", held.GeneratedAt).
				Int("polls", o.older).Msg("the origin has offered older snapshots poll after poll: following it back")
		}
	}
	files, err := o.fetchSet(ctx, m, cur)
	if err != nil {
		return false, fmt.Errorf("generation %s: %w", m.Generation, err)
	}
	next, err := snapshotFromFiles(m, manifestData, files)
	if err != nil {
		return false, fmt.Errorf("generation %s: %w", m.Generation, err)
	}
	st.reloading.Lock()
	st.set(next)
	st.reloading.Unlock()
	o.etag, o.lastModified = etag, lastModified
	o.older = 0
	return true, nil
}

// servedFromOrigin tells the files a replica fetches: those it serves. The
// history (large, the generator's state) and the static hosts' rule files
// are listed but not needed.
func servedFromOrigin(name string) bool {
	if notServed(name) {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if strings.HasPrefix(seg, ".") && seg != wellKnown {
			return false
		}
	}
	return true
}

// fetchSet fetches every file of m the replica serves, a few at a time,
// and verifies each one's size and hash. A file whose hash equals the one
// being served under the same path is taken from memory instead. The first
// failure cancels the rest: one bad file spoils the whole set.
func (o *Origin) fetchSet(ctx context.Context, m snapshot.Manifest, cur *Snapshot) (map[string][]byte, error) {
	var want []snapshot.ManifestFile
	var total int64
	files := map[string][]byte{}
	served := map[string]string{}
	if cur != nil {
		for _, f := range cur.Manifest.Files {
			served[f.Path] = f.SHA256
		}
	}
	for _, f := range m.Files {
		if !servedFromOrigin(f.Path) {
			continue
		}
		if f.Size > o.opts.MaxFileBytes {
			return nil, fmt.Errorf("%s: %d bytes, over the cap of %d", f.Path, f.Size, o.opts.MaxFileBytes)
		}
		if total += f.Size; total > o.opts.MaxTotalBytes {
			return nil, fmt.Errorf("the set is over the cap of %d bytes", o.opts.MaxTotalBytes)
		}
		if served[f.Path] == f.SHA256 {
			if rep := cur.files[f.Path]; rep != nil && rep.body != nil {
				files[f.Path] = rep.body
				continue
			}
		}
		want = append(want, f)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		jobs = make(chan snapshot.ManifestFile)
	)
	for range min(o.opts.Concurrency, len(want)) {
		wg.Go(func() {
			for f := range jobs {
				data, err := o.fetchFile(ctx, f)
				if err != nil {
					cancel(fmt.Errorf("%s: %w", f.Path, err))
					continue
				}
				mu.Lock()
				files[f.Path] = data
				mu.Unlock()
			}
		})
	}
send:
	for _, f := range want {
		select {
		case jobs <- f:
		case <-ctx.Done():
			break send
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return files, nil
}

// fetchFile fetches one file and checks it is exactly the one listed: a
// file of another generation (a CDN edge behind, a publish in progress) or
// cut short differs in size or hash.
func (o *Origin) fetchFile(ctx context.Context, f snapshot.ManifestFile) ([]byte, error) {
	req, err := o.request(ctx, f.Path)
	if err != nil {
		return nil, err
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	if resp.ContentLength > f.Size {
		return nil, fmt.Errorf("%d bytes announced, %d listed", resp.ContentLength, f.Size)
	}
	// Never read more than the manifest promised, plus one byte to notice,
	// into a buffer of that size (the caps bound it): io.ReadAll grows its
	// buffer step by step, and its garbage made up a third of what a swap
	// allocated at full retention (BenchmarkOriginSwapMemory).
	data := make([]byte, f.Size+1)
	n, err := io.ReadFull(resp.Body, data)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	if data = data[:n]; int64(len(data)) != f.Size {
		return nil, fmt.Errorf("%d bytes or more received, %d listed: not the generation of the manifest", len(data), f.Size)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.SHA256 {
		return nil, fmt.Errorf("sha256 %x, %s listed: not the generation of the manifest", sum, f.SHA256)
	}
	return data, nil
}

// request is a GET of one file of the site.
func (o *Origin) request(ctx context.Context, name string) (*http.Request, error) {
	u := o.base.JoinPath(name)
	return http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
}

// readCapped reads all of r, failing beyond limit bytes.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("body over the cap of %d bytes", limit)
	}
	return data, nil
}

// snapshotFromFiles builds a Snapshot from a verified set of files, as Load
// does from a folder.
func snapshotFromFiles(m snapshot.Manifest, manifestData []byte, files map[string][]byte) (*Snapshot, error) {
	s := &Snapshot{Manifest: m, files: map[string]*representation{}, status: map[string]api.ServiceSummary{}}
	s.files[snapshot.FileManifest] = newRepresentation(manifestData, snapshot.ContentTypeOf(snapshot.FileManifest))
	for name, data := range files {
		s.files[name] = newRepresentation(data, snapshot.ContentTypeOf(name))
	}
	if err := s.parse(); err != nil {
		return nil, err
	}
	// A replica fetches no history: its change log is changes.json's.
	if err := s.loadChanges(); err != nil {
		return nil, err
	}
	return s, nil
}
