package build

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// countingServer serves a calm Statuspage summary and counts its requests.
type countingServer struct {
	*httptest.Server
	hits atomic.Int32
}

func newCountingServer(t *testing.T, tls bool) *countingServer {
	s := &countingServer{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fetchCalmSummary)
	})
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	if tls {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s
}

// trust makes client accept the TLS test server's certificate.
func trust(client *http.Client, srv *httptest.Server) {
	pool := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	client.Transport.(interface{ Unwrap() http.RoundTripper }).Unwrap().(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: pool}
}

// withPort is rawURL's host with port.
func withPort(t *testing.T, host, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Scheme + "://" + host + ":" + u.Port()
}

// TestRedirectPolicy: a feed's redirect is outside input; it may not send
// the generator to an internal address the catalog does not name, nor from
// https down to http.
func TestRedirectPolicy(t *testing.T) {
	origin := newCountingServer(t, false)   // the catalog's feed host
	tlsOrigin := newCountingServer(t, true) // the catalog's feed host, over https
	listed := newCountingServer(t, false)   // another host the catalog names
	unlisted := newCountingServer(t, false) // a loopback port the catalog does not name
	allowed := []string{origin.URL, tlsOrigin.URL, listed.URL + "/v1/models"}

	tests := []struct {
		name    string
		from    *countingServer
		to      string // redirect target; "" reads from directly
		target  *countingServer
		wantErr string // "" for a successful read
	}{
		{"redirect to a catalog host on loopback", origin, listed.URL + "/api/v2/summary.json", listed, ""},
		{"redirect to another loopback port", origin, unlisted.URL + "/api/v2/summary.json", unlisted, "loopback address not in the catalog"},
		{"redirect to a name that resolves to loopback", origin, withPort(t, "localhost", unlisted.URL) + "/x", unlisted, "internal address not in the catalog"},
		{"redirect to cloud metadata", origin, "http://169.254.169.254/latest/meta-data/", nil, "link-local address not in the catalog"},
		{"redirect to a private address", origin, "http://10.1.2.3/", nil, "private address not in the catalog"},
		{"redirect to an IPv6 unique local address", origin, "http://[fd00::1]:8080/", nil, "private address not in the catalog"},
		{"redirect to an IPv4-mapped loopback", origin, "http://[::ffff:127.0.0.1]:9/", nil, "loopback address not in the catalog"},
		{"redirect to the unspecified address", origin, "http://0.0.0.0:" + mustPort(t, unlisted.URL) + "/", unlisted, "unspecified address not in the catalog"},
		{"https redirect down to http, even to a catalog host", tlsOrigin, listed.URL + "/api/v2/summary.json", listed, "from https to http"},
		{"https redirect to https on the same host", tlsOrigin, tlsOrigin.URL + "/api/v2/summary.json", nil, ""},
		{"a host not in the catalog, asked directly", unlisted, "", nil, "internal address not in the catalog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := NewClient(ClientOptions{AllowedURLs: allowed})
			trust(client, tlsOrigin.Server)
			target := tt.from.URL + "/api/v2/summary.json"
			if tt.to != "" {
				target += "?to=" + url.QueryEscape(tt.to)
			}
			var before int32
			if tt.target != nil {
				before = tt.target.hits.Load()
			}
			svc := snapshot.Service{Slug: "svc", Feed: snapshot.Feed{Format: snapshot.FormatStatuspage, URL: target}}
			res, err := feed.Adapters()[snapshot.FormatStatuspage].Read(context.Background(), feed.Request{Client: client, Service: svc, Now: t0})
			switch {
			case tt.wantErr == "" && (err != nil || res.Status != snapshot.Operational):
				t.Fatalf("read = %+v, %v; want operational", res, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("read error = %v; want one saying %q", err, tt.wantErr)
			}
			if tt.target != nil && tt.wantErr != "" {
				if n := tt.target.hits.Load() - before; n != 0 {
					t.Errorf("the refused target got %d requests", n)
				}
			}
		})
	}
}

func mustPort(t *testing.T, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// TestBuildRefusesFeedRedirectOffCatalog runs the policy through a whole
// build: the service whose feed redirects to an internal host the catalog
// does not name reads as a feed error, and the probe still decides.
func TestBuildRefusesFeedRedirectOffCatalog(t *testing.T) {
	origin := newCountingServer(t, false)
	unlisted := newCountingServer(t, false)
	cat := probeOnlyCatalog(t)
	cat.Services[0].Feed = snapshot.Feed{Format: snapshot.FormatStatuspage,
		URL: origin.URL + "/api/v2/summary.json?to=" + url.QueryEscape(unlisted.URL+"/api/v2/summary.json")}
	out := filepath.Join(t.TempDir(), "public")
	opts := Options{
		Out:      out,
		Site:     Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog:  cat,
		Timeout:  5 * time.Second,
		Client:   NewClient(ClientOptions{AllowedURLs: CatalogURLs(cat)}),
		Now:      (&fakeClock{t: t0}).Now,
		Log:      zerolog.Nop(),
		Adapters: feed.Adapters(),
	}
	res, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, out: out}
	doc := h.service("solo")
	if doc.Sources.Feed.State != snapshot.FeedError || !strings.Contains(doc.Sources.Feed.Error, "not in the catalog") {
		t.Errorf("feed = %+v; want an error refusing the redirect", doc.Sources.Feed)
	}
	if res.Statuses["solo"] != snapshot.Operational || unlisted.hits.Load() != 0 {
		t.Errorf("status %s, %d requests to the unlisted host", res.Statuses["solo"], unlisted.hits.Load())
	}
}

func TestInternalAddresses(t *testing.T) {
	tests := []struct {
		ip   string
		want string
	}{
		{"127.0.0.1", "loopback"},
		{"127.8.9.10", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.0.0.1", "private"},
		{"172.16.5.4", "private"},
		{"192.168.1.1", "private"},
		{"fc00::1", "private"},
		{"fd12:3456::1", "private"},
		{"169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "multicast or broadcast"},
		{"ff02::1", "multicast or broadcast"},
		{"255.255.255.255", "multicast or broadcast"},
		{"100.100.100.200", "shared (carrier-grade NAT)"},
		{"8.8.8.8", ""},
		{"172.32.0.1", ""},
		{"2606:4700::1111", ""},
	}
	for _, tt := range tests {
		if got := internal(netip.MustParseAddr(tt.ip)); got != tt.want {
			t.Errorf("internal(%s) = %q, want %q", tt.ip, got, tt.want)
		}
	}
}
