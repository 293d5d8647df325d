package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aistatus/aistatus/api"
)

// MaxStack bounds the services of one stack check (q=a,b,c).
const MaxStack = 10

// SplitStack splits a q that lists services with commas into its names,
// trimmed; stack is false for a q with no comma, which names one service
// and keeps /check's single-service answer. An empty name, more than
// MaxStack names or a q over MaxQuery bytes is an *InputError.
func SplitStack(q string) (names []string, stack bool, err error) {
	if !strings.Contains(q, ",") {
		return nil, false, nil
	}
	if len(q) > MaxQuery {
		return nil, true, &InputError{"q", fmt.Sprintf("q is longer than %d bytes", MaxQuery)}
	}
	for part := range strings.SplitSeq(q, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, true, &InputError{"q", "q lists an empty service name: separate service names with single commas, e.g. ?q=openai,anthropic"}
		}
		names = append(names, part)
	}
	if len(names) > MaxStack {
		return nil, true, &InputError{"q", fmt.Sprintf("q lists %d services; a stack check takes at most %d", len(names), MaxStack)}
	}
	return names, true, nil
}

// CheckStack checks each of names (from SplitStack) as Check does with no
// error seen, at once, and answers in CheckDoc's own shape (see
// api.StackCheckDoc): Checks holds the checks in the order asked;
// Service, Status, Basis and the latency are null, there being no one
// service; Verdict sums the stack up and gives no advice of its own (each
// check has its own). Tracked is true when every service is.
func (e *Engine) CheckStack(view View, q string, names []string) (api.StackCheckDoc, error) {
	checks := make([]api.CheckDoc, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { checks[i], errs[i] = e.Check(view, Request{Query: name}) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return api.StackCheckDoc{}, err
		}
	}
	// A stack names several services: it has no one surface, and each
	// check names its own service's other surfaces in trouble.
	doc := api.StackCheckDoc{Checks: checks, CheckDoc: api.CheckDoc{Query: q, Tracked: true,
		OtherSurfaces: []api.CheckOtherSurface{},
		Verdict:       stackVerdict(checks), Timestamp: e.now().UTC(), License: api.License}}
	for _, c := range checks {
		doc.Tracked = doc.Tracked && c.Tracked
	}
	return doc, nil
}

// stackVerdict is the worst level of checks, its emoji, and a headline
// naming every service that is not up, worst first.
func stackVerdict(checks []api.CheckDoc) api.Verdict {
	v := api.Verdict{Level: "up", Emoji: api.Operational.Emoji(), Evidence: []api.Evidence{}, Alternatives: []api.CheckAlternative{}}
	rank := func(level string) int { return slices.Index(api.StackLevels, level) }
	var trouble []api.CheckDoc
	up := 0
	for _, c := range checks {
		v.Stale = v.Stale || c.Verdict.Stale
		if v.DataAgeSeconds == nil {
			v.DataAgeSeconds = c.Verdict.DataAgeSeconds
		}
		if c.Verdict.Level == "up" {
			up++
			continue
		}
		trouble = append(trouble, c)
		if rank(c.Verdict.Level) < rank(v.Level) {
			v.Level, v.Emoji = c.Verdict.Level, c.Verdict.Emoji
		}
	}
	if len(trouble) == 0 {
		v.Headline = "All " + strconv.Itoa(len(checks)) + " services are up"
		return v
	}
	slices.SortStableFunc(trouble, func(a, b api.CheckDoc) int { return rank(a.Verdict.Level) - rank(b.Verdict.Level) })
	parts := make([]string, 0, len(trouble)+1)
	for _, c := range trouble {
		parts = append(parts, c.Verdict.Headline)
	}
	parts = append(parts, fmt.Sprintf("%d of %d up", up, len(checks)))
	v.Headline = strings.Join(parts, "; ")
	return v
}
