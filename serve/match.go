package serve

import (
	"net"
	"net/url"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/aistatus/aistatus/snapshot"
	"golang.org/x/net/idna"
)

// Matcher finds the tracked service a /check query names: by slug, name or
// alias (ignoring case, spaces and punctuation), or by a domain, any of its
// subdomains, or the host of a URL given with or without a scheme.
type Matcher struct {
	names    map[string]snapshot.Service // normalised name → service
	hosts    []hostRule                  // longest domain first
	services []snapshot.Service
}

type hostRule struct {
	pattern string // a domain, or a pattern with "*" labels
	service snapshot.Service
}

// NewMatcher indexes a catalog.
func NewMatcher(cat snapshot.Catalog) *Matcher {
	m := &Matcher{names: map[string]snapshot.Service{}, services: cat.Services}
	for _, svc := range cat.Services {
		for _, name := range append([]string{svc.Slug, svc.Name}, svc.Aliases...) {
			if key := nameKey(name); key != "" {
				if _, taken := m.names[key]; !taken {
					m.names[key] = svc
				}
			}
		}
		for _, d := range append([]string{svc.Domain}, svc.Domains...) {
			m.hosts = append(m.hosts, hostRule{pattern: d, service: svc})
		}
	}
	// The most specific domain wins: openai.azure.com before azure.com.
	sort.SliceStable(m.hosts, func(i, j int) bool { return len(m.hosts[i].pattern) > len(m.hosts[j].pattern) })
	return m
}

// Match returns the service q names.
func (m *Matcher) Match(q string) (snapshot.Service, bool) {
	if svc, ok := m.names[nameKey(q)]; ok {
		return svc, true
	}
	host := hostOf(q)
	if host == "" {
		return snapshot.Service{}, false
	}
	for _, rule := range m.hosts {
		if matchHost(rule.pattern, host) {
			return rule.service, true
		}
	}
	return snapshot.Service{}, false
}

// Suggest returns up to three tracked service names close to q.
func (m *Matcher) Suggest(q string) []string {
	key := nameKey(q)
	if host := hostOf(q); host != "" {
		// "opneai.com" should suggest OpenAI: compare the host's main label.
		labels := strings.Split(host, ".")
		if len(labels) >= 2 {
			key = nameKey(labels[len(labels)-2])
		}
	}
	if key == "" {
		return nil
	}
	type candidate struct {
		name string
		dist int
	}
	best := map[string]int{}
	for name, svc := range m.names {
		d := levenshtein(key, name)
		if limit := max(2, len(key)/3); d > limit {
			continue
		}
		if old, ok := best[svc.Name]; !ok || d < old {
			best[svc.Name] = d
		}
	}
	var list []candidate
	for name, d := range best {
		list = append(list, candidate{name, d})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].dist != list[j].dist {
			return list[i].dist < list[j].dist
		}
		return list[i].name < list[j].name
	})
	var out []string
	for i := 0; i < len(list) && i < 3; i++ {
		out = append(out, list[i].name)
	}
	return out
}

// nameKey folds a name for comparison: lower case, letters and digits only.
func nameKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hostOf extracts a host name from a domain or URL, with or without scheme,
// port, path or trailing dot, in its ASCII (punycode) form. It returns ""
// when q does not look like a host.
func hostOf(q string) string {
	q = strings.TrimSpace(strings.ToLower(q))
	if !strings.Contains(q, "://") {
		q = "http://" + q
	}
	u, err := url.Parse(q)
	if err != nil {
		return ""
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if host == "" || !strings.Contains(host, ".") || net.ParseIP(host) != nil {
		return ""
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return ""
	}
	return ascii
}

// matchHost reports whether host is the pattern's domain or a subdomain of
// it. A "*" in the pattern stands for one or more labels.
func matchHost(pattern, host string) bool {
	if strings.Contains(pattern, "*") {
		ok, _ := path.Match(pattern, host)
		return ok
	}
	return host == pattern || strings.HasSuffix(host, "."+pattern)
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
