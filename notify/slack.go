package notify

import "strings"

// Slack: an incoming webhook takes "text" (the notification's fallback)
// and Block Kit "blocks": at most 50 blocks a message, at most 3000
// characters in a section's text (testdata/README.md).
const (
	slackMaxBlocks      = 50
	slackMaxSectionText = 3000
)

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type slackBlock struct {
	Type string    `json:"type"`
	Text slackText `json:"text"`
}

type slackMessage struct {
	Text   string       `json:"text"`
	Blocks []slackBlock `json:"blocks"`
}

// slackEscape escapes what Slack's mrkdwn reads as markup: &, < and >,
// which make links and mentions (<!channel>, <url|text>). Slack has no
// escape for its bold, italic and strike marks, which only style text.
var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// slackLink is a mrkdwn link; a URL cannot hold "|" or ">" there.
func slackLink(u, text string) string {
	return "<" + strings.NewReplacer("|", "%7C", ">", "%3E", "<", "%3C").Replace(u) + "|" + slackEscape(text) + ">"
}

func (a alert) slack() slackMessage {
	section := func(s string) slackBlock {
		return slackBlock{Type: "section", Text: slackText{Type: "mrkdwn", Text: cut(s, slackMaxSectionText)}}
	}
	// text, the notification's fallback, is mrkdwn as the blocks are: a
	// headline's <!channel> there would ping the channel.
	title := a.title(slackEscape)
	m := slackMessage{Text: cut(title, slackMaxSectionText), Blocks: []slackBlock{section("*" + title + "*")}}
	for i, it := range a.items {
		if len(m.Blocks) == slackMaxBlocks-1 && i < len(a.items)-1 {
			m.Blocks = append(m.Blocks, section(slackEscape(a.more(len(a.items)-i))))
			break
		}
		s := it.status.Emoji() + " *" + slackLink(it.link, it.subject) + "*" + it.sep() + slackEscape(it.line)
		if it.evidence != "" {
			ev := slackEscape(it.evidence)
			if it.evidenceURL != "" {
				ev = slackLink(it.evidenceURL, it.evidence)
			}
			s += "\nEvidence: " + ev
		}
		m.Blocks = append(m.Blocks, section(s))
	}
	return m
}
