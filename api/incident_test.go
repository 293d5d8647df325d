package api

import (
	"strings"
	"testing"
)

func TestOfficialIncidentID(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 201)
	for in, want := range map[string]string{
		"7NW2-R8K": "7NW2-R8K",
		"https://status.x.ai/incidents/01JX5AQ3V7": "status.x.ai-incidents-01JX5AQ3V7",
		"HTTP://Example.com/a?b=c#d":               "Example.com-a-b-c-d",
		"arn:aws:health:us-east-1::event/EC2/X_Y":  "arn:aws:health:us-east-1::event-EC2-X_Y",
		" /slashes/ ":            "slashes",
		"héllo wörld":            "h--llo-w--rld",
		"///":                    "",
		strings.Repeat("x", 200): strings.Repeat("x", 200),
		long:                     HashID(long),
	} {
		if got := safeID(in); got != want {
			t.Errorf("safeID(%q) = %q, want %q", in, got, want)
		}
		if want != "" {
			if got := OfficialIncidentID("xai", in); got != "xai-"+want {
				t.Errorf("OfficialIncidentID(xai, %q) = %q, want %q", in, got, "xai-"+want)
			}
		} else if got := OfficialIncidentID("xai", in); got != "" {
			t.Errorf("OfficialIncidentID(xai, %q) = %q, want none", in, got)
		}
	}
}
