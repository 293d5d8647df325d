package check

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
)

func TestSplitStack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q     string
		names []string
		stack bool
		bad   string // a substring of the 400's detail
	}{
		{q: "openai"},
		{q: "https://api.openai.com/v1/chat"},
		{q: "openai,anthropic", names: []string{"openai", "anthropic"}, stack: true},
		{q: " openai , Groq ", names: []string{"openai", "Groq"}, stack: true},
		{q: strings.Repeat("a,", 9) + "a", names: slices.Repeat([]string{"a"}, 10), stack: true},
		{q: strings.Repeat("a,", 10) + "a", stack: true, bad: "11 services"},
		{q: "openai,", stack: true, bad: "empty service name"},
		{q: ",openai", stack: true, bad: "empty service name"},
		{q: "a, ,b", stack: true, bad: "empty service name"},
		{q: "a," + strings.Repeat("b", MaxQuery), stack: true, bad: "longer than"},
	} {
		names, stack, err := SplitStack(tc.q)
		var bad *InputError
		switch {
		case tc.bad != "" && (!errors.As(err, &bad) || bad.Param != "q" || !strings.Contains(bad.Detail, tc.bad)):
			t.Errorf("%q: error %v, want a q error saying %q", tc.q, err, tc.bad)
		case tc.bad == "" && (err != nil || !slices.Equal(names, tc.names)):
			t.Errorf("%q: %q %v, want %q", tc.q, names, err, tc.names)
		case stack != tc.stack:
			t.Errorf("%q: stack %v, want %v", tc.q, stack, tc.stack)
		}
	}
}

func TestStackVerdict(t *testing.T) {
	t.Parallel()
	doc := func(name, level string) api.CheckDoc {
		return api.CheckDoc{Verdict: api.Verdict{Level: level, Emoji: level + "!", Headline: name + " " + level}}
	}
	for _, tc := range []struct {
		checks                 []api.CheckDoc
		level, emoji, headline string
	}{
		{[]api.CheckDoc{doc("A", "up"), doc("B", "up")}, "up", "✅", "All 2 services are up"},
		{[]api.CheckDoc{doc("A", "unknown"), doc("B", "up"), doc("C", "degraded")}, "degraded", "degraded!", "C degraded; A unknown; 1 of 3 up"},
		{[]api.CheckDoc{doc("A", "untracked"), doc("B", "stale"), doc("C", "down"), doc("D", "maintenance")},
			"down", "down!", "C down; D maintenance; B stale; A untracked; 0 of 4 up"},
	} {
		got := stackVerdict(tc.checks)
		if got.Level != tc.level || got.Emoji != tc.emoji || got.Headline != tc.headline || got.Evidence == nil || got.Alternatives == nil {
			t.Errorf("%+v, want level %s, emoji %s, %q, empty lists", got, tc.level, tc.emoji, tc.headline)
		}
	}
}
