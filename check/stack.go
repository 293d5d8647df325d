package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aistatus/aistatus/snapshot"
)

// MaxStack bounds the services of one stack check (q=a,b,c).
const MaxStack = 10

// SplitStack splits a q that lists services with commas into its names,
// trimmed; stack is false for a q with no comma, which names one service
// and keeps /check's single-service answer. An empty name or more than
// MaxStack names is an *InputError.
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
// error seen, at once, and sums them up. The caller's error, code and
// retryAfter describe one call to one service, so a stack takes none.
func (e *Engine) CheckStack(view View, q string, names []string) (snapshot.StackCheckDoc, error) {
	checks := make([]snapshot.CheckDoc, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { checks[i], errs[i] = e.Check(view, Request{Query: name}) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return snapshot.StackCheckDoc{}, err
		}
	}
	return snapshot.StackCheckDoc{Query: q, Stack: stackVerdict(checks), Checks: checks,
		Timestamp: e.now().UTC(), License: snapshot.License}, nil
}

// stackVerdict is the worst level of checks and a headline naming every
// service that is not up, worst first.
func stackVerdict(checks []snapshot.CheckDoc) snapshot.StackVerdict {
	v := snapshot.StackVerdict{Services: len(checks), Level: "up"}
	rank := func(level string) int { return slices.Index(snapshot.StackLevels, level) }
	var trouble []snapshot.CheckDoc
	for _, c := range checks {
		if c.Verdict.Level == "up" {
			v.Up++
			continue
		}
		trouble = append(trouble, c)
		if rank(c.Verdict.Level) < rank(v.Level) {
			v.Level = c.Verdict.Level
		}
	}
	if len(trouble) == 0 {
		v.Headline = "All " + strconv.Itoa(len(checks)) + " services are up"
		return v
	}
	slices.SortStableFunc(trouble, func(a, b snapshot.CheckDoc) int { return rank(a.Verdict.Level) - rank(b.Verdict.Level) })
	parts := make([]string, 0, len(trouble)+1)
	for _, c := range trouble {
		parts = append(parts, c.Verdict.Headline)
	}
	parts = append(parts, fmt.Sprintf("%d of %d up", v.Up, len(checks)))
	v.Headline = strings.Join(parts, "; ")
	return v
}
