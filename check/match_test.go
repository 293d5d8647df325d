package check

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMatch resolves the queries people type — slugs, names, aliases, vendor
// words, domains, subdomains, URLs — to the service they mean, and nothing
// else to anything.
func TestMatch(t *testing.T) {
	t.Parallel()
	m := NewMatcher(testCatalog(t))
	for q, slug := range map[string]string{
		"openai": "openai", "OpenAI": "openai", "ChatGPT": "openai", "https://api.openai.com/v1/chat/completions": "openai",
		"api.anthropic.com": "anthropic", "claude": "anthropic", "Google Gemini": "google-gemini",
		"generativelanguage.googleapis.com:443": "google-gemini", "openai.azure.com": "azure-openai",
		"myres.openai.azure.com": "azure-openai", "bedrock-runtime.eu-west-1.amazonaws.com": "aws-bedrock",
		"HTTPS://WWW.ELEVENLABS.IO/": "elevenlabs", "x.ai": "xai", "grok": "xai", "api.groq.com.": "groq",
		// IDN normalisation: full-width letters map to openai.com.
		"ａｐｉ.ｏｐｅｎａｉ.ｃｏｍ": "openai",
		// Vendor words.
		"azure": "azure-openai", "aws": "aws-bedrock", "bedrock": "aws-bedrock", "Amazon Bedrock": "aws-bedrock",
		"vertex": "google-gemini", "Vertex AI": "google-gemini", "gemini": "google-gemini", "codex": "openai",
		"sonar": "perplexity", "11labs": "elevenlabs", "stable diffusion": "stability", "langchain": "langsmith",
		// Copilot by its names and hosts; GitHub itself is not tracked.
		"copilot": "github-copilot", "GitHub Copilot": "github-copilot", "gh copilot": "github-copilot",
		"api.githubcopilot.com": "github-copilot", "copilot.github.com": "github-copilot",
		"github": "", "github.com": "", "api.github.com": "",
		// Untracked.
		"example.com": "", "opneai": "", "http://127.0.0.1:9/": "", "münchen.de": "", "[::1]:80": "", "://": "",
	} {
		svc, ok := m.Match(q)
		if ok != (slug != "") || svc.Slug != slug {
			t.Errorf("Match(%q) = %q, %v; want %q", q, svc.Slug, ok, slug)
		}
	}
	for q, want := range map[string]string{"opneai": "OpenAI", "anthropc": "Anthropic", "azur": "Azure OpenAI", "bedrok": "Amazon Bedrock", "mistrl": "Mistral AI",
		// The first word of a tracked name suggests it.
		"github": "GitHub Copilot", "github.com": "GitHub Copilot"} {
		if got := m.Suggest(q); !slices.Contains(got, want) {
			t.Errorf("Suggest(%q) = %v; want %q among them", q, got, want)
		}
	}
	if got := m.Suggest("opneai"); len(got) == 0 || got[0] != "OpenAI" {
		t.Errorf("Suggest(opneai) = %v, want OpenAI first", got)
	}
}

// TestMatchSurface resolves a query to a service and the surface of it the
// query means: a surface's names and hosts to that surface, the service's
// own names, the API host and its other subdomains to the API.
func TestMatchSurface(t *testing.T) {
	t.Parallel()
	m := NewMatcher(testCatalog(t))
	for q, want := range map[string]string{
		"claude": "anthropic/api", "anthropic": "anthropic/api", "api.anthropic.com": "anthropic/api",
		"https://api.anthropic.com/v1/messages": "anthropic/api", "claude api": "anthropic/api",
		"claude.ai": "anthropic/app", "https://claude.ai/new": "anthropic/app", "Claude Desktop": "anthropic/app",
		"cowork": "anthropic/app", "Claude Cowork": "anthropic/app",
		"claude code": "anthropic/agent", "Claude Code": "anthropic/agent", "claude-code": "anthropic/agent",
		"platform.claude.com": "anthropic/console", "console.anthropic.com": "anthropic/console",
		"openai": "openai/api", "api.openai.com": "openai/api", "gpt-5": "openai/api",
		"chatgpt": "openai/app", "ChatGPT": "openai/app", "chatgpt.com": "openai/app", "https://chatgpt.com/c/1": "openai/app",
		"chat.openai.com": "openai/app", "platform.openai.com": "openai/api",
		"sora": "openai/app", "codex": "openai/agent", "Codex CLI": "openai/agent",
		"bugbot": "cursor/api", "cursor": "cursor/api",
		"cohere": "cohere/api", "dashboard.cohere.com": "cohere/console",
		"grok": "xai/api", "api.x.ai": "xai/api", "grok.com": "xai/app", "https://grok.com/chat": "xai/app",
		"grok build": "xai/agent", "console.x.ai": "xai/console", "perplexity computer": "perplexity/agent",
		// A service without surfaces: all of it is the API.
		"groq": "groq/api", "api.groq.com": "groq/api",
	} {
		svc, surface, ok := m.MatchSurface(q)
		if got := svc.Slug + "/" + string(surface); !ok || got != want {
			t.Errorf("MatchSurface(%q) = %q, %v; want %q", q, got, ok, want)
		}
	}
	if got := m.Suggest("claude cod"); !slices.Contains(got, "Claude Code") {
		t.Errorf("Suggest(claude cod) = %v; want Claude Code among them", got)
	}
}

// FuzzMatch: the matcher never panics, matches only catalog services and
// suggests at most three names, whatever the query: the names the
// exhaustive search (referenceSuggest) finds.
func FuzzMatch(f *testing.F) {
	for _, q := range []string{
		"openai", "ChatGPT", "Google Gemini", "https://api.openai.com/v1/chat/completions",
		"myres.openai.azure.com", "bedrock-runtime.eu-west-1.amazonaws.com", "api.groq.com.",
		"münchen.de", "xn--mnchen-3ya.de", "http://127.0.0.1:9/", "[::1]:80", "opneai.com",
		"http://[fe80::1%en0]/", "*.openai.azure.com", "user:pass@openai.com:99999", "://",
		"\xff\xfe", strings.Repeat("a", 256), strings.Repeat("a", 257), "",
	} {
		f.Add(q)
	}
	cat := testCatalog(f)
	m := NewMatcher(cat)
	tracked := map[string]bool{}
	for _, svc := range cat.Services {
		tracked[svc.Slug] = true
	}
	f.Fuzz(func(t *testing.T, q string) {
		if svc, matched := m.Match(q); matched && !tracked[svc.Slug] {
			t.Fatalf("Match(%q) = %q, not in the catalog", q, svc.Slug)
		}
		s := m.Suggest(q)
		if len(s) > 3 {
			t.Fatalf("Suggest(%q) = %d names, want at most 3", q, len(s))
		}
		if want := referenceSuggest(m, q); !slices.Equal(s, want) {
			t.Fatalf("Suggest(%q) = %v, want %v", q, s, want)
		}
	})
}

// untrackedLongQuery is a 256-byte q that names no service: letters only,
// so that all of it survives name folding.
var untrackedLongQuery = strings.Repeat("qwertyuiopasdfghjklzxcvbnm", 10)[:256]

// referenceSuggest is the exhaustive suggestion search the matcher used to
// run: the edit distance to every name.
func referenceSuggest(m *Matcher, q string) []string {
	key := nameKey(q)
	if host := hostOf(q); host != "" {
		if labels := strings.Split(host, "."); len(labels) >= 2 {
			key = nameKey(labels[len(labels)-2])
		}
	}
	if key == "" {
		return nil
	}
	best := map[string]int{}
	if _, named := m.names[key]; !named && utf8.RuneCountInString(key) >= firstWordMin {
		// The first word of a tracked name of several suggests it.
		for _, t := range m.names {
			if f := strings.Fields(t.display()); len(f) > 1 && nameKey(f[0]) == key {
				best[t.display()] = 0
			}
		}
	}
	for name, t := range m.names {
		display := t.display()
		ra, rb := []rune(key), []rune(name)
		prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
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
		if d := prev[len(rb)]; d <= max(2, len(key)/3) {
			if old, ok := best[display]; !ok || d < old {
				best[display] = d
			}
		}
	}
	names := slices.Collect(maps.Keys(best))
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(best[a], best[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return names[:min(3, len(names))]
}

// TestSuggestBounded: suggestions are the exhaustive search's, and an
// untracked 256-byte query — the longest /check accepts — costs no more
// than a six-letter typo (it used to cost seven times a tracked check).
func TestSuggestBounded(t *testing.T) {
	m := NewMatcher(testCatalog(t))
	queries := []string{
		"opneai", "antropic", "claud", "gemni", "mistrl", "opneai.com", "https://www.antrhopic.com/x", "grok",
		"github", "github.com", "google", "amazon", "perplexityy", "huggingfac", "stabilityaii", "elevenlab", "cohere ai", "together", "bedrok", "a", "zz",
		"anthropicstatus", "openaiopenaiopenai", "ｏｐｎｅａｉ", "ópenai", "日本語", untrackedLongQuery,
		untrackedLongQuery[:40], untrackedLongQuery[:60], strings.Repeat("openai", 7), "www." + untrackedLongQuery[:60] + ".com",
	}
	for _, q := range queries {
		if got, want := m.Suggest(q), referenceSuggest(m, q); !slices.Equal(got, want) {
			t.Errorf("Suggest(%.40q) = %v, want %v", q, got, want)
		}
	}
	// Random near-misses of real names, of every length up to 60: 500 in
	// every run (3000 took 7 s under the race detector), and whatever the
	// nightly fuzzing finds (FuzzMatch holds Suggest to the same reference).
	rng := rand.New(rand.NewPCG(1, 2))
	keys := slices.Collect(maps.Keys(m.names))
	slices.Sort(keys)
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 .-é"
	for range 500 {
		q := []rune(keys[rng.IntN(len(keys))])
		for range rng.IntN(8) {
			switch i := rng.IntN(len(q) + 1); rng.IntN(3) {
			case 0:
				q = slices.Insert(q, i, rune(alphabet[rng.IntN(len(alphabet)-1)]))
			case 1:
				if i < len(q) {
					q = slices.Delete(q, i, i+1)
				}
			default:
				q = append(q, []rune(keys[rng.IntN(len(keys))])...)
			}
		}
		q = q[:min(len(q), 60)]
		if got, want := m.Suggest(string(q)), referenceSuggest(m, string(q)); !slices.Equal(got, want) {
			t.Fatalf("Suggest(%q) = %v, want %v", string(q), got, want)
		}
	}
	typo := testing.AllocsPerRun(50, func() { m.Suggest("opneai") })
	long := testing.AllocsPerRun(50, func() { m.Suggest(untrackedLongQuery) })
	if long > typo {
		t.Errorf("a 256-byte query makes %.0f allocations, a typo %.0f: the cost grows with the query", long, typo)
	}
}

// TestNameKeyASCIIFastPath: the byte-wise fold agrees with the Unicode one.
func TestNameKeyASCIIFastPath(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "OpenAI", "Google Gemini", "x.ai", "api.groq.com.", "A-Z_0-9 !~\x7f\x00", "ÓpenAI", "ｏｐｅｎａｉ", untrackedLongQuery} {
		if got, want := nameKey(s), nameKeyUnicode(s); got != want {
			t.Errorf("nameKey(%q) = %q, want %q", s, got, want)
		}
	}
}

// BenchmarkSuggest is the suggestion search alone.
func BenchmarkSuggest(b *testing.B) {
	m := NewMatcher(testCatalog(b))
	for _, q := range []struct{ name, q string }{{"typo", "opneai"}, {"host", "www.anthropic-status.com"}, {"256B", untrackedLongQuery}} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Suggest(q.q)
			}
		})
	}
}
