package main

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
)

// baseURLFromAddr is the address a local client reaches a server listening
// on addr at: the default --base-url of a command that both builds and
// serves, so that the links and the attribution in the snapshot point at the
// port actually served rather than at a fixed :8080. A wildcard or empty
// host (":9090", "0.0.0.0:9090", "[::]:9090") is reachable as localhost; the
// default HTTP port is left out, as browsers do.
func baseURLFromAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %w", addr, err)
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	if port != "80" {
		host = net.JoinHostPort(host, port)
	} else if ip, err := netip.ParseAddr(host); err == nil && ip.Is6() {
		host = "[" + host + "]"
	}
	return (&url.URL{Scheme: "http", Host: host}).String(), nil
}
