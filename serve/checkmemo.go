package serve

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
)

// checkMemo holds /check's answers made within one second of the server's
// clock, from one snapshot, for the questions that report nothing: during
// an outage everyone asks the same thing at once (/check?q=claude), and
// one answer a second serves them all. An answer is at most a second old,
// as its timestamp says, where every response may be kept by a shared
// cache for 30 s (snapshot.CacheControl). A question with an error is
// never answered from here, and one the crowd may count (it names its
// caller) starts the memo afresh, so that a surge shows at once.
type checkMemo struct {
	// reports counts the questions the crowd may have counted.
	reports atomic.Int64

	mu   sync.Mutex
	snap *Snapshot
	// second and reports0 are the second and the count of reports the
	// answers held were made in.
	second, reports0 int64
	answers          map[memoKey]memoAnswer
}

// memoKey is a question that reports nothing: error is empty, so the
// caller does not enter the answer, and the crowd only by its count. It is
// the request itself, so that a parameter the engine learns later joins
// the key by itself: the client taken out (it counts only with an error),
// Retry-After by its value, not its address.
type memoKey struct {
	req           check.Request
	retryAfter    int
	hasRetryAfter bool
}

// memoAnswer is an answer's encoding, newline included, and its ETag.
type memoAnswer struct {
	body []byte
	etag string
}

// maxMemoAnswers bounds the answers held for one second: past them, a
// caller asking a new question each time is answered afresh, not stored.
const maxMemoAnswers = 1024

// keyOf is req's key, and false when req reports an error (not memoised).
func keyOf(req check.Request) (memoKey, bool) {
	if req.Error != "" {
		return memoKey{}, false
	}
	k := memoKey{req: req}
	k.req.Client = ""
	if req.RetryAfter != nil {
		k.req.RetryAfter, k.retryAfter, k.hasRetryAfter = nil, *req.RetryAfter, true
	}
	return k, true
}

// answer returns the answer to req held for snap at now, or makes it with
// ask, holding it when req reports nothing. An error of ask is returned
// as it is, and nothing held.
func (m *checkMemo) answer(snap *Snapshot, req check.Request, now time.Time, ask func() (api.CheckDoc, error)) (memoAnswer, error) {
	key, memoise := keyOf(req)
	if !memoise {
		if req.Client != "" {
			m.reports.Add(1) // maybe counted: what is held may no longer be said
		}
		return encodeAnswer(ask)
	}
	second, reports := now.Unix(), m.reports.Load()
	m.mu.Lock()
	if m.snap != snap || m.second != second || m.reports0 != reports {
		m.snap, m.second, m.reports0, m.answers = snap, second, reports, map[memoKey]memoAnswer{}
	}
	a, ok := m.answers[key]
	m.mu.Unlock()
	if ok {
		return a, nil
	}
	a, err := encodeAnswer(ask)
	if err != nil {
		return a, err
	}
	m.mu.Lock()
	if m.snap == snap && m.second == second && m.reports0 == reports && len(m.answers) < maxMemoAnswers {
		m.answers[key] = a
	}
	m.mu.Unlock()
	return a, nil
}

// encodeAnswer is ask's answer encoded as serveJSON sends it.
func encodeAnswer(ask func() (api.CheckDoc, error)) (memoAnswer, error) {
	v, err := ask()
	if err != nil {
		return memoAnswer{}, err
	}
	body, etag, err := encodeJSON(v)
	return memoAnswer{body: body, etag: etag}, err
}
