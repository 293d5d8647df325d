// Package notifytest holds loopback receivers of notifications and the chat
// formats' documented rules, for the tests of notify and of the packages
// that run it (build, cmd/aistatus). It imports nothing of notify, whose
// own tests use it.
package notifytest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// Secret is the Standard Webhooks signing secret of the tests: the
// specification's example.
const Secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// WebhookReceiver verifies deliveries as the Standard Webhooks reference
// does, independently of notify.SignWebhook, and keeps the CloudEvents it
// accepted (Events) and why it refused the others (Refused).
type WebhookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	events []api.CloudEvent
	bad    []string
}

// NewWebhookReceiver starts a receiver of webhooks signed with Secret,
// closed when the test ends.
func NewWebhookReceiver(t *testing.T) *WebhookReceiver {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(Secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	rcv := &WebhookReceiver{}
	rcv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := VerifyWebhook(key, r.Header, body)
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		if err != nil {
			rcv.bad = append(rcv.bad, err.Error())
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		rcv.events = append(rcv.events, ev)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	return rcv
}

// Events are the CloudEvents the receiver accepted, in order.
func (rcv *WebhookReceiver) Events() []api.CloudEvent {
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	return slices.Clone(rcv.events)
}

// Refused says why the receiver refused each delivery it did not accept.
func (rcv *WebhookReceiver) Refused() []string {
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	return slices.Clone(rcv.bad)
}

// VerifyWebhook checks a delivery as the Standard Webhooks reference does,
// independently of notify.SignWebhook: webhook-signature holds, among its
// space-separated signatures, "v1," + base64(HMAC-SHA256(key, webhook-id
// + "." + webhook-timestamp + "." + body)); the timestamp is within five
// minutes of now; the body is a CloudEvent whose id is the webhook-id.
func VerifyWebhook(key []byte, h http.Header, body []byte) (api.CloudEvent, error) {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	sec, err := strconv.ParseInt(ts, 10, 64)
	ok := err == nil && time.Since(time.Unix(sec, 0)).Abs() < 5*time.Minute
	signed := false
	for sig := range strings.FieldsSeq(sigs) {
		signed = signed || hmac.Equal([]byte(sig), []byte(want))
	}
	var ev api.CloudEvent
	if !ok || !signed || json.Unmarshal(body, &ev) != nil || ev.ID != id || h.Get("Content-Type") != "application/cloudevents+json" {
		return ev, fmt.Errorf("id %q ts %q sig %q content type %q body %s", id, ts, sigs, h.Get("Content-Type"), body)
	}
	return ev, nil
}

// StatusServer answers every request with status and counts them.
func StatusServer(t *testing.T, status int) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// ChatReceiver is a loopback fake of a chat service's webhook: it keeps
// every request it is posted.
type ChatReceiver struct {
	*httptest.Server
	status int // what it answers; 0: 204
	mu     sync.Mutex
	posts  []Post
}

// Post is one request a ChatReceiver was posted.
type Post struct {
	// Path is the method and the path, with the query if any.
	Path, ContentType string
	Header            http.Header
	Body              []byte
}

// NewChatReceiver starts a receiver answering status (0: 204 No Content),
// closed when the test ends.
func NewChatReceiver(t *testing.T, status int) *ChatReceiver {
	rcv := &ChatReceiver{status: status}
	rcv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rcv.mu.Lock()
		rcv.posts = append(rcv.posts, Post{r.Method + " " + r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Clone(), body})
		rcv.mu.Unlock()
		if rcv.status != 0 {
			w.WriteHeader(rcv.status)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rcv.Close)
	return rcv
}

// Received are the requests the receiver was posted, in order.
func (rcv *ChatReceiver) Received() []Post {
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	return slices.Clone(rcv.posts)
}
