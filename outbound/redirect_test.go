package outbound

import (
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// countingServer answers "ok", or redirects to its ?to= parameter (with
// the status of ?code=, 302 without), and counts its requests.
type countingServer struct {
	*httptest.Server
	hits atomic.Int32
}

func newCountingServer(t *testing.T, tls bool) *countingServer {
	s := &countingServer{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if to := r.URL.Query().Get("to"); to != "" {
			code, err := strconv.Atoi(r.URL.Query().Get("code"))
			if err != nil {
				code = http.StatusFound
			}
			http.Redirect(w, r, to, code)
			return
		}
		io.WriteString(w, "ok")
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
	return mustURL(t, rawURL).Scheme + "://" + host + ":" + mustPort(t, rawURL)
}

func mustPort(t *testing.T, rawURL string) string { return mustURL(t, rawURL).Port() }

func mustURL(t *testing.T, rawURL string) *url.URL {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// get GETs rawURL with client and returns the body.
func get(client *http.Client, rawURL string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		return "", err
	}
	return do(client, req)
}

// do sends req with client and returns the body.
func do(client *http.Client, req *http.Request) (string, error) {
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

// TestRedirectPolicy: a redirect is outside input; it may not send the
// program to an internal address that is not allowed (the catalog's hosts,
// for the generator), nor from https down to http.
func TestRedirectPolicy(t *testing.T) {
	t.Parallel()
	origin := newCountingServer(t, false)   // an allowed host, a catalog's feed say
	tlsOrigin := newCountingServer(t, true) // an allowed host, over https
	listed := newCountingServer(t, false)   // another allowed host
	unlisted := newCountingServer(t, false) // a loopback port nobody allowed
	allowed := []string{origin.URL, tlsOrigin.URL, listed.URL + "/v1/models"}

	tests := []struct {
		name    string
		from    *countingServer
		to      string // redirect target; "" reads from directly
		target  *countingServer
		wantErr string // "" for a successful read
	}{
		{"redirect to an allowed host on loopback", origin, listed.URL + "/x", listed, ""},
		{"redirect to another loopback port", origin, unlisted.URL + "/x", unlisted, "loopback address not allowed"},
		{"redirect to a name that resolves to loopback", origin, withPort(t, "localhost", unlisted.URL) + "/x", unlisted, "internal address not allowed"},
		{"redirect to cloud metadata", origin, "http://169.254.169.254/latest/meta-data/", nil, "link-local address not allowed"},
		{"redirect to a private address", origin, "http://10.1.2.3/", nil, "private address not allowed"},
		{"redirect to an IPv6 unique local address", origin, "http://[fd00::1]:8080/", nil, "private address not allowed"},
		{"redirect to an IPv4-mapped loopback", origin, "http://[::ffff:127.0.0.1]:9/", nil, "loopback address not allowed"},
		{"redirect to the unspecified address", origin, "http://0.0.0.0:" + mustPort(t, unlisted.URL) + "/", unlisted, "unspecified address not allowed"},
		{"https redirect down to http, even to an allowed host", tlsOrigin, listed.URL + "/x", listed, "from https to http"},
		{"https redirect to https on the same host", tlsOrigin, tlsOrigin.URL + "/x", nil, ""},
		{"a host not allowed, asked directly", unlisted, "", nil, "internal address not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := NewClient(Options{AllowedURLs: allowed})
			trust(client, tlsOrigin.Server)
			target := tt.from.URL + "/x"
			if tt.to != "" {
				target += "?to=" + url.QueryEscape(tt.to)
			}
			var before int32
			if tt.target != nil {
				before = tt.target.hits.Load()
			}
			body, err := get(client, target)
			switch {
			case tt.wantErr == "" && (err != nil || body != "ok"):
				t.Fatalf("GET = %q, %v; want ok", body, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("GET error = %v; want one saying %q", err, tt.wantErr)
			}
			if tt.target != nil && tt.wantErr != "" {
				if n := tt.target.hits.Load() - before; n != 0 {
					t.Errorf("the refused target got %d requests", n)
				}
			}
		})
	}
}

// TestNoRedirects: a client made with NoRedirects sends nothing where a
// redirect points, whatever the status, method or target, and hands the
// redirect back as it came; its dial guard still refuses internal hosts.
func TestNoRedirects(t *testing.T) {
	t.Parallel()
	origin := newCountingServer(t, false) // an allowed host, a webhook receiver say
	listed := newCountingServer(t, false) // another allowed host
	unlisted := newCountingServer(t, false)
	client := NewClient(Options{AllowedURLs: []string{origin.URL, listed.URL}, NoRedirects: true})

	tests := []struct {
		name       string
		method     string
		url        string
		wantStatus int    // 0 for an error
		wantErr    string // with wantStatus 0
	}{
		{"302 to an allowed host, which would turn a POST into a GET", http.MethodPost,
			origin.URL + "/x?code=302&to=" + url.QueryEscape(listed.URL+"/x"), http.StatusFound, ""},
		{"307 to an allowed host, which would re-post the body", http.MethodPost,
			origin.URL + "/x?code=307&to=" + url.QueryEscape(listed.URL+"/x"), http.StatusTemporaryRedirect, ""},
		{"308 to the same host", http.MethodPost,
			origin.URL + "/x?code=308&to=/y", http.StatusPermanentRedirect, ""},
		{"301 to cloud metadata", http.MethodGet,
			origin.URL + "/x?code=301&to=" + url.QueryEscape("http://169.254.169.254/latest/meta-data/"), http.StatusMovedPermanently, ""},
		{"a host not allowed, asked directly", http.MethodPost, unlisted.URL + "/x", 0, "internal address not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := listed.hits.Load() + unlisted.hits.Load()
			originBefore := origin.hits.Load()
			req, err := http.NewRequest(tt.method, tt.url, strings.NewReader(`{"signed":true}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if tt.wantStatus == 0 {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v; want one saying %q", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("error %v; want the %d itself", err, tt.wantStatus)
				}
				resp.Body.Close()
				if resp.StatusCode != tt.wantStatus || resp.Header.Get("Location") == "" {
					t.Errorf("answer %s with Location %q; want %d with its Location", resp.Status, resp.Header.Get("Location"), tt.wantStatus)
				}
				if n := origin.hits.Load() - originBefore; n != 1 {
					t.Errorf("the first host got %d requests, want 1: the redirect was followed", n)
				}
			}
			if n := listed.hits.Load() + unlisted.hits.Load() - before; n != 0 {
				t.Errorf("%d requests went where the redirect pointed", n)
			}
		})
	}
}

func TestInternalAddresses(t *testing.T) {
	t.Parallel()
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
