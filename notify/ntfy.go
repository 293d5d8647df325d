package notify

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/aistatus/aistatus/api"
)

// ntfy: the JSON publish form, posted to the server's root with the topic
// in the body; a message holds at most 4096 bytes (testdata/README.md).
const ntfyMaxMessage = 4096

type ntfyMessage struct {
	Topic    string   `json:"topic"`
	Title    string   `json:"title"`
	Message  string   `json:"message"`
	Priority int      `json:"priority"`
	Tags     []string `json:"tags"`
	Click    string   `json:"click"`
}

// ntfyRoot splits an ntfy topic URL, https://ntfy.sh/<topic> (or under a
// self-hosted server's path), into the server's root and the topic.
func ntfyRoot(raw string) (root, topic string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", err
	}
	dir, topic := "", strings.Trim(u.Path, "/")
	if i := strings.LastIndex(topic, "/"); i >= 0 {
		dir, topic = topic[:i+1], topic[i+1:]
	}
	if topic == "" {
		return "", "", fmt.Errorf("an ntfy URL names its topic: https://ntfy.sh/<topic>")
	}
	u.Path, u.RawPath = "/"+dir, ""
	return u.String(), topic, nil
}

func (a alert) ntfy(topic string) ntfyMessage {
	m := ntfyMessage{Topic: topic, Title: cut(a.title(plain), 250), Click: a.link, Priority: 3, Tags: []string{"warning"}}
	switch a.worst {
	case api.MajorOutage:
		m.Priority, m.Tags = 5, []string{"rotating_light"}
	case api.PartialOutage:
		m.Priority = 4
	case api.Operational:
		m.Tags = []string{"white_check_mark"}
	case api.Maintenance:
		m.Tags = []string{"wrench"}
	}
	var b strings.Builder
	for i, it := range a.items {
		line := it.plainLine() + "\n" + it.link
		more := a.more(len(a.items) - i)
		if b.Len()+len(line)+1 > ntfyMaxMessage-len(more)-1 && i < len(a.items)-1 {
			b.WriteString(more)
			break
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(line)
	}
	m.Message = cutBytes(b.String(), ntfyMaxMessage)
	return m
}
