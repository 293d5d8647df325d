package buildtest

import (
	"strings"
	"testing"
)

func TestFirstDifference(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want, says string }{
		{"a\nbcd\ne", "a\nbxd\ne", `line 2, column 2 (byte 3):` + "\n" + `got:  "bcd"` + "\n" + `want: "bxd"`},
		{"abc", "abcdef", `got ends at line 1, byte 3, where want goes on: "abcdef"`},
		{"a\nbc\nmore", "a\nbc", `want ends at line 2, byte 4, where got goes on: "bc"`},
	} {
		if got := FirstDifference([]byte(tc.got), []byte(tc.want)); !strings.Contains(got, tc.says) {
			t.Errorf("FirstDifference(%q, %q) = %q, want it to say %q", tc.got, tc.want, got, tc.says)
		}
	}
}
