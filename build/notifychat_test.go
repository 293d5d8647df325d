package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/rs/zerolog"
)

// The payload checks below encode each format's documented rules; the
// sources are cited in testdata/notify/README.md. Each accepts the
// format's own documented example (testdata/notify/<kind>-….json), which
// shows the check is not stricter than the format, and refuses a payload
// that breaks one rule, which shows it is not vacuous.

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
func units(v any) int { s, _ := v.(string); return utf16Len(s) }

func objects(v any) ([]jsonObject, bool) {
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
	blocks, ok := objects(msg["blocks"])
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
	embeds, ok := objects(msg["embeds"])
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
	atts, ok := objects(msg["attachments"])
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
		elements, ok := objects(card["body"])
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
				inlines, ok := objects(e["inlines"])
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
		actions, _ := objects(card["actions"])
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

// checkPayload checks body as kind's format.
func checkPayload(kind NotifyKind, body []byte) error {
	if kind == NotifyTeams {
		return checkTeams(body)
	}
	var msg jsonObject
	if err := json.Unmarshal(body, &msg); err != nil {
		return err
	}
	switch kind {
	case NotifySlack:
		return checkSlack(msg)
	case NotifyDiscord:
		return checkDiscord(msg)
	case NotifyNtfy:
		return checkNtfy(msg)
	}
	return fmt.Errorf("no check for %q", kind)
}

// sampleChanges are one of each kind of change a chat message tells, with
// outside text that Slack's and Discord's markup would read; the last two
// a status change back to operational and its recovery, told as one.
func sampleChanges() []api.Change {
	inc := &api.Incident{ID: "openai-abc", Service: "openai", Headline: "Elevated errors on <Chat> & *API* @everyone",
		Severity: api.Major, StartedAt: t0, Status: "investigating", Source: api.SourceOfficial,
		URL: "https://status.openai.com/incidents/abc", UpdatedAt: t0}
	resolved := *inc
	end := t0.Add(time.Hour)
	resolved.EndedAt, resolved.Status = &end, "resolved"
	return []api.Change{
		{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: t0, OldStatus: api.Operational, NewStatus: api.MajorOutage},
		{ID: 2, Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: catalog.SurfaceApp, Time: t0, OldStatus: api.Operational, NewStatus: api.PartialOutage},
		{ID: 3, Type: api.ChangeModelStatus, Service: "anthropic", Model: &api.ChangeModel{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5"}, Time: t0, OldStatus: api.Operational, NewStatus: api.Degraded},
		{ID: 4, Type: api.ChangeIncidentOpened, Service: "openai", Time: t0, Incident: inc},
		{ID: 5, Type: api.ChangeIncidentResolved, Service: "openai", Time: end, Incident: &resolved},
		{ID: 6, Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: catalog.SurfaceApp, Time: end, OldStatus: api.PartialOutage, NewStatus: api.Operational},
		{ID: 7, Type: api.ChangeSurfaceRecovered, Service: "anthropic", Surface: catalog.SurfaceApp, Time: end, OldStatus: api.PartialOutage, NewStatus: api.Operational},
	}
}

// floodChanges are 700 outages at once, more than any format holds.
func floodChanges() []api.Change {
	var flood []api.Change
	for i := range 700 {
		flood = append(flood, api.Change{ID: int64(100 + i), Type: api.ChangeStatus, Service: fmt.Sprintf("svc-%d", i),
			Time: t0, OldStatus: api.Operational, NewStatus: api.MajorOutage})
	}
	return flood
}

// wideChanges are 100 models' outages, each named with 1200 emoji: past
// every cap, in runes and more so in UTF-16 units (two an emoji), which
// JavaScript's, and so discord.js's, lengths count.
func wideChanges() []api.Change {
	var wide []api.Change
	for i := range 100 {
		wide = append(wide, api.Change{ID: int64(i), Type: api.ChangeModelStatus, Time: t0, OldStatus: api.Operational,
			NewStatus: api.MajorOutage, Model: &api.ChangeModel{ID: fmt.Sprintf("x/m%d", i), Name: strings.Repeat("🔥", 1200)}})
	}
	return wide
}

// sampleFacts are what a build knows beside sampleChanges.
var sampleFacts = NotifyFacts{Basis: map[string]api.Basis{"openai": api.BasisProbe},
	Outages: map[int64]Outage{7: {Since: t0, Worst: api.PartialOutage}}}

func defaultNames(t *testing.T) map[string]string {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return NotifySubjectNames(cat)
}

// chatURLs are a destination of each chat kind, as their services hand
// them out (the tokens made up).
var chatURLs = map[NotifyKind]string{
	NotifySlack:   "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
	NotifyDiscord: "https://discord.com/api/webhooks/123456789012345678/TOKEN",
	NotifyTeams:   "https://prod-00.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=SIG",
	NotifyNtfy:    "https://ntfy.sh/mytopic",
}

// TestChatPayloadsMatchTheirDocs renders the sample changes, and a flood
// of them, in each chat format: each payload passes the format's
// documented rules (as its documented example does) and, for the sample,
// matches its golden file; breaking one rule fails the check.
func TestChatPayloadsMatchTheirDocs(t *testing.T) {
	t.Parallel()
	names := defaultNames(t)
	flood, wide := floodChanges(), wideChanges()
	tests := []struct {
		kind    NotifyKind
		example string
		// brokenBy breaks one documented rule in a rendered payload.
		brokenBy func(jsonObject)
	}{
		{NotifySlack, "slack-incoming-webhook.json", func(m jsonObject) {
			m["blocks"].([]any)[0].(jsonObject)["text"].(jsonObject)["text"] = strings.Repeat("x", 3001)
		}},
		{NotifyDiscord, "discord-execute-webhook.json", func(m jsonObject) { m["content"] = strings.Repeat("x", 2001) }},
		{NotifyTeams, "teams-workflows-adaptive-card.json", func(m jsonObject) {
			m["attachments"].([]any)[0].(jsonObject)["contentType"] = "application/vnd.microsoft.teams.card.o365connector"
		}},
		{NotifyNtfy, "ntfy-publish-json.json", func(m jsonObject) { m["priority"] = 6 }},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			example, err := os.ReadFile(filepath.Join("testdata", "notify", tt.example))
			if err != nil {
				t.Fatal(err)
			}
			if err := checkPayload(tt.kind, example); err != nil {
				t.Fatalf("the documented example fails the check: %v", err)
			}
			msg, err := newAlert(sampleChanges(), sampleFacts, names, "https://aistatus.example").
				render(tt.kind, chatURLs[tt.kind])
			if err != nil {
				t.Fatal(err)
			}
			if err := checkPayload(tt.kind, msg.body); err != nil {
				t.Errorf("payload: %v\n%s", err, msg.body)
			}
			var pretty bytes.Buffer
			json.Indent(&pretty, msg.body, "", "  ")
			pretty.WriteByte('\n')
			buildtest.Golden(t, "notify/"+string(tt.kind)+".json", pretty.Bytes())

			big, err := newAlert(flood, NotifyFacts{}, names, "https://aistatus.example").render(tt.kind, chatURLs[tt.kind])
			if err != nil {
				t.Fatal(err)
			}
			if err := checkPayload(tt.kind, big.body); err != nil {
				t.Errorf("700 changes: %v", err)
			}
			if !strings.Contains(string(big.body), "more: https://aistatus.example/api/v1/changes") {
				t.Errorf("700 changes: no line says how many were left out")
			}
			for _, set := range [][]api.Change{wide, wide[:1]} {
				msg, err := newAlert(set, NotifyFacts{}, names, "https://aistatus.example").render(tt.kind, chatURLs[tt.kind])
				if err != nil {
					t.Fatal(err)
				}
				if err := checkPayload(tt.kind, msg.body); err != nil {
					t.Errorf("%d changes of long names of emoji: %v", len(set), err)
				}
			}

			var broken jsonObject
			if err := json.Unmarshal(msg.body, &broken); err != nil {
				t.Fatal(err)
			}
			tt.brokenBy(broken)
			body, _ := json.Marshal(broken)
			if checkPayload(tt.kind, body) == nil {
				t.Errorf("a payload breaking a documented rule passes the check")
			}
		})
	}
}

// TestChatPayloadContent: each format carries the short line, the subject,
// the old and new status, the link to the subject's page and the evidence,
// with outside text unable to mention or mark up.
func TestChatPayloadContent(t *testing.T) {
	t.Parallel()
	names := defaultNames(t)
	a := newAlert(sampleChanges()[:1], NotifyFacts{Basis: map[string]api.Basis{"openai": api.BasisProbe}}, names, "https://aistatus.example/")
	if want := "🔴 OpenAI: operational → major outage"; a.title(plain) != want {
		t.Errorf("title %q, want %q", a.title(plain), want)
	}
	for kind := range chatURLs {
		msg, err := a.render(kind, chatURLs[kind])
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"OpenAI", "operational → major outage", "https://aistatus.example/services/openai", "our probes of the API"} {
			if !strings.Contains(string(msg.body), want) {
				t.Errorf("%s: no %q in %s", kind, want, msg.body)
			}
		}
	}
	// A surface's own incident is told as claude.ai's, not Anthropic's.
	login := api.Incident{ID: "anthropic-z", Service: "anthropic", Headline: "claude.ai login errors", Severity: api.Major,
		Status: "investigating", Source: api.SourceOfficial, URL: "https://status.claude.com/incidents/z"}
	surface := newAlert([]api.Change{{Type: api.ChangeIncidentOpened, Service: "anthropic", Surface: catalog.SurfaceApp, Incident: &login}}, NotifyFacts{}, names, "https://aistatus.example")
	if want := " claude.ai (Anthropic): incident opened"; !strings.Contains(surface.title(plain), want) {
		t.Errorf("a surface's incident titled %q, want %q in it", surface.title(plain), want)
	}
	all := newAlert(sampleChanges(), NotifyFacts{}, names, "https://aistatus.example")
	slack, _ := all.render(NotifySlack, chatURLs[NotifySlack])
	if s := string(slack.body); strings.Contains(s, "<Chat>") || !strings.Contains(s, "&lt;Chat&gt; &amp;") {
		t.Errorf("Slack: the headline's markup is not escaped: %s", s)
	}
	discord, _ := all.render(NotifyDiscord, chatURLs[NotifyDiscord])
	if s := string(discord.body); !strings.Contains(s, `"allowed_mentions":{"parse":[]}`) || !strings.Contains(s, `\\*API\\*`) {
		t.Errorf("Discord: mentions not disabled or markdown not escaped: %s", s)
	}
	ntfy, _ := all.render(NotifyNtfy, "https://ntfy.example/base/alerts?auth=TOKEN")
	if ntfy.target != "https://ntfy.example/base/?auth=TOKEN" || !strings.Contains(string(ntfy.body), `"topic":"alerts"`) {
		t.Errorf("ntfy: posted to %s with %s; want the server's root, the topic in the body", ntfy.target, ntfy.body)
	}
}

// hostileChanges carry outside text made to ping a channel and to pass a
// link off as the status page, in an incident's headline and in a model's
// name (a gateway's), and an incident link that is no web page.
func hostileChanges() []api.Change {
	const bait = "<!channel> <https://evil.example|status.anthropic.com> [status.anthropic.com](https://evil.example) <@123> @everyone"
	inc := &api.Incident{ID: "openai-x", Service: "openai", Headline: bait, Severity: api.Critical, Status: "investigating",
		Source: api.SourceOfficial, URL: "https://status.openai.com/incidents/x", StartedAt: t0, UpdatedAt: t0}
	scheme := *inc
	scheme.URL = "javascript:alert(1)"
	return []api.Change{
		{ID: 1, Type: api.ChangeIncidentOpened, Service: "openai", Time: t0, Incident: inc},
		{ID: 2, Type: api.ChangeIncidentUpdated, Service: "openai", Time: t0, Incident: &scheme, Changed: []string{"headline"}},
		{ID: 3, Type: api.ChangeModelStatus, Service: "", Model: &api.ChangeModel{ID: "evil/model", Name: bait}, Time: t0,
			OldStatus: api.Operational, NewStatus: api.MajorOutage},
	}
}

// ourLink reports whether u is a link a message may carry: the site's, or
// the official status page's incident link.
func ourLink(u string) bool {
	return strings.HasPrefix(u, "https://aistatus.example/") || strings.HasPrefix(u, "https://status.openai.com/")
}

var (
	discordEscaped = regexp.MustCompile(`\\.`)
	mdLinkTarget   = regexp.MustCompile(`\]\(([^)]*)\)`)
)

// liveMarkup lists what in body, a message of kind, a chat client would
// read as a link to a place not ourLink's or as a mention.
func liveMarkup(kind NotifyKind, body []byte) []string {
	var msg jsonObject
	if err := json.Unmarshal(body, &msg); err != nil {
		return []string{err.Error()}
	}
	var live []string
	str := func(v any) string { s, _ := v.(string); return s }
	// markdown: Discord's and a TextBlock's; esc says backslash escapes.
	markdown := func(where, s string, esc bool) {
		if esc {
			s = discordEscaped.ReplaceAllString(s, "")
			if strings.Contains(s, "<") {
				live = append(live, where+": an unescaped < (a mention, a channel): "+s)
			}
		}
		for _, m := range mdLinkTarget.FindAllStringSubmatch(s, -1) {
			if !ourLink(m[1]) {
				live = append(live, where+": a link to "+m[1])
			}
		}
	}
	switch kind {
	case NotifySlack:
		texts := []string{str(msg["text"])}
		blocks, _ := objects(msg["blocks"])
		for _, b := range blocks {
			to, _ := b["text"].(jsonObject)
			texts = append(texts, str(to["text"]))
		}
		for _, s := range texts {
			for rest := s; strings.Contains(rest, "<"); {
				_, rest, _ = strings.Cut(rest, "<")
				if inner, _, _ := strings.Cut(rest, ">"); !ourLink(inner) {
					live = append(live, "mrkdwn: <"+inner+">")
				}
			}
		}
	case NotifyDiscord:
		markdown("content", str(msg["content"]), true)
		embeds, _ := objects(msg["embeds"])
		for _, e := range embeds {
			markdown("embed title", str(e["title"]), true)
			markdown("embed description", str(e["description"]), true)
			if u := str(e["url"]); !ourLink(u) {
				live = append(live, "embed url: "+u)
			}
		}
		if am, _ := msg["allowed_mentions"].(jsonObject); am == nil || fmt.Sprint(am["parse"]) != "[]" {
			live = append(live, fmt.Sprintf("allowed_mentions %v, want parse []", msg["allowed_mentions"]))
		}
	case NotifyTeams:
		atts, _ := objects(msg["attachments"])
		for _, a := range atts {
			card, _ := a["content"].(jsonObject)
			elements, _ := objects(card["body"])
			actions, _ := objects(card["actions"])
			for _, e := range elements {
				markdown("TextBlock", str(e["text"]), false)
				inlines, _ := objects(e["inlines"])
				for _, r := range inlines {
					if act, ok := r["selectAction"].(jsonObject); ok {
						actions = append(actions, act)
					}
				}
			}
			for _, act := range actions {
				if !ourLink(str(act["url"])) {
					live = append(live, "Action.OpenUrl to "+str(act["url"]))
				}
			}
		}
	case NotifyNtfy:
		if !ourLink(str(msg["click"])) || msg["markdown"] == true || msg["actions"] != nil {
			live = append(live, fmt.Sprintf("click %v, markdown %v, actions %v", msg["click"], msg["markdown"], msg["actions"]))
		}
	}
	return live
}

// TestChatOutsideTextStaysText: outside text made to ping a channel or
// pass a link off as the status page reaches no format as a live mention
// or link, told alone (its message's title and fallback text) or among
// others; it is still told, as text.
func TestChatOutsideTextStaysText(t *testing.T) {
	t.Parallel()
	names := defaultNames(t)
	changes := hostileChanges()
	sets := map[string][]api.Change{"all": changes}
	for i, c := range changes {
		sets["change "+strconv.Itoa(i+1)+" alone"] = []api.Change{c}
	}
	for name, set := range sets {
		for kind, u := range chatURLs {
			msg, err := newAlert(set, NotifyFacts{}, names, "https://aistatus.example").render(kind, u)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range liveMarkup(kind, msg.body) {
				t.Errorf("%s, %s: %s", name, kind, l)
			}
			if !strings.Contains(string(msg.body), "status.anthropic.com") {
				t.Errorf("%s, %s: the outside text is not told: %s", name, kind, msg.body)
			}
		}
	}
}

// TestDetectNotifyKind: the kind follows from the hosts the services hand
// out webhook URLs on; anything else is a Standard Webhook.
func TestDetectNotifyKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want NotifyKind
	}{
		{"https://hooks.slack.com/services/T0/B0/X", NotifySlack},
		{"https://discord.com/api/webhooks/1/T", NotifyDiscord},
		{"https://discordapp.com/api/webhooks/1/T", NotifyDiscord},
		{"https://canary.discord.com/api/v10/webhooks/1/T", NotifyDiscord},
		{"https://discord.com/channels/1/2", NotifyWebhook},
		{"https://prod-12.westeurope.logic.azure.com:443/workflows/x/triggers/manual/paths/invoke?sig=S", NotifyTeams},
		{"https://default0123.ab.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/x", NotifyTeams},
		{"https://example.webhook.office.com/webhookb2/x", NotifyTeams},
		{"https://ntfy.sh/alerts", NotifyNtfy},
		{"https://ntfy.example/alerts", NotifyWebhook},
		{"https://hooks.example/slack", NotifyWebhook},
		{"://bad", NotifyWebhook},
	}
	for _, tt := range tests {
		if got := DetectNotifyKind(tt.url); got != tt.want {
			t.Errorf("DetectNotifyKind(%s) = %s, want %s", tt.url, got, tt.want)
		}
	}
}

// TestNotifyFilter: which changes pass a destination's filter, for a chat
// destination and a Standard Webhook.
func TestNotifyFilter(t *testing.T) {
	t.Parallel()
	status := func(svc string, old, new api.Status) api.Change {
		return api.Change{Type: api.ChangeStatus, Service: svc, OldStatus: old, NewStatus: new}
	}
	surface := api.Change{Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: catalog.SurfaceApp, OldStatus: api.Operational, NewStatus: api.MajorOutage}
	model := api.Change{Type: api.ChangeModelStatus, Service: "anthropic", Model: &api.ChangeModel{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5"}, OldStatus: api.Operational, NewStatus: api.MajorOutage}
	incident := func(sev api.Severity) api.Change {
		return api.Change{Type: api.ChangeIncidentOpened, Service: "openai", Incident: &api.Incident{Severity: sev}}
	}
	down := status("openai", api.Operational, api.MajorOutage)
	recovered := func(t api.ChangeType, from api.Status) api.Change {
		c := api.Change{Type: t, Service: "anthropic", OldStatus: from, NewStatus: api.Operational}
		if t == api.ChangeSurfaceRecovered {
			c.Surface = catalog.SurfaceApp
		}
		return c
	}
	tests := []struct {
		name   string
		filter NotifyFilter
		change api.Change
		chat   bool
		want   bool
	}{
		{"chat: an outage", NotifyFilter{}, down, true, true},
		{"chat: its recovery", NotifyFilter{}, status("openai", api.MajorOutage, api.Operational), true, true},
		{"chat: a first check is no transition", NotifyFilter{}, status("openai", "", api.MajorOutage), true, false},
		{"webhook: a first check is a change", NotifyFilter{}, status("openai", "", api.Operational), false, true},
		{"chat: unknown and back is below the default", NotifyFilter{}, status("openai", api.Operational, api.Unknown), true, false},
		{"webhook: unknown and back is a change", NotifyFilter{}, status("openai", api.Operational, api.Unknown), false, true},
		{"chat: minStatus operational lets it through", NotifyFilter{MinStatus: api.Operational}, status("openai", api.Unknown, api.Operational), true, true},
		{"minStatus partial_outage: degraded is below", NotifyFilter{MinStatus: api.PartialOutage}, status("openai", api.Operational, api.Degraded), true, false},
		{"minStatus partial_outage: a partial outage", NotifyFilter{MinStatus: api.PartialOutage}, status("openai", api.Degraded, api.PartialOutage), false, true},
		{"services: another service", NotifyFilter{Services: []string{"anthropic"}}, down, true, false},
		{"services: the service", NotifyFilter{Services: []string{"openai"}}, down, true, true},
		{"services: the service's surface", NotifyFilter{Services: []string{"anthropic"}}, surface, true, true},
		{"surfaces: the surface alone", NotifyFilter{Surfaces: []string{"anthropic/app"}}, surface, true, true},
		{"surfaces: not the service's API", NotifyFilter{Surfaces: []string{"anthropic/app"}}, status("anthropic", api.Operational, api.MajorOutage), true, false},
		{"services: not its maker's models", NotifyFilter{Services: []string{"anthropic"}}, model, true, false},
		{"models: the model", NotifyFilter{Models: []string{"anthropic/claude-sonnet-4.5"}}, model, true, true},
		{"minSeverity major: a minor incident", NotifyFilter{MinSeverity: api.Major}, incident(api.Minor), true, false},
		{"minSeverity major: a critical one", NotifyFilter{MinSeverity: api.Major}, incident(api.Critical), true, true},
		{"services: the service's incident", NotifyFilter{Services: []string{"openai"}}, incident(api.Minor), true, true},
		// A recovery is filtered as the status change it follows.
		{"chat: a recovery", NotifyFilter{}, recovered(api.ChangeServiceRecovered, api.Degraded), true, true},
		{"chat: minStatus partial_outage: a recovery from degraded", NotifyFilter{MinStatus: api.PartialOutage},
			recovered(api.ChangeServiceRecovered, api.Degraded), true, false},
		{"webhook: minStatus partial_outage: a recovery from degraded", NotifyFilter{MinStatus: api.PartialOutage},
			recovered(api.ChangeServiceRecovered, api.Degraded), false, false},
		{"minStatus partial_outage: a recovery from a major outage", NotifyFilter{MinStatus: api.PartialOutage},
			recovered(api.ChangeSurfaceRecovered, api.MajorOutage), true, true},
		{"surfaces: the surface's recovery", NotifyFilter{Surfaces: []string{"anthropic/app"}},
			recovered(api.ChangeSurfaceRecovered, api.MajorOutage), true, true},
		{"surfaces: not the service's recovery", NotifyFilter{Surfaces: []string{"anthropic/app"}},
			recovered(api.ChangeServiceRecovered, api.MajorOutage), true, false},
	}
	for _, tt := range tests {
		if got := tt.filter.passes(tt.change, tt.chat); got != tt.want {
			t.Errorf("%s: passes = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestParseNotifyConfig reads a config file; every mistake is reported,
// by the destination's place, never with its URL.
func TestParseNotifyConfig(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SLACK_URL": "https://hooks.slack.com/services/T0/B0/SECRET"}
	getenv := func(k string) string { return env[k] }
	good := `{"destinations": [
		{"urlEnv": "SLACK_URL", "services": ["openai", "anthropic"], "minStatus": "partial_outage"},
		{"url": "https://ntfy.example/SECRETTOPIC", "kind": "ntfy", "surfaces": ["anthropic/app"], "models": ["anthropic/claude-sonnet-4.5"], "minSeverity": "major"},
		{"url": "https://hooks.example/SECRET"}
	]}`
	dests, err := ParseNotifyConfig(strings.NewReader(good), cat, getenv)
	if err != nil {
		t.Fatal(err)
	}
	want := []Destination{
		{URL: env["SLACK_URL"], Kind: NotifySlack, Filter: NotifyFilter{Services: []string{"openai", "anthropic"}, MinStatus: api.PartialOutage}},
		{URL: "https://ntfy.example/SECRETTOPIC", Kind: NotifyNtfy, Filter: NotifyFilter{Surfaces: []string{"anthropic/app"},
			Models: []string{"anthropic/claude-sonnet-4.5"}, MinSeverity: api.Major}},
		{URL: "https://hooks.example/SECRET", Kind: NotifyWebhook},
	}
	if fmt.Sprint(dests) != fmt.Sprint(want) {
		t.Errorf("destinations\n%+v, want\n%+v", dests, want)
	}
	if !NotifyNeedsSecret(nil, dests) || NotifyNeedsSecret([]string{chatURLs[NotifySlack]}, dests[:2]) {
		t.Errorf("NotifyNeedsSecret: a Standard Webhook needs the secret, chat destinations do not")
	}

	bad := []struct {
		name, config, want string
	}{
		{"not JSON", `{`, "notify config: unexpected EOF"},
		{"an unknown field", `{"destinations": [{"url": "https://hooks.slack.com/services/SECRET", "service": ["openai"]}]}`, `unknown field "service"`},
		{"two values", `{"destinations": [{"url": "https://ntfy.sh/SECRET"}]} {}`, "more than one JSON value"},
		{"no destination", `{"destinations": []}`, `no "destinations"`},
		{"neither url nor urlEnv", `{"destinations": [{"kind": "slack"}]}`, `destinations[0]: give one of "url" and "urlEnv"`},
		{"both", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "urlEnv": "SLACK_URL"}]}`, `give one of`},
		{"an unset variable", `{"destinations": [{"urlEnv": "NOPE"}]}`, "NOPE, its urlEnv, is not set"},
		{"not http(s)", `{"destinations": [{"url": "ftp://hooks.example/SECRET"}]}`, "destinations[0]: ftp://hooks.example/…: not an absolute http(s) URL"},
		{"an unknown kind", `{"destinations": [{"url": "https://hooks.example/SECRET", "kind": "telegram"}]}`, `kind "telegram" is not one of webhook, slack, discord, teams, ntfy`},
		{"ntfy without a topic", `{"destinations": [{"url": "https://ntfy.sh/", "kind": "ntfy"}]}`, "names its topic"},
		{"a misspelt service", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "services": ["opneai"]}]}`, `"opneai" is no tracked service`},
		{"a surface without its service", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "surfaces": ["app"]}]}`, `"app" is no surface`},
		{"not a model id", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "models": ["Claude Sonnet"]}]}`, `"Claude Sonnet" is not a model id`},
		{"a bad minStatus", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "minStatus": "down"}]}`, `minStatus: "down"`},
		{"unknown as minStatus", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "minStatus": "unknown"}]}`, `minStatus: "unknown"`},
		{"a bad minSeverity", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "minSeverity": "high"}]}`, `minSeverity: "high"`},
		{"every mistake at once", `{"destinations": [{"url": "https://ntfy.sh/SECRET", "minSeverity": "high"}, {"kind": "x"}]}`, "destinations[1]"},
	}
	for _, tt := range bad {
		_, err := ParseNotifyConfig(strings.NewReader(tt.config), cat, getenv)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: error %v, want one saying %q and no secret", tt.name, err, tt.want)
		}
	}
}

// chatReceiver is a loopback fake of a chat service's webhook: it keeps
// every request it is posted.
type chatReceiver struct {
	*httptest.Server
	status int // what it answers; 0: 204
	mu     sync.Mutex
	posts  []chatPost
}

type chatPost struct {
	// path is the method and the path, with the query if any.
	path, contentType string
	header            http.Header
	body              []byte
}

func newChatReceiver(t *testing.T, status int) *chatReceiver {
	rcv := &chatReceiver{status: status}
	rcv.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rcv.mu.Lock()
		rcv.posts = append(rcv.posts, chatPost{r.Method + " " + r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Clone(), body})
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

func (rcv *chatReceiver) received() []chatPost {
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	return slices.Clone(rcv.posts)
}

// syncLog is a log written by goroutines (the notifier's workers, a
// build's services) while the test reads it.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestChatNotifyBuild builds twice against the fake world, OpenAI going
// into a major outage and Anthropic degraded in the second build: a
// loopback Slack receiver filtered to partial outages of OpenAI and
// Anthropic gets one message, in Slack's shape, of OpenAI alone; a Discord
// receiver filtered to Anthropic gets one, in Discord's shape, of
// Anthropic alone; one filtered to Mistral gets nothing, nor does any for
// the first build (every status is a first check). A failing receiver is
// retried, and no log line holds any URL's token.
func TestChatNotifyBuild(t *testing.T) {
	t.Parallel()
	slack, discord, quiet, failing := newChatReceiver(t, 0), newChatReceiver(t, 0), newChatReceiver(t, 0), newChatReceiver(t, http.StatusBadGateway)
	h := newHarness(t)
	var logs syncLog
	ctx := context.Background()
	n, err := NewNotifier(ctx, NotifierOptions{
		Destinations: []Destination{
			{URL: slack.URL + "/services/T000/B000/SLACKTOKEN", Kind: NotifySlack,
				Filter: NotifyFilter{Services: []string{"openai", "anthropic"}, MinStatus: api.PartialOutage}},
			{URL: discord.URL + "/api/webhooks/123/DISCORDTOKEN", Kind: NotifyDiscord, Filter: NotifyFilter{Services: []string{"anthropic"}}},
			{URL: quiet.URL + "/services/T000/B000/QUIETTOKEN", Kind: NotifySlack, Filter: NotifyFilter{Services: []string{"mistral"}}},
			{URL: failing.URL + "/api/webhooks/456/FAILINGTOKEN", Kind: NotifyDiscord},
		},
		BaseURL: "https://aistatus.example", Names: NotifySubjectNames(h.world.Catalog),
		Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := h.options()
	opts.Notifier = n
	settle := func() {
		// Delivery is asynchronous: wait for the failing receiver's two
		// attempts, which come after nothing else.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if len(failing.received())%2 == 0 && strings.Count(logs.String(), "giving up") == len(failing.received())/2 {
				return
			}
		}
	}
	if _, err := Build(ctx, opts); err != nil {
		t.Fatal(err)
	}
	settle()
	for name, rcv := range map[string]*chatReceiver{"slack": slack, "discord": discord, "quiet": quiet, "failing": failing} {
		if got := rcv.received(); len(got) != 0 {
			t.Errorf("first build: %s got %d posts, want none (first checks are no transitions)", name, len(got))
		}
	}
	h.clock.Advance(time.Minute)
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	h.world.Set("anthropic", func(p *buildtest.Page) { p.Status = api.Degraded })
	if _, err := Build(ctx, opts); err != nil {
		t.Fatal(err)
	}
	drain, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n.Close(drain)

	tests := []struct {
		name       string
		rcv        *chatReceiver
		kind       NotifyKind
		path       string
		want, deny []string
	}{
		{"slack", slack, NotifySlack, "POST /services/T000/B000/SLACKTOKEN",
			[]string{"OpenAI", "operational → major outage", "https://aistatus.example/services/openai", "the official status page"},
			[]string{"Anthropic", "degraded"}},
		{"discord", discord, NotifyDiscord, "POST /api/webhooks/123/DISCORDTOKEN",
			[]string{"Anthropic", "operational → degraded", "https://aistatus.example/services/anthropic"},
			[]string{"OpenAI"}},
	}
	for _, tt := range tests {
		posts := tt.rcv.received()
		if len(posts) != 1 {
			t.Errorf("%s: %d posts, want 1", tt.name, len(posts))
			continue
		}
		p := posts[0]
		if p.path != tt.path || p.contentType != "application/json" {
			t.Errorf("%s: %s with %s, want %s with application/json", tt.name, p.path, p.contentType, tt.path)
		}
		if err := checkPayload(tt.kind, p.body); err != nil {
			t.Errorf("%s: %v: %s", tt.name, err, p.body)
		}
		for _, s := range tt.want {
			if !strings.Contains(string(p.body), s) {
				t.Errorf("%s: no %q in %s", tt.name, s, p.body)
			}
		}
		for _, s := range tt.deny {
			if strings.Contains(string(p.body), s) {
				t.Errorf("%s: %q, which its filter leaves out, in %s", tt.name, s, p.body)
			}
		}
	}
	if got := quiet.received(); len(got) != 0 {
		t.Errorf("the receiver filtered to Mistral got %d posts", len(got))
	}
	if got := failing.received(); len(got) != 2 {
		t.Errorf("the failing receiver got %d posts, want 2 (one message, two attempts)", len(got))
	}
	log := logs.String()
	if !strings.Contains(log, `"receiver":4`) || !strings.Contains(log, `"kind":"discord"`) {
		t.Errorf("the failed delivery is not logged with its receiver's index and kind: %s", log)
	}
	for line := range strings.Lines(log) {
		if strings.Contains(line, "TOKEN") || strings.Contains(line, "/services/") || strings.Contains(line, "/webhooks/") {
			t.Errorf("a log line names a URL's path: %s", line)
		}
	}
}

// TestChatURLStaysSecret: a chat webhook URL is a secret in its path (an
// ntfy topic too); no log line of a chat receiver's failures writes it,
// whatever the answer.
func TestChatURLStaysSecret(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, kind := range []NotifyKind{NotifySlack, NotifyDiscord, NotifyTeams, NotifyNtfy} {
		for _, status := range []int{http.StatusInternalServerError, http.StatusForbidden, http.StatusFound, http.StatusGone, 0} {
			t.Run(string(kind)+"/"+strconv.Itoa(status), func(t *testing.T) {
				t.Parallel()
				base := closed.URL
				if status != 0 {
					rcv, _ := statusServer(t, status)
					base = rcv.URL
				}
				var logs syncLog
				n, err := NewNotifier(context.Background(), NotifierOptions{
					Destinations: []Destination{{URL: base + "/hooks/T0SECRET/B0SECRET?sig=SIGSECRET", Kind: kind}},
					BaseURL:      "https://aistatus.example", Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond,
				})
				if err != nil {
					t.Fatal(err)
				}
				n.Notify([]api.Change{{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: t0, OldStatus: api.Operational, NewStatus: api.MajorOutage}})
				drain, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				n.Close(drain)
				if logs.String() == "" || strings.Contains(logs.String(), "SECRET") {
					t.Errorf("logs: %s", logs.String())
				}
			})
		}
	}
}

// TestNotifyDeliversEveryKind: one change, and a loopback receiver for a
// destination of every kind. Each receiver gets one POST, at its URL
// (query and all; ntfy's at the server's root, the topic in the body), of
// its kind's content type, whose body is its kind's format: a Standard
// Webhook's a CloudEvent signed as the spec says (verified without
// SignWebhook), the others' the chat format of their service. No log line
// names a URL's token.
func TestNotifyDeliversEveryKind(t *testing.T) {
	t.Parallel()
	key, err := ParseWebhookSecret(testWebhookSecret)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind NotifyKind
		// path is the destination's, below its receiver's root; want
		// where the POST arrives.
		path, want, contentType string
	}{
		{NotifyWebhook, "/hooks/WEBHOOKTOKEN", "POST /hooks/WEBHOOKTOKEN", "application/cloudevents+json"},
		{NotifySlack, "/services/T000/B000/SLACKTOKEN", "POST /services/T000/B000/SLACKTOKEN", "application/json"},
		{NotifyDiscord, "/api/webhooks/123/DISCORDTOKEN", "POST /api/webhooks/123/DISCORDTOKEN", "application/json"},
		{NotifyTeams, "/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=TEAMSTOKEN",
			"POST /workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=TEAMSTOKEN", "application/json"},
		{NotifyNtfy, "/base/NTFYTOKEN", "POST /base/", "application/json"},
	}
	receivers := map[NotifyKind]*chatReceiver{}
	var dests []Destination
	for _, tt := range tests {
		receivers[tt.kind] = newChatReceiver(t, 0)
		dests = append(dests, Destination{URL: receivers[tt.kind].URL + tt.path, Kind: tt.kind})
	}
	var logs syncLog
	n, err := NewNotifier(context.Background(), NotifierOptions{
		Destinations: dests, Secret: testWebhookSecret, BaseURL: "https://aistatus.example", Names: defaultNames(t),
		Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	down := api.Change{ID: 7, Type: api.ChangeStatus, Service: "openai", Time: t0, OldStatus: api.Operational, NewStatus: api.MajorOutage}
	n.NotifyCycle([]api.Change{down}, NotifyFacts{Basis: map[string]api.Basis{"openai": api.BasisOfficial}})
	drain, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n.Close(drain)
	for _, tt := range tests {
		posts := receivers[tt.kind].received()
		if len(posts) != 1 {
			t.Errorf("%s: %d posts, want 1", tt.kind, len(posts))
			continue
		}
		p := posts[0]
		if p.path != tt.want || p.contentType != tt.contentType {
			t.Errorf("%s: %s with %s, want %s with %s", tt.kind, p.path, p.contentType, tt.want, tt.contentType)
		}
		if tt.kind == NotifyWebhook {
			ev, err := verifyWebhook(key, p.header, p.body)
			if err != nil {
				t.Errorf("webhook: %v", err)
			}
			if ev.ID != "7" || ev.Type != api.CloudEventTypePrefix+string(api.ChangeStatus) || ev.Data.NewStatus != api.MajorOutage {
				t.Errorf("webhook: event %+v, want change 7, OpenAI's status.changed to major_outage", ev)
			}
			continue
		}
		if err := checkPayload(tt.kind, p.body); err != nil {
			t.Errorf("%s: %v: %s", tt.kind, err, p.body)
		}
		for _, want := range []string{"OpenAI", "operational → major outage", "https://aistatus.example/services/openai"} {
			if !strings.Contains(string(p.body), want) {
				t.Errorf("%s: no %q in %s", tt.kind, want, p.body)
			}
		}
	}
	if p := receivers[NotifyNtfy].received(); len(p) == 1 && !strings.Contains(string(p[0].body), `"topic":"NTFYTOKEN"`) {
		t.Errorf("ntfy: no topic in %s", p[0].body)
	}
	if log := logs.String(); strings.Contains(log, "TOKEN") {
		t.Errorf("a log line names a URL's token: %s", log)
	}
}

// TestChatRecoveryToldOnce: a status change back to operational and the
// recovery logged after it are one line, said for people with how long
// and how bad the outage was; without the outage's start, it is said
// without.
func TestChatRecoveryToldOnce(t *testing.T) {
	t.Parallel()
	names := defaultNames(t)
	back := api.Change{ID: 10, Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: catalog.SurfaceApp,
		Time: t0.Add(42 * time.Minute), OldStatus: api.Unknown, NewStatus: api.Operational}
	rec := back
	rec.ID, rec.Type, rec.OldStatus = 11, api.ChangeSurfaceRecovered, api.PartialOutage
	other := api.Change{ID: 12, Type: api.ChangeStatus, Service: "openai", Time: back.Time, OldStatus: api.MajorOutage, NewStatus: api.Operational}
	outage := Outage{Since: t0, Worst: api.MajorOutage}
	tests := []struct {
		name    string
		changes []api.Change
		facts   NotifyFacts
		want    []string // the items, as plain lines
	}{
		{"with its outage", []api.Change{back, rec}, NotifyFacts{Outages: map[int64]Outage{11: outage}},
			[]string{"✅ claude.ai (Anthropic) is back: operational after 42 min of major outage"}},
		{"its outage unknown", []api.Change{back, rec}, NotifyFacts{},
			[]string{"✅ claude.ai (Anthropic) is back: operational after a partial outage"}},
		{"a status change without its recovery", []api.Change{back, other}, NotifyFacts{},
			[]string{"✅ claude.ai (Anthropic): unknown → operational", "✅ OpenAI: major outage → operational"}},
		{"among others", []api.Change{other, back, rec}, NotifyFacts{Outages: map[int64]Outage{11: {Since: t0.Add(-26 * time.Hour), Worst: api.Degraded}}},
			[]string{"✅ OpenAI: major outage → operational", "✅ claude.ai (Anthropic) is back: operational after 26 h 42 min of partial outage"}},
	}
	for _, tt := range tests {
		a := newAlert(tt.changes, tt.facts, names, "https://aistatus.example")
		var got []string
		for _, it := range a.items {
			got = append(got, it.plainLine())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: items\n%q, want\n%q", tt.name, got, tt.want)
		}
		if len(tt.want) == 1 && a.title(plain) != tt.want[0] {
			t.Errorf("%s: title %q, want %q", tt.name, a.title(plain), tt.want[0])
		}
	}
	for d, want := range map[time.Duration]string{20 * time.Second: "less than a minute", 42*time.Minute + 20*time.Second: "42 min",
		2 * time.Hour: "2 h", 47*time.Hour + 59*time.Minute: "47 h 59 min", 50 * time.Hour: "2 d 2 h", 72 * time.Hour: "3 d"} {
		if got := spellDuration(d); got != want {
			t.Errorf("spellDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestEndedOutage: the outage a recovery ends begins at its subject's
// first change into degraded or worse of the stretch, an unknown before
// it not counted, and is as bad as the worst of it; the log must reach
// its start.
func TestEndedOutage(t *testing.T) {
	t.Parallel()
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	step := func(min int, old, new api.Status) api.Change {
		return api.Change{Type: api.ChangeStatus, Service: "openai", Time: at(min), OldStatus: old, NewStatus: new}
	}
	elsewhere := api.Change{Type: api.ChangeStatus, Service: "anthropic", Time: at(1), OldStatus: api.Operational, NewStatus: api.MajorOutage}
	surface := api.Change{Type: api.ChangeSurfaceStatus, Service: "openai", Surface: catalog.SurfaceApp, Time: at(2), OldStatus: api.Operational, NewStatus: api.MajorOutage}
	rec := func(min int, from api.Status) api.Change {
		return api.Change{Type: api.ChangeServiceRecovered, Service: "openai", Time: at(min), OldStatus: from, NewStatus: api.Operational}
	}
	tests := []struct {
		name string
		log  []api.Change
		rec  api.Change
		want Outage
		ok   bool
	}{
		{"one outage", []api.Change{step(0, "", api.Operational), step(10, api.Operational, api.MajorOutage), elsewhere, surface,
			step(52, api.MajorOutage, api.Operational)}, rec(52, api.MajorOutage), Outage{at(10), api.MajorOutage}, true},
		{"through unknown, worse then better", []api.Change{step(0, api.Maintenance, api.Unknown), step(5, api.Unknown, api.Degraded),
			step(9, api.Degraded, api.MajorOutage), step(20, api.MajorOutage, api.Unknown), step(30, api.Unknown, api.PartialOutage),
			step(40, api.PartialOutage, api.Operational)}, rec(40, api.PartialOutage), Outage{at(5), api.MajorOutage}, true},
		{"from a first check", []api.Change{step(3, "", api.Degraded), step(9, api.Degraded, api.Operational)},
			rec(9, api.Degraded), Outage{at(3), api.Degraded}, true},
		{"its start pruned", []api.Change{step(20, api.MajorOutage, api.Unknown), step(30, api.Unknown, api.Operational)},
			rec(30, api.MajorOutage), Outage{}, false},
		{"no recovery", []api.Change{step(10, api.Operational, api.MajorOutage)}, step(20, api.MajorOutage, api.Operational), Outage{}, false},
	}
	for _, tt := range tests {
		got, ok := endedOutage(tt.log, tt.rec)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestChatRecoveryBuild builds against the fake world: OpenAI falls into a
// major outage and Anthropic is degraded, then both are back 42 minutes
// later. Every chat kind filtered to OpenAI hears of the recovery once, in
// words, with its length; one filtered to partial outages of Anthropic
// hears nothing of the degraded spell nor of its end.
func TestChatRecoveryBuild(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receivers := map[NotifyKind]*chatReceiver{}
	var dests []Destination
	for _, kind := range []NotifyKind{NotifySlack, NotifyDiscord, NotifyTeams, NotifyNtfy} {
		receivers[kind] = newChatReceiver(t, 0)
		dests = append(dests, Destination{URL: receivers[kind].URL + "/hooks/TOKEN", Kind: kind, Filter: NotifyFilter{Services: []string{"openai"}}})
	}
	quiet := newChatReceiver(t, 0)
	dests = append(dests, Destination{URL: quiet.URL + "/hooks/TOKEN", Kind: NotifySlack,
		Filter: NotifyFilter{Services: []string{"anthropic"}, MinStatus: api.PartialOutage}})
	var logs syncLog
	ctx := context.Background()
	n, err := NewNotifier(ctx, NotifierOptions{Destinations: dests, BaseURL: "https://aistatus.example",
		Names: NotifySubjectNames(h.world.Catalog), Log: zerolog.New(&logs), Attempts: 2, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	opts := h.options()
	opts.Notifier = n
	var changes []api.Change
	build := func() {
		res, err := Build(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, res.Changes...)
	}
	build()
	h.clock.Advance(time.Minute)
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	h.world.Set("anthropic", func(p *buildtest.Page) { p.Status = api.Degraded })
	build()
	h.clock.Advance(42 * time.Minute)
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.Operational })
	h.world.Set("anthropic", func(p *buildtest.Page) { p.Status = api.Operational })
	build()
	drain, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n.Close(drain)
	var types []api.ChangeType
	for _, c := range changes {
		if c.Service == "openai" && c.Surface == "" && c.Model == nil {
			types = append(types, c.Type)
		}
	}
	if !slices.Contains(types, api.ChangeServiceRecovered) {
		t.Fatalf("OpenAI's changes %v have no recovery: the test's world did not recover", types)
	}
	for kind, rcv := range receivers {
		posts := rcv.received()
		if len(posts) != 2 {
			t.Errorf("%s: %d posts, want 2 (the outage, the recovery)", kind, len(posts))
			continue
		}
		if err := checkPayload(kind, posts[1].body); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
		body := string(posts[1].body)
		if !strings.Contains(body, "is back: operational after 42 min of major outage") {
			t.Errorf("%s: the recovery is not told in words: %s", kind, body)
		}
		for _, deny := range []string{"recovered", "→", "❔", "changes:"} {
			if strings.Contains(body, deny) {
				t.Errorf("%s: %q in the recovery's message (an event type, its status change, or more than one line): %s", kind, deny, body)
			}
		}
	}
	if got := quiet.received(); len(got) != 0 {
		t.Errorf("the receiver of Anthropic's partial outages got %d posts: %s", len(got), got[0].body)
	}
}

// chatModules is the node_modules folder of the chat services' libraries
// pinned by .ci/chat: $AISTATUS_CHAT_NODE_MODULES, else where .ci/run
// installs them.
func chatModules() string {
	if dir := os.Getenv("AISTATUS_CHAT_NODE_MODULES"); dir != "" {
		return dir
	}
	cache, _ := os.UserCacheDir()
	return filepath.Join(cache, "aistatus-ci", "chat", "node_modules")
}

// TestChatLibraries validates chat messages with each chat service's own
// library (testdata/notify/validate.mjs says how): Adaptive Cards' parser
// for Teams, discord.js's builders and Discord's API types, Slack's Block
// Kit types and limits. It validates the goldens, the services' documented
// examples, and messages of a flood of 700 changes, of outside text made
// to mislead and of each change alone; a message breaking one rule of
// each library fails, which shows the check is not vacuous. It skips,
// saying why, without node or the libraries.
func TestChatLibraries(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node: the chat libraries' check needs Node.js and npm (.ci/run installs the libraries, .ci/chat)")
	}
	modules := chatModules()
	for _, pkg := range []string{"adaptivecards", "@discordjs/builders", "@slack/types", "typescript"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			t.Skipf("no %s in %s: .ci/run installs the chat libraries (.ci/chat), or set AISTATUS_CHAT_NODE_MODULES", pkg, modules)
		}
	}
	names := defaultNames(t)
	wide := wideChanges()
	sets := map[string][]api.Change{"flood": floodChanges(), "hostile": hostileChanges(), "wide": wide, "wide-alone": wide[:1]}
	for i, c := range append(sampleChanges(), hostileChanges()...) {
		sets["alone-"+strconv.Itoa(i)] = []api.Change{c}
	}
	dir := t.TempDir()
	valid := map[string]bool{} // each file, and whether it should pass
	examples := map[NotifyKind]string{NotifySlack: "slack-incoming-webhook.json", NotifyDiscord: "discord-execute-webhook.json",
		NotifyTeams: "teams-workflows-adaptive-card.json"}
	// breaks are messages breaking one rule of a library, from the golden.
	breaks := map[NotifyKind]map[string]func(jsonObject){
		NotifySlack: {
			"limit": func(m jsonObject) {
				m["blocks"].([]any)[0].(jsonObject)["text"].(jsonObject)["text"] = strings.Repeat("x", 3001)
			},
			"type": func(m jsonObject) { m["blocks"].([]any)[0].(jsonObject)["text"].(jsonObject)["type"] = "markdown" },
		},
		NotifyDiscord: {
			"builder": func(m jsonObject) { m["embeds"].([]any)[0].(jsonObject)["title"] = strings.Repeat("x", 257) },
			"type":    func(m jsonObject) { m["allowed_mentions"] = jsonObject{"parse": []any{"channel"}} },
		},
		NotifyTeams: {
			"value":   func(m jsonObject) { teamsRuns(m)[0]["size"] = "Huge" },
			"unknown": func(m jsonObject) { teamsRuns(m)[0]["colour"] = "attention" },
		},
	}
	for kind, example := range examples {
		golden := filepath.Join("testdata", "golden", "notify", string(kind)+".json")
		valid[golden], valid[filepath.Join("testdata", "notify", example)] = true, true
		for name, set := range sets {
			msg, err := newAlert(set, sampleFacts, names, "https://aistatus.example").render(kind, chatURLs[kind])
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, string(kind)+"."+name+".json")
			if err := os.WriteFile(file, msg.body, 0o644); err != nil {
				t.Fatal(err)
			}
			valid[file] = true
		}
		for name, brk := range breaks[kind] {
			var m jsonObject
			b, err := os.ReadFile(golden)
			if err == nil {
				err = json.Unmarshal(b, &m)
			}
			if err != nil {
				t.Fatal(err)
			}
			brk(m)
			b, _ = json.Marshal(m)
			file := filepath.Join(dir, string(kind)+".broken-"+name+".json")
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			valid[file] = false
		}
	}
	args := []string{filepath.Join("testdata", "notify", "validate.mjs"), modules}
	for file := range valid {
		args = append(args, file)
	}
	out, err := exec.Command(node, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("validate.mjs: %v\n%s", err, out)
	}
	judged := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		verdict, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		file, why, _ := strings.Cut(rest, ": ")
		want, ok := valid[file]
		if !ok || (verdict != "ok" && verdict != "FAIL") {
			t.Errorf("validate.mjs said %q", line)
			continue
		}
		judged[file] = true
		switch {
		case want && verdict != "ok":
			t.Errorf("%s: the library refuses it: %s", file, why)
		case !want && verdict == "ok":
			t.Errorf("%s breaks a rule, and the library accepts it", file)
		}
	}
	for file := range valid {
		if !judged[file] {
			t.Errorf("%s: no verdict in\n%s", file, out)
		}
	}
}

// teamsRuns are the TextRuns of a Teams message's card.
func teamsRuns(m jsonObject) []jsonObject {
	card := m["attachments"].([]any)[0].(jsonObject)["content"].(jsonObject)
	var runs []jsonObject
	for _, e := range card["body"].([]any) {
		if inlines, ok := e.(jsonObject)["inlines"].([]any); ok {
			for _, r := range inlines {
				runs = append(runs, r.(jsonObject))
			}
		}
	}
	return runs
}
