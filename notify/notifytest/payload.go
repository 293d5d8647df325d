package notifytest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The payload checks below encode each format's documented rules; the
// sources are cited in notify/testdata/README.md. Each accepts the
// format's own documented example (notify/testdata/<kind>-….json), which
// shows the check is not stricter than the format, and refuses a payload
// that breaks one rule, which shows it is not vacuous (notify's
// TestChatPayloadsMatchTheirDocs).

type jsonObject = map[string]any

// only reports the keys of o outside allowed.
func only(o jsonObject, allowed ...string) error {
	for k := range o {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("field %q is not documented", k)
		}
	}
	return nil
}

func runes(v any) int { s, _ := v.(string); return utf8.RuneCountInString(s) }

// units counts v's UTF-16 units, as JavaScript (and discord.js) counts.
func units(v any) int { s, _ := v.(string); return len(utf16.Encode([]rune(s))) }

// Objects is v, a decoded JSON value, as a list of JSON objects; false if
// it is none.
func Objects(v any) ([]map[string]any, bool) {
	list, ok := v.([]any)
	var out []jsonObject
	for _, e := range list {
		o, isObj := e.(jsonObject)
		if !isObj {
			return nil, false
		}
		out = append(out, o)
	}
	return out, ok
}

// CheckPayload checks body as the format of kind, a chat kind of
// notify.Kind: "slack", "discord", "teams" or "ntfy".
func CheckPayload(kind string, body []byte) error {
	if kind == "teams" {
		return checkTeams(body)
	}
	var msg jsonObject
	if err := json.Unmarshal(body, &msg); err != nil {
		return err
	}
	switch kind {
	case "slack":
		return checkSlack(msg)
	case "discord":
		return checkDiscord(msg)
	case "ntfy":
		return checkNtfy(msg)
	}
	return fmt.Errorf("no check for %q", kind)
}

// checkSlack: an incoming webhook's body is the fields of
// IncomingWebhookSendArguments; "text" is the notification's fallback when
// there are blocks; at most 50 blocks, here section blocks as in the
// documented example, each with a text object (mrkdwn or plain_text) of at
// most 3000 characters or fields of at most 2000 each.
func checkSlack(msg jsonObject) error {
	if err := only(msg, "text", "blocks", "attachments", "channel", "username", "icon_emoji", "icon_url",
		"link_names", "unfurl_links", "unfurl_media", "metadata", "mrkdwn", "thread_ts"); err != nil {
		return err
	}
	if runes(msg["text"]) == 0 {
		return fmt.Errorf(`no "text" fallback`)
	}
	blocks, ok := Objects(msg["blocks"])
	if !ok || len(blocks) == 0 || len(blocks) > 50 {
		return fmt.Errorf("%d blocks, want 1 to 50", len(blocks))
	}
	for i, b := range blocks {
		if err := only(b, "type", "text", "block_id", "fields", "accessory"); err != nil || b["type"] != "section" {
			return fmt.Errorf("block %d: %v (type %v)", i, err, b["type"])
		}
		if runes(b["block_id"]) > 255 {
			return fmt.Errorf("block %d: block_id over 255 characters", i)
		}
		texts := []any{b["text"]}
		if fields, ok := b["fields"].([]any); ok {
			texts = fields
		}
		for _, t := range texts {
			to, _ := t.(jsonObject)
			if to == nil || (to["type"] != "mrkdwn" && to["type"] != "plain_text") || runes(to["text"]) == 0 || runes(to["text"]) > 3000 {
				return fmt.Errorf("block %d: text %v, want mrkdwn or plain_text of 1 to 3000 characters", i, to)
			}
		}
	}
	return nil
}

// checkDiscord: the execute-webhook JSON params; content up to 2000
// characters (UTF-16 units, as discord.js counts); up to 10 embeds of the embed structure's fields, a title up
// to 256 characters and a description up to 4096, at most 6000 in all; no
// mention parsed unless allowed.
func checkDiscord(msg jsonObject) error {
	if err := only(msg, "content", "username", "avatar_url", "tts", "embeds", "allowed_mentions", "components",
		"attachments", "flags", "thread_name", "applied_tags", "poll"); err != nil {
		return err
	}
	if units(msg["content"]) > 2000 {
		return fmt.Errorf("content of %d characters", units(msg["content"]))
	}
	embeds, ok := Objects(msg["embeds"])
	if msg["embeds"] != nil && (!ok || len(embeds) > 10) {
		return fmt.Errorf("embeds %v, want up to 10", msg["embeds"])
	}
	if msg["content"] == nil && len(embeds) == 0 {
		return fmt.Errorf("neither content nor embeds")
	}
	total := 0
	for i, e := range embeds {
		if err := only(e, "title", "type", "description", "url", "timestamp", "color", "footer", "image", "thumbnail",
			"video", "provider", "author", "fields", "flags"); err != nil {
			return fmt.Errorf("embed %d: %w", i, err)
		}
		if units(e["title"]) > 256 || units(e["description"]) > 4096 {
			return fmt.Errorf("embed %d: title of %d or description of %d characters", i, units(e["title"]), units(e["description"]))
		}
		if c, ok := e["color"]; ok {
			if f, isNum := c.(float64); !isNum || f != float64(int(f)) {
				return fmt.Errorf("embed %d: color %v is no integer", i, c)
			}
		}
		total += units(e["title"]) + units(e["description"])
	}
	if total > 6000 {
		return fmt.Errorf("embeds of %d characters, over 6000", total)
	}
	if am, ok := msg["allowed_mentions"].(jsonObject); ok {
		parse, _ := am["parse"].([]any)
		for _, p := range parse {
			if p != "roles" && p != "users" && p != "everyone" {
				return fmt.Errorf("allowed_mentions.parse has %v", p)
			}
		}
	}
	return nil
}

// checkTeams: a message (type "message") whose attachments are Adaptive
// Cards (contentType application/vnd.microsoft.card.adaptive, the card in
// "content"); TextBlocks with text, RichTextBlocks of TextRuns with text
// (a run's selectAction an Action.OpenUrl), Action.OpenUrl with a url; at
// most 28 KB.
func checkTeams(body []byte) error {
	if len(body) > 28<<10 {
		return fmt.Errorf("%d bytes, over 28 KB", len(body))
	}
	var msg jsonObject
	if err := json.Unmarshal(body, &msg); err != nil {
		return err
	}
	atts, ok := Objects(msg["attachments"])
	if msg["type"] != "message" || !ok || len(atts) == 0 {
		return fmt.Errorf(`type %v and attachments %v, want "message" with attachments`, msg["type"], msg["attachments"])
	}
	for _, a := range atts {
		card, _ := a["content"].(jsonObject)
		if a["contentType"] != "application/vnd.microsoft.card.adaptive" || card == nil || card["type"] != "AdaptiveCard" || runes(card["version"]) == 0 {
			return fmt.Errorf("attachment %v is no Adaptive Card", a)
		}
		if err := only(card, "$schema", "type", "version", "body", "actions"); err != nil {
			return err
		}
		elements, ok := Objects(card["body"])
		if !ok || len(elements) == 0 {
			return fmt.Errorf("card without a body")
		}
		openURL := func(act jsonObject) error {
			if act["type"] != "Action.OpenUrl" || !strings.HasPrefix(fmt.Sprint(act["url"]), "http") {
				return fmt.Errorf("action %v, want Action.OpenUrl with a url", act)
			}
			return nil
		}
		for _, e := range elements {
			if e["type"] == "RichTextBlock" {
				inlines, ok := Objects(e["inlines"])
				if err := only(e, "type", "inlines", "horizontalAlignment", "spacing", "separator"); err != nil || !ok || len(inlines) == 0 {
					return fmt.Errorf("element %v: %v, want a RichTextBlock with inlines", e, err)
				}
				for _, r := range inlines {
					if err := only(r, "type", "text", "weight", "size", "color", "isSubtle", "italic", "strikethrough", "highlight",
						"underline", "fontType", "selectAction"); err != nil || r["type"] != "TextRun" || runes(r["text"]) == 0 {
						return fmt.Errorf("inline %v: %v, want a TextRun with text", r, err)
					}
					if act, ok := r["selectAction"].(jsonObject); ok {
						if err := openURL(act); err != nil {
							return err
						}
					}
				}
				continue
			}
			if err := only(e, "type", "text", "wrap", "weight", "size", "color", "isSubtle", "maxLines", "spacing", "separator"); err != nil || e["type"] != "TextBlock" || runes(e["text"]) == 0 {
				return fmt.Errorf("element %v: %v, want a TextBlock with text", e, err)
			}
		}
		actions, _ := Objects(card["actions"])
		for _, act := range actions {
			if err := openURL(act); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkNtfy: the JSON publish form's fields; "topic" required; a message
// of at most 4096 bytes; priority 1 to 5; tags a list of strings.
func checkNtfy(msg jsonObject) error {
	if err := only(msg, "topic", "message", "title", "tags", "priority", "actions", "click", "attach", "markdown",
		"icon", "filename", "delay", "email", "call"); err != nil {
		return err
	}
	if runes(msg["topic"]) == 0 {
		return fmt.Errorf("no topic")
	}
	if m, _ := msg["message"].(string); len(m) > 4096 {
		return fmt.Errorf("message of %d bytes", len(m))
	}
	if p, ok := msg["priority"].(float64); ok && (p < 1 || p > 5 || p != float64(int(p))) {
		return fmt.Errorf("priority %v", p)
	}
	if tags, ok := msg["tags"]; ok {
		list, isList := tags.([]any)
		for _, t := range list {
			if _, isString := t.(string); !isString {
				isList = false
			}
		}
		if !isList {
			return fmt.Errorf("tags %v, want a list of strings", tags)
		}
	}
	return nil
}
