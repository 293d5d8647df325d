package notify

import (
	"strings"

	"github.com/aistatus/aistatus/api"
)

// Discord: an execute-webhook body of "content" (up to 2000 characters)
// and "embeds"; an embed's title holds up to 256 characters and its
// description 4096 (testdata/README.md). Those characters are
// counted in UTF-16 units, as discord.js counts them, the stricter reading:
// an emoji is two. All the changes go in one embed: Discord shows only the
// first of several embeds with the same URL, and two changes of one
// service link the same page.
const (
	discordMaxContent     = 2000
	discordMaxTitle       = 256
	discordMaxDescription = 4096
)

type discordEmbed struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Color       int    `json:"color"`
}

// discordMentions is allowed_mentions: with an empty parse list, no text
// in a message (an incident's headline) can ping @everyone or a role.
type discordMentions struct {
	Parse []string `json:"parse"`
}

type discordMessage struct {
	Content         string          `json:"content"`
	Embeds          []discordEmbed  `json:"embeds"`
	AllowedMentions discordMentions `json:"allowed_mentions"`
}

// colours are the embed's side bar, by the worst status.
var colours = map[api.Status]int{
	api.Operational: 0x2EB67D, api.Degraded: 0xECB22E, api.PartialOutage: 0xF2994A, api.MajorOutage: 0xE01E5A,
	api.Maintenance: 0x3498DB, api.Unknown: 0x95A5A6,
}

// discordEscape escapes Discord's markdown in outside text: styles, masked
// links ([text](url)), quotes, headings, and the < of a mention or a
// channel link (<@id>, <#id>); allowed_mentions keeps @everyone quiet.
var discordEscape = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "|", `\|`,
	"[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "#", `\#`).Replace

func (a alert) discord() discordMessage {
	var lines []string
	used := 0
	for i, it := range a.items {
		s := it.status.Emoji() + " **[" + discordEscape(it.subject) + "](" + it.link + ")**" + it.sep() + discordEscape(it.line)
		if it.evidence != "" {
			s += " — " + mdLink(it.evidenceURL, discordEscape(it.evidence))
		}
		s = cutUnits(s, discordMaxDescription/4)
		more := a.more(len(a.items) - i)
		if used+utf16Len(s)+1 > discordMaxDescription-utf16Len(more)-1 && i < len(a.items)-1 {
			lines = append(lines, more)
			break
		}
		lines = append(lines, s)
		used += utf16Len(s) + 1
	}
	// The content and the embed's title are markdown as the description is.
	title := a.title(discordEscape)
	return discordMessage{
		Content: cutUnits(title, discordMaxContent),
		Embeds: []discordEmbed{{Title: cutUnits(title, discordMaxTitle), Description: cutUnits(strings.Join(lines, "\n"), discordMaxDescription),
			URL: a.link, Color: colours[a.worst]}},
		AllowedMentions: discordMentions{Parse: []string{}},
	}
}

// mdLink is text linked to u in Discord's markdown; text alone when there
// is no u.
func mdLink(u, text string) string {
	if u == "" {
		return text
	}
	return "[" + text + "](" + strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(u) + ")"
}
