package serve

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
)

// TestCheckMemo: an answer is made once a second per snapshot and
// question, and made afresh for another second, snapshot or question, for
// every question with an error, and after a question the crowd may count.
func TestCheckMemo(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 7, 29, 17, 26, 25, 0, time.UTC)
	snapA, snapB := &Snapshot{}, &Snapshot{}
	retry := 30
	claude := check.Request{Query: "claude"}
	for _, tt := range []struct {
		name string
		// first is asked, then second: made is whether second's answer
		// was made afresh.
		first, second check.Request
		snap2         *Snapshot
		after         time.Duration
		made          bool
	}{
		{"the same question, the same second", claude, claude, snapA, 999 * time.Millisecond, false},
		{"the next second", claude, claude, snapA, time.Second, true},
		{"another snapshot", claude, claude, snapB, 0, true},
		{"another question", claude, check.Request{Query: "anthropic"}, snapA, 0, true},
		{"another code", claude, check.Request{Query: "claude", Code: "overloaded_error"}, snapA, 0, true},
		{"another model", claude, check.Request{Query: "claude", Model: "claude-opus-5"}, snapA, 0, true},
		{"a retryAfter", claude, check.Request{Query: "claude", RetryAfter: &retry}, snapA, 0, true},
		{"another caller, no error", claude, check.Request{Query: "claude", Client: "192.0.2.9"}, snapA, 0, false},
		{"a retryAfter again", check.Request{Query: "claude", RetryAfter: &retry}, check.Request{Query: "claude", RetryAfter: new(30)}, snapA, 0, false},
		{"an error", check.Request{Query: "claude", Error: "529"}, check.Request{Query: "claude", Error: "529"}, snapA, 0, true},
		{"a report, then the question", check.Request{Query: "claude", Error: "529", Client: "192.0.2.1"}, claude, snapA, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m checkMemo
			made := 0
			ask := func(req check.Request) func() (api.CheckDoc, error) {
				return func() (api.CheckDoc, error) {
					made++
					return api.CheckDoc{Query: req.Query, Timestamp: at.Add(time.Duration(made))}, nil
				}
			}
			if tt.first.Error != "" || tt.first.Client != "" {
				// A report is made afresh: hold the second's answer first.
				if _, err := m.answer(snapA, tt.second, at, ask(tt.second)); err != nil {
					t.Fatal(err)
				}
				made = 0
			}
			first, err := m.answer(snapA, tt.first, at, ask(tt.first))
			if err != nil {
				t.Fatal(err)
			}
			madeBefore := made
			second, err := m.answer(tt.snap2, tt.second, at.Add(tt.after), ask(tt.second))
			if err != nil {
				t.Fatal(err)
			}
			if got := made > madeBefore; got != tt.made {
				t.Errorf("second answer made afresh: %v, want %v", got, tt.made)
			}
			if !tt.made && (string(first.body) != string(second.body) || first.etag != second.etag) {
				t.Errorf("held answer differs: %s (%s), then %s (%s)", first.body, first.etag, second.body, second.etag)
			}
			if len(second.body) == 0 || second.body[len(second.body)-1] != '\n' || second.etag != etagOf(second.body) {
				t.Errorf("answer %q with ETag %s", second.body, second.etag)
			}
		})
	}
}

// TestCheckMemoBounded: past maxMemoAnswers questions in one second, a
// new question is answered and not held; the engine's refusal is never
// held.
func TestCheckMemoBounded(t *testing.T) {
	t.Parallel()
	var m checkMemo
	at, snap := time.Date(2026, 7, 29, 17, 26, 25, 0, time.UTC), &Snapshot{}
	made := 0
	ask := func() (api.CheckDoc, error) { made++; return api.CheckDoc{}, nil }
	for i := range maxMemoAnswers + 1 {
		if _, err := m.answer(snap, check.Request{Query: fmt.Sprint(i)}, at, ask); err != nil {
			t.Fatal(err)
		}
	}
	m.answer(snap, check.Request{Query: fmt.Sprint(maxMemoAnswers)}, at, ask)
	m.answer(snap, check.Request{Query: "0"}, at, ask)
	if want := maxMemoAnswers + 2; made != want || len(m.answers) != maxMemoAnswers {
		t.Errorf("%d answers made, %d held; want %d made, %d held", made, len(m.answers), want, maxMemoAnswers)
	}
	refused := &check.InputError{Param: "q", Detail: "q is required"}
	for range 2 {
		if _, err := m.answer(snap, check.Request{Query: "bad"}, at, func() (api.CheckDoc, error) { made++; return api.CheckDoc{}, refused }); !errors.Is(err, refused) {
			t.Fatalf("refusal: %v", err)
		}
	}
	if want := maxMemoAnswers + 4; made != want {
		t.Errorf("a refusal was held: %d asked, want %d", made, want)
	}
}
