package check

import (
	"net"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/catalog"
	"golang.org/x/net/idna"
)

// Matcher finds the tracked service a /check query names: by slug, name or
// alias (ignoring case, spaces and punctuation), or by a domain, any of its
// subdomains, or the host of a URL given with or without a scheme.
type Matcher struct {
	names map[string]target // normalised name → service and surface
	hosts []hostRule        // longest domain first
	// candidates are the names suggestions are drawn from, precomputed.
	candidates []candidate
	// firstWords are the first words of the tracked names that are not a
	// name themselves ("github" of "GitHub Copilot"), normalised, each with
	// the names it begins: a query of one is a near miss at distance 0.
	firstWords map[string][]string
	// longest is the length in runes of the longest candidate key.
	longest int
}

// candidate is one normalised name a suggestion can come from.
type candidate struct {
	key  []rune
	name string // the service's display name
}

// firstWordMin is the shortest first word of a tracked name that suggests
// it on its own ("github" suggests GitHub Copilot; "ai" suggests nothing).
const firstWordMin = 4

type hostRule struct {
	pattern string // a domain, or a pattern with "*" labels
	target
}

// target is what a query names: a service, and which of its surfaces
// (catalog.SurfaceAPI for the service's own names and domains).
type target struct {
	service catalog.Service
	surface catalog.SurfaceID
}

// display is the target's name for a suggestion: the service's name for
// its API, the surface's for another ("Claude Code").
func (t target) display() string {
	if t.surface == catalog.SurfaceAPI {
		return t.service.Name
	}
	return t.service.SurfaceName(t.surface)
}

// NewMatcher indexes a catalog: each service's slug, name, aliases and
// domains name its API; each surface's name, aliases and domains name that
// surface ("claude code" is Anthropic's agent surface, claude.ai its app).
// A name taken by an earlier entry keeps it.
func NewMatcher(cat catalog.Catalog) *Matcher {
	m := &Matcher{names: map[string]target{}}
	add := func(t target, names, domains []string) {
		for _, name := range names {
			if key := nameKey(name); key != "" {
				if _, taken := m.names[key]; !taken {
					m.names[key] = t
				}
			}
		}
		for _, d := range domains {
			m.hosts = append(m.hosts, hostRule{pattern: d, target: t})
		}
	}
	for _, svc := range cat.Services {
		add(target{svc, catalog.SurfaceAPI}, append([]string{svc.Slug, svc.Name}, svc.Aliases...), append([]string{svc.Domain}, svc.Domains...))
		for _, sf := range svc.Surfaces {
			add(target{svc, sf.ID}, append([]string{sf.Name}, sf.Aliases...), sf.Domains)
		}
	}
	m.firstWords = map[string][]string{}
	for key, t := range m.names {
		m.candidates = append(m.candidates, candidate{key: []rune(key), name: t.display()})
		m.longest = max(m.longest, len([]rune(key)))
		name := t.display()
		if f := strings.Fields(name); len(f) > 1 {
			if w := nameKey(f[0]); utf8.RuneCountInString(w) >= firstWordMin && !slices.Contains(m.firstWords[w], name) {
				m.firstWords[w] = append(m.firstWords[w], name)
			}
		}
	}
	for w := range m.firstWords {
		if _, named := m.names[w]; named {
			delete(m.firstWords, w) // matched, never suggested
		}
	}
	// The most specific domain wins: openai.azure.com before azure.com,
	// platform.claude.com before claude.com.
	sort.SliceStable(m.hosts, func(i, j int) bool { return len(m.hosts[i].pattern) > len(m.hosts[j].pattern) })
	return m
}

// Match returns the service q names, whichever of its surfaces.
func (m *Matcher) Match(q string) (catalog.Service, bool) {
	svc, _, ok := m.MatchSurface(q)
	return svc, ok
}

// MatchSurface returns the service q names and the surface of it: the API
// for the service's own names and domains (and an API host such as
// api.anthropic.com, a subdomain of its domain), another surface for that
// surface's names and domains.
func (m *Matcher) MatchSurface(q string) (catalog.Service, catalog.SurfaceID, bool) {
	if t, ok := m.names[nameKey(q)]; ok {
		return t.service, t.surface, true
	}
	host := hostOf(q)
	if host == "" {
		return catalog.Service{}, "", false
	}
	for _, rule := range m.hosts {
		if matchHost(rule.pattern, host) {
			return rule.service, rule.surface, true
		}
	}
	return catalog.Service{}, "", false
}

// Suggest returns up to three tracked service names close to q: within an
// edit distance of a third of q's folded length (at least 2), closest first.
// A q that is the first word (of 4 letters or more) of a tracked name of
// several words, and no name itself, is at distance 0 of it: "github" and
// github.com suggest GitHub Copilot, which is not GitHub.
//
// Its cost is bounded whatever q is (/check answers untracked queries of up
// to 256 bytes): a distance is at least the difference in length, so a key
// far longer than every name is answered at once, candidates of a too
// different length are skipped, and each distance stops as soon as it
// exceeds the limit. The answers are the same as a full comparison's.
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
	best := map[string]int{}
	for _, name := range m.firstWords[key] {
		best[name] = 0
	}
	limit := max(2, len(key)/3)
	n := utf8.RuneCountInString(key)
	runes := []rune(key)
	rows := make([]int, 2*(m.longest+1))
	for _, c := range m.candidates {
		if n-m.longest > limit {
			break
		}
		if abs(n-len(c.key)) > limit {
			continue
		}
		d := boundedLevenshtein(runes, c.key, limit, rows)
		if d > limit {
			continue
		}
		if old, ok := best[c.name]; !ok || d < old {
			best[c.name] = d
		}
	}
	type scored struct {
		name string
		dist int
	}
	var list []scored
	for name, d := range best {
		list = append(list, scored{name, d})
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

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// nameKey folds a name for comparison: lower case, letters and digits only.
// ASCII, the usual case, is folded byte by byte; /check folds every query
// twice (match, then suggest), up to 256 bytes each.
func nameKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return nameKeyUnicode(s)
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b.WriteByte(c)
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		}
	}
	return b.String()
}

// nameKeyUnicode is nameKey for any text.
func nameKeyUnicode(s string) string {
	var b strings.Builder
	b.Grow(len(s))
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

// boundedLevenshtein is the edit distance between a and b, or limit+1 as
// soon as it is known to exceed limit: every cell of a row is a lower bound
// of the final distance, so a row whose cells all exceed limit ends it.
// rows is scratch space of at least 2*(len(b)+1) ints.
func boundedLevenshtein(a, b []rune, limit int, rows []int) int {
	prev, cur := rows[:len(b)+1], rows[len(b)+1:2*(len(b)+1)]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
