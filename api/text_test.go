package api

import (
	"strings"
	"testing"
)

// TestCleanText: outside text made inert and bounded, and text that is
// clean already returned as it is, by the shortcut or rune by rune alike.
func TestCleanText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"Elevated errors across all models", 300, "Elevated errors across all models"},
		{"", 300, ""},
		{"  Elevated   errors \n", 300, "Elevated errors"},
		{"Elevated\terrors\r\non Claude", 300, "Elevated errors on Claude"},
		{"a\u202egnp.exe", 300, "agnp.exe"}, // a bidi override dropped
		{"zero\u200bwidth", 300, "zerowidth"},
		{"caf\u00e9 d\u00e9grad\u00e9", 300, "caf\u00e9 d\u00e9grad\u00e9"},
		{"bad \xff byte", 300, "bad byte"},
		{"del\x7fete", 300, "del ete"},
		{"resolved", 8, "resolve…"}, // as long as max: cut
		{"resolved", 9, "resolved"},
		{"one two three", 8, "one two…"},
		{"tilde~ok", 300, "tilde~ok"},
	} {
		got := CleanText(tt.in, tt.max)
		if got != tt.want {
			t.Errorf("CleanText(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
		if slow := cleanRunes(tt.in, tt.max); slow != got {
			t.Errorf("CleanText(%q, %d) = %q, rune by rune %q", tt.in, tt.max, got, slow)
		}
	}
}

// TestCleanTextShortcutAgrees: every string of up to four pieces of an
// alphabet of the cases that matter gets from the shortcut what it gets
// rune by rune.
func TestCleanTextShortcutAgrees(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", " ", "~", "\x7f", "\x1f", "\t", "\u00e9", "\u200b", "\xff"}
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		for _, max := range []int{1, 2, 3, 4, 300} {
			if cleanASCII(s, max) && cleanRunes(s, max) != s {
				t.Errorf("shortcut keeps %q (max %d), rune by rune %q", s, max, cleanRunes(s, max))
			}
		}
		if depth == 4 {
			return
		}
		for _, c := range alphabet {
			walk(s+c, depth+1)
		}
	}
	walk("", 0)
	if !cleanASCII(strings.Repeat("x", 299), 300) || cleanASCII(strings.Repeat("x", 300), 300) {
		t.Error("the shortcut's bound is not max")
	}
}
