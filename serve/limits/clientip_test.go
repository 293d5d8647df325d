package limits

import (
	"net"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	proxies, err := ParseTrustedProxies([]string{"10.0.0.0/8", "2001:db8:ffff::/48", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		remote  string
		xff     []string // one element per X-Forwarded-For header
		trusted []netip.Prefix
		want    string // "" means the zero Addr
	}{
		{
			name:   "no proxies: peer",
			remote: "203.0.113.7:51234",
			want:   "203.0.113.7",
		},
		{
			name:   "no trusted proxies ignores spoofed header",
			remote: "203.0.113.7:51234",
			xff:    []string{"198.51.100.1"},
			want:   "203.0.113.7",
		},
		{
			name:    "untrusted peer ignores spoofed header",
			remote:  "203.0.113.7:51234",
			xff:     []string{"198.51.100.1"},
			trusted: proxies,
			want:    "203.0.113.7",
		},
		{
			name:    "trusted peer, one hop",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.1"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:    "trusted chain: rightmost untrusted wins over forged left entries",
			remote:  "10.0.0.1:443",
			xff:     []string{"1.1.1.1, 198.51.100.1, 10.0.0.3, 10.0.0.2"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:    "all hops trusted: leftmost",
			remote:  "10.0.0.1:443",
			xff:     []string{"10.0.0.9, 127.0.0.1, 10.0.0.2"},
			trusted: proxies,
			want:    "10.0.0.9",
		},
		{
			name:    "trusted peer, no header: peer",
			remote:  "10.0.0.1:443",
			trusted: proxies,
			want:    "10.0.0.1",
		},
		{
			name:    "trusted peer, empty header: peer",
			remote:  "10.0.0.1:443",
			xff:     []string{""},
			trusted: proxies,
			want:    "10.0.0.1",
		},
		{
			name:    "malformed rightmost entry: peer",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.1, unknown"},
			trusted: proxies,
			want:    "10.0.0.1",
		},
		{
			name:    "malformed entry after trusted hops: last trusted hop",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.1, not-an-ip, 10.0.0.2"},
			trusted: proxies,
			want:    "10.0.0.2",
		},
		{
			name:    "empty entry is malformed",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.1,,10.0.0.2"},
			trusted: proxies,
			want:    "10.0.0.2",
		},
		{
			name:    "malformed entry left of the client is never reached",
			remote:  "10.0.0.1:443",
			xff:     []string{"garbage, 198.51.100.1"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:    "spaces and tabs",
			remote:  "10.0.0.1:443",
			xff:     []string{"  198.51.100.1 ,\t10.0.0.2  "},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:    "IPv4 with port",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.1:5678"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:    "bracketed IPv6 with port",
			remote:  "10.0.0.1:443",
			xff:     []string{"[2001:db8::1]:443"},
			trusted: proxies,
			want:    "2001:db8::1",
		},
		{
			name:    "bracketed IPv6 without port",
			remote:  "10.0.0.1:443",
			xff:     []string{"[2001:db8::1]"},
			trusted: proxies,
			want:    "2001:db8::1",
		},
		{
			name:    "bare IPv6",
			remote:  "10.0.0.1:443",
			xff:     []string{"2001:db8::1"},
			trusted: proxies,
			want:    "2001:db8::1",
		},
		{
			name:    "trusted IPv6 proxy in the chain",
			remote:  "[2001:db8:ffff::1]:443",
			xff:     []string{"2001:db8::1, [2001:db8:ffff::2]:80"},
			trusted: proxies,
			want:    "2001:db8::1",
		},
		{
			name:    "bracketed IPv4 is malformed",
			remote:  "10.0.0.1:443",
			xff:     []string{"[198.51.100.1]"},
			trusted: proxies,
			want:    "10.0.0.1",
		},
		{
			name:    "v4-mapped entry is unmapped",
			remote:  "10.0.0.1:443",
			xff:     []string{"::ffff:198.51.100.1"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:    "v4-mapped trusted entry is skipped",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.1, [::ffff:10.0.0.2]:80"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:    "v4-mapped trusted peer",
			remote:  "[::ffff:10.0.0.1]:443",
			xff:     []string{"198.51.100.1"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:   "v4-mapped peer is unmapped",
			remote: "[::ffff:203.0.113.7]:443",
			want:   "203.0.113.7",
		},
		{
			name:    "multiple headers form one list",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.9, 198.51.100.1", "10.0.0.3", "10.0.0.2"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:    "multiple headers, all trusted: leftmost of the first",
			remote:  "10.0.0.1:443",
			xff:     []string{"10.0.0.4, 10.0.0.3", "10.0.0.2"},
			trusted: proxies,
			want:    "10.0.0.4",
		},
		{
			name:    "at most 32 entries are examined",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.1, " + strings.Repeat("10.0.0.2, ", 31) + "10.0.0.3"},
			trusted: proxies,
			want:    "10.0.0.2",
		},
		{
			name:    "32 entries are enough",
			remote:  "10.0.0.1:443",
			xff:     []string{"198.51.100.1, " + strings.Repeat("10.0.0.2, ", 30) + "10.0.0.3"},
			trusted: proxies,
			want:    "198.51.100.1",
		},
		{
			name:   "garbage RemoteAddr",
			remote: "not an address",
			want:   "",
		},
		{
			name:    "garbage RemoteAddr with trusted proxies and header",
			remote:  "@",
			xff:     []string{"198.51.100.1"},
			trusted: proxies,
			want:    "",
		},
		{
			name:   "empty RemoteAddr",
			remote: "",
			want:   "",
		},
		{
			name:   "RemoteAddr without port",
			remote: "203.0.113.7",
			want:   "203.0.113.7",
		},
		{
			name:   "IPv6 RemoteAddr",
			remote: "[2001:db8::7]:51234",
			want:   "2001:db8::7",
		},
		{
			name:   "IPv4-mapped IPv6 peer",
			remote: "[::ffff:203.0.113.7]:51234",
			want:   "203.0.113.7",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			var want netip.Addr
			if tt.want != "" {
				want = netip.MustParseAddr(tt.want)
			}
			if got := ClientAddr(r, tt.trusted); got != want {
				t.Fatalf("ClientAddr = %v, want %v", got, want)
			}
			// The same request on a connection the server accepted: the
			// peer comes from the socket, kept by PeerContext, and RemoteAddr
			// is not parsed again (garbage here, to tell).
			if ap, err := netip.ParseAddrPort(tt.remote); err == nil {
				c, _ := net.Pipe()
				defer c.Close()
				ctx := PeerContext(r.Context(), peerConn{c, net.TCPAddrFromAddrPort(ap)})
				r := r.WithContext(ctx)
				r.RemoteAddr = "garbage"
				if got := ClientAddr(r, tt.trusted); got != want {
					t.Fatalf("ClientAddr on a connection = %v, want %v", got, want)
				}
			}
		})
	}
}

// peerConn is a connection from remote.
type peerConn struct {
	net.Conn
	remote net.Addr
}

func (c peerConn) RemoteAddr() net.Addr { return c.remote }

func TestParseTrustedProxies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      []string
		want    []string
		wantErr string // substring of the error; "" means no error
	}{
		{name: "nil", in: nil, want: nil},
		{
			name: "prefixes and single addresses",
			in:   []string{"10.0.0.0/8", "127.0.0.1", "::1", "2001:db8::/32"},
			want: []string{"10.0.0.0/8", "127.0.0.1/32", "::1/128", "2001:db8::/32"},
		},
		{
			name: "spaces and blank entries",
			in:   []string{" 10.0.0.0/8 ", "", "  "},
			want: []string{"10.0.0.0/8"},
		},
		{
			name: "host bits are cleared",
			in:   []string{"10.1.2.3/8"},
			want: []string{"10.0.0.0/8"},
		},
		{
			name: "v4-mapped entries become IPv4",
			in:   []string{"::ffff:10.0.0.0/104", "::ffff:127.0.0.1"},
			want: []string{"10.0.0.0/8", "127.0.0.1/32"},
		},
		{name: "bad address", in: []string{"10.0.0.0/8", "localhost"}, wantErr: `"localhost"`},
		{name: "bad prefix length", in: []string{"10.0.0.0/33"}, wantErr: `"10.0.0.0/33"`},
		{name: "bad prefix address", in: []string{"10.0.0/8"}, wantErr: `"10.0.0/8"`},
		{name: "zone", in: []string{"fe80::1%eth0"}, wantErr: `"fe80::1%eth0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTrustedProxies(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != netip.MustParsePrefix(tt.want[i]) {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}
