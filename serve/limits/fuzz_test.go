package limits

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// FuzzClientAddr walks arbitrary peers and X-Forwarded-For headers through
// ClientAddr with trusted proxies: the result is the zero Addr or an address
// that is the peer or one of the header's entries, and the header is only
// believed when the peer is trusted.
func FuzzClientAddr(f *testing.F) {
	f.Add("10.0.0.1:443", "1.1.1.1, 198.51.100.1, 10.0.0.3", "")
	f.Add("10.0.0.1:443", "10.0.0.9, 127.0.0.1", "10.0.0.2")
	f.Add("203.0.113.7:51234", "198.51.100.1", "")
	f.Add("[::ffff:10.0.0.1]:443", "[2001:db8::1]:443, ::ffff:203.0.113.9", "")
	f.Add("[2001:db8:ffff::1]:443", "fe80::1%eth0, unknown", "")
	f.Add("not an address", "198.51.100.1", "")
	f.Add("10.0.0.1:443", strings.Repeat("10.0.0.1,", 40)+"203.0.113.1", "")
	f.Add("127.0.0.1:80", "[::1], , 192.0.2.1:0", "[10.0.0.1]")
	trusted, err := ParseTrustedProxies([]string{"10.0.0.0/8", "2001:db8:ffff::/48", "127.0.0.1", "::1"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, remote, xff1, xff2 string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{}}
		r.Header["X-Forwarded-For"] = []string{xff1}
		if xff2 != "" {
			r.Header["X-Forwarded-For"] = append(r.Header["X-Forwarded-For"], xff2)
		}
		got := ClientAddr(r, trusted)
		LimitKey(got) // must not panic either

		peer, peerOK := looseAddr(remote)
		switch {
		case !peerOK:
			if got.IsValid() {
				t.Fatalf("unparsable peer %q gave %v", remote, got)
			}
			return
		case !got.IsValid():
			t.Fatalf("peer %q parses but the result is the zero Addr", remote)
		case got.Is4In6():
			t.Fatalf("%v is not unmapped", got)
		case got == peer:
			return
		}
		if !trustedAddr(peer, trusted) {
			t.Fatalf("untrusted peer %q, but the client is %v from X-Forwarded-For", remote, got)
		}
		for _, v := range []string{xff1, xff2} {
			for _, entry := range strings.Split(v, ",") {
				if a, ok := looseAddr(strings.TrimSpace(entry)); ok && a == got {
					return
				}
			}
		}
		t.Fatalf("%v is neither the peer %q nor in X-Forwarded-For %q, %q", got, remote, xff1, xff2)
	})
}

// looseAddr parses an address the ways a peer or proxy may spell it (bare,
// with a port, bracketed), unmapped; written apart from ipParseHost so that
// the fuzz target does not check the code against itself.
func looseAddr(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if inner, ok := strings.CutPrefix(s, "["); ok {
		if inner, ok = strings.CutSuffix(inner, "]"); ok {
			if a, err := netip.ParseAddr(inner); err == nil && a.Is6() {
				return a.Unmap(), true
			}
		}
	}
	return netip.Addr{}, false
}

func trustedAddr(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a.WithZone("")) {
			return true
		}
	}
	return false
}
