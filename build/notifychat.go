package build

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
)

// NotifyKind is the payload format a notify destination takes.
type NotifyKind string

// The kinds of destination. A Standard Webhook gets one signed CloudEvent
// per change; the others are chat and push services, which get one message
// per build in their own documented format (docs/operations.md).
const (
	NotifyWebhook NotifyKind = "webhook"
	NotifySlack   NotifyKind = "slack"
	NotifyDiscord NotifyKind = "discord"
	NotifyTeams   NotifyKind = "teams"
	NotifyNtfy    NotifyKind = "ntfy"
)

// NotifyKinds lists every kind, as a config file names them.
var NotifyKinds = []NotifyKind{NotifyWebhook, NotifySlack, NotifyDiscord, NotifyTeams, NotifyNtfy}

// Valid reports whether k is one of NotifyKinds.
func (k NotifyKind) Valid() bool { return slices.Contains(NotifyKinds, k) }

// chat reports whether k gets one coalesced message per build rather than
// one signed event per change.
func (k NotifyKind) chat() bool { return k != NotifyWebhook }

// DetectNotifyKind is the kind of a destination given by its URL alone:
// the hosts Slack, Discord, Microsoft Teams Workflows and ntfy.sh hand out
// webhook URLs on. Any other URL, a self-hosted ntfy server included, is a
// Standard Webhook unless a config file names its kind. An unparsable URL
// is a Standard Webhook too, refused later with the error that says why.
func DetectNotifyKind(raw string) NotifyKind {
	u, err := url.Parse(raw)
	if err != nil {
		return NotifyWebhook
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "hooks.slack.com" || host == "hooks.slack-gov.com":
		return NotifySlack
	case (host == "discord.com" || host == "discordapp.com" || strings.HasSuffix(host, ".discord.com")) &&
		strings.HasPrefix(u.Path, "/api/") && strings.Contains(u.Path, "/webhooks/"):
		return NotifyDiscord
	case strings.HasSuffix(host, ".logic.azure.com") || strings.HasSuffix(host, ".api.powerplatform.com") ||
		strings.HasSuffix(host, ".webhook.office.com"):
		return NotifyTeams
	case host == "ntfy.sh":
		return NotifyNtfy
	}
	return NotifyWebhook
}

// NotifyFilter chooses the changes a destination is sent. Its zero value
// lets every change through, but for a chat destination's default minimum
// status (DefaultChatMinStatus).
type NotifyFilter struct {
	// Services are slugs: the service's API status, its surfaces and its
	// incidents. With Surfaces and Models empty too, every subject passes.
	Services []string `json:"services,omitempty"`
	// Surfaces are "<slug>/<surface>" ("anthropic/app"), alone.
	Surfaces []string `json:"surfaces,omitempty"`
	// Models are watched model ids ("anthropic/claude-sonnet-4.5").
	Models []string `json:"models,omitempty"`
	// MinStatus is the least bad status a status change must leave or
	// reach to be sent: "partial_outage" sends a fall into a partial or
	// major outage and the recovery from it, not a degraded spell.
	MinStatus api.Status `json:"minStatus,omitempty"`
	// MinSeverity is the least severe incident whose changes are sent.
	MinSeverity api.Severity `json:"minSeverity,omitempty"`
}

// DefaultChatMinStatus is a chat destination's MinStatus when none is
// given: a status page going unknown and back (a feed that failed once)
// is not worth a message in a channel people read.
const DefaultChatMinStatus = api.Degraded

// passes reports whether c is for a destination with this filter. A chat
// destination is not sent a service's or surface's first check (a status
// with no old one): that is aistatus starting to watch, not a transition.
func (f NotifyFilter) passes(c api.Change, chat bool) bool {
	if len(f.Services)+len(f.Surfaces)+len(f.Models) > 0 && !f.names(c) {
		return false
	}
	switch c.Type {
	case api.ChangeStatus, api.ChangeSurfaceStatus, api.ChangeModelStatus,
		// A recovery is filtered as the status change it follows: its old
		// status is the outage it ends.
		api.ChangeServiceRecovered, api.ChangeSurfaceRecovered, api.ChangeModelRecovered:
		if chat && c.OldStatus == "" {
			return false
		}
		least := f.MinStatus
		if least == "" && chat {
			least = DefaultChatMinStatus
		}
		return least == "" || atLeast(c.OldStatus, least) || atLeast(c.NewStatus, least)
	case api.ChangeIncidentOpened, api.ChangeIncidentUpdated, api.ChangeIncidentResolved:
		if f.MinSeverity == "" || c.Incident == nil {
			return true
		}
		return slices.Index(api.Severities, c.Incident.Severity) >= slices.Index(api.Severities, f.MinSeverity)
	}
	return true
}

// names reports whether the filter's subjects name what c is about.
func (f NotifyFilter) names(c api.Change) bool {
	switch {
	case c.Model != nil:
		return slices.Contains(f.Models, c.Model.ID)
	case c.Surface != "":
		return slices.Contains(f.Surfaces, c.Service+"/"+string(c.Surface)) || slices.Contains(f.Services, c.Service)
	}
	return slices.Contains(f.Services, c.Service)
}

// atLeast reports whether s is least or worse. Unknown is below every
// known status, as api.Worse has it.
func atLeast(s, least api.Status) bool {
	return s.Valid() && api.Worse(least, s) == s
}

// NotifySubjectNames are the names a chat message gives the subjects of
// cat's changes (api.Change.Subject): "Anthropic", "claude.ai (Anthropic)";
// a model's is its change's own, "Claude Sonnet 4.5 (model)".
func NotifySubjectNames(cat catalog.Catalog) map[string]string {
	names := map[string]string{}
	for _, svc := range cat.Services {
		names[svc.Slug] = svc.Name
		for _, sf := range svc.Surfaces {
			names[svc.Slug+"/"+string(sf.ID)] = sf.Name + " (" + svc.Name + ")"
		}
	}
	return names
}

// alertItem is one change as a chat message tells it.
type alertItem struct {
	subject string // the subject's name
	// line says what happened: "operational → major outage", "incident
	// opened: Elevated errors (major)"; after the subject and ": ", or a
	// space when it goes on from the subject as a sentence ("is back: …").
	line     string
	sentence bool
	// status is how things stand after the change, for its marker and
	// the message's urgency.
	status api.Status
	// evidence is what the change rests on ("our probes"), "" when the
	// change does not say; evidenceURL the incident's page, if any.
	evidence, evidenceURL string
	link                  string // the subject's page on the site
}

// alert is one build's message for one destination. Its items hold
// outside text (a provider's incident headlines, a gateway's model names)
// as it came: each format escapes it for its own markup.
type alert struct {
	items []alertItem
	link  string // where the message as a whole points
	// changes is the change log on the site, for what a capped message
	// leaves out.
	changes string
	worst   api.Status
}

// statusWords are the statuses as a sentence says them.
func statusWords(s api.Status) string {
	if s == "" {
		return "no status"
	}
	return strings.ReplaceAll(string(s), "_", " ")
}

// markers are what a line starts with, so that a glance tells bad from good.
var markers = map[api.Status]string{
	api.Operational: "✅", api.Degraded: "🟡", api.PartialOutage: "🟠", api.MajorOutage: "🔴",
	api.Maintenance: "🔧", api.Unknown: "❔",
}

func marker(s api.Status) string {
	if m, ok := markers[s]; ok {
		return m
	}
	return "❔"
}

// basisWords are the evidence of a status, in words.
var basisWords = map[api.Basis]string{
	api.BasisOfficial: "the official status page",
	api.BasisProbe:    "our probes of the API",
	api.BasisMeasured: "our measured completions",
}

// severityStatus is the status an open incident of each severity stands
// for, for its marker and the message's urgency.
var severityStatus = map[api.Severity]api.Status{api.Minor: api.Degraded, api.Major: api.PartialOutage, api.Critical: api.MajorOutage}

// sep is what comes between the item's subject and its line.
func (it alertItem) sep() string {
	if it.sentence {
		return " "
	}
	return ": "
}

// recoveryKey names the recovery of c's subject that a status change c
// may be followed by (Change.Recovery).
func recoveryKey(t api.ChangeType, c api.Change) string { return string(t) + " " + c.Subject() }

// newAlert tells changes as one message, with facts (each service's basis,
// the outages its recoveries end); names are the subjects' names
// (NotifySubjectNames). A status change back to operational whose
// recovery follows it is told once, as the recovery: "claude.ai is back".
func newAlert(changes []api.Change, facts NotifyFacts, names map[string]string, baseURL string) alert {
	base := strings.TrimRight(baseURL, "/")
	a := alert{link: base + "/", changes: base + snapshot.PathChanges, worst: api.Unknown}
	recoveries := map[string]bool{}
	for _, c := range changes {
		recoveries[recoveryKey(c.Type, c)] = true
	}
	for _, c := range changes {
		if r, ok := c.Type.Recovery(); ok && c.NewStatus == api.Operational && recoveries[recoveryKey(r, c)] {
			continue
		}
		it := alertItem{subject: names[c.Subject()], link: base + "/services/" + url.PathEscape(c.Service)}
		if it.subject == "" && c.Model != nil {
			// A model's name comes with its change: the watched models
			// change by themselves, the catalog pins only some.
			it.subject = cmp.Or(c.Model.Name, c.Model.ID) + " (model)"
		}
		if it.subject == "" {
			it.subject = strings.TrimPrefix(c.Subject(), api.ModelSubjectPrefix)
		}
		switch c.Type {
		case api.ChangeStatus, api.ChangeSurfaceStatus, api.ChangeModelStatus,
			api.ChangeServiceRecovered, api.ChangeSurfaceRecovered, api.ChangeModelRecovered:
			it.line, it.status = statusWords(c.OldStatus)+" → "+statusWords(c.NewStatus), c.NewStatus
			if c.Type == api.ChangeStatus || c.Type == api.ChangeServiceRecovered {
				it.evidence = basisWords[facts.Basis[c.Service]]
			}
			if c.Model != nil {
				it.link = base + strings.NewReplacer(snapshot.AuthorParam+"/"+snapshot.ModelNameParam, c.Model.ID).Replace(snapshot.PathModel)
			}
			if _, isStatus := c.Type.Recovery(); !isStatus { // a *.recovered
				o, known := facts.Outages[c.ID]
				it.line, it.sentence = backLine(c, o, known), true
			}
		case api.ChangeIncidentOpened, api.ChangeIncidentUpdated, api.ChangeIncidentResolved:
			it.line, it.status = incidentLine(c)
			if inc := c.Incident; inc != nil {
				it.evidence = "our probes of the API"
				if inc.Source == api.SourceOfficial {
					it.evidence, it.evidenceURL = "the official status page", webURL(inc.URL)
				}
			}
		default:
			it.line, it.status = string(c.Type), api.Unknown
		}
		a.worst = api.Worse(a.worst, it.status)
		a.items = append(a.items, it)
	}
	if len(a.items) == 1 {
		a.link = a.items[0].link
	}
	return a
}

// title is the message's heading with its outside text passed through
// esc, the escaping of the format's markup (plain for none): one change's
// line, or how many changes there are and of what.
func (a alert) title(esc func(string) string) string {
	switch len(a.items) {
	case 0:
		return ""
	case 1:
		it := a.items[0]
		return marker(it.status) + " " + esc(it.subject) + it.sep() + esc(it.line)
	}
	var subjects []string
	for _, it := range a.items {
		if !slices.Contains(subjects, it.subject) {
			subjects = append(subjects, it.subject)
		}
	}
	named := esc(strings.Join(subjects[:min(3, len(subjects))], ", "))
	if len(subjects) > 3 {
		named += fmt.Sprintf(" and %d more", len(subjects)-3)
	}
	return fmt.Sprintf("%s %d changes: %s", marker(a.worst), len(a.items), named)
}

// plain is the escaping of a format with no markup: none.
func plain(s string) string { return s }

// webURL is u when it is an absolute http(s) URL, else "": a feed's
// incident link is linked only if it leads to a web page.
func webURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return u
}

// backLine tells a recovery, c, of the outage o (if known): "is back:
// operational after 42 min of major outage".
func backLine(c api.Change, o Outage, known bool) string {
	worst := c.OldStatus
	if known {
		worst = api.Worse(worst, o.Worst)
	}
	what := outageWords[worst]
	if what == "" {
		what = statusWords(worst)
	}
	if !known || o.Since.IsZero() || c.Time.Before(o.Since) {
		return "is back: " + statusWords(c.NewStatus) + " after " + what
	}
	return "is back: " + statusWords(c.NewStatus) + " after " + spellDuration(c.Time.Sub(o.Since)) + " of " + strings.TrimPrefix(what, "a ")
}

// outageWords are the statuses a recovery ends, as "after …" says them.
var outageWords = map[api.Status]string{
	api.Degraded: "degraded service", api.PartialOutage: "a partial outage", api.MajorOutage: "a major outage",
}

// spellDuration says d for people, to the minute: "42 min", "3 h 5 min",
// "2 d 4 h".
func spellDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
	days, h := int(d.Hours())/24, int(d.Hours())%24
	if h == 0 {
		return fmt.Sprintf("%d d", days)
	}
	return fmt.Sprintf("%d d %d h", days, h)
}

// incidentLine tells an incident change, and the status it stands for.
func incidentLine(c api.Change) (string, api.Status) {
	inc := c.Incident
	if inc == nil {
		return strings.ReplaceAll(string(c.Type), ".", " "), api.Unknown
	}
	switch c.Type {
	case api.ChangeIncidentResolved:
		return "incident resolved: " + inc.Headline, api.Operational
	case api.ChangeIncidentUpdated:
		what := "incident updated"
		if len(c.Changed) > 0 {
			what += " (" + strings.Join(c.Changed, ", ") + ")"
		}
		return fmt.Sprintf("%s: %s (%s, %s)", what, inc.Headline, inc.Severity, inc.Status), severityStatus[inc.Severity]
	}
	return fmt.Sprintf("incident opened: %s (%s)", inc.Headline, inc.Severity), severityStatus[inc.Severity]
}

// plainLine is an item as plain text, for ntfy and the fallbacks.
func (it alertItem) plainLine() string {
	s := marker(it.status) + " " + it.subject + it.sep() + it.line
	if it.evidence != "" {
		s += " — " + it.evidence
	}
	return s
}

// cut shortens s to at most n runes, marking the cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// utf16Len is s's length in UTF-16 code units, as JavaScript counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// cutUnits shortens s to at most n UTF-16 code units, on a rune boundary,
// marking the cut with "…" (one unit).
func cutUnits(s string, n int) string {
	if utf16Len(s) <= n {
		return s
	}
	used := 0
	for i, r := range s {
		if used+utf16.RuneLen(r) > n-1 {
			return s[:i] + "…"
		}
		used += utf16.RuneLen(r)
	}
	return s
}

// cutBytes shortens s to at most n bytes, on a rune boundary, marking the
// cut with "…".
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// more is the line that stands for the items a capped message leaves out.
func (a alert) more(left int) string {
	return fmt.Sprintf("…and %d more: %s", left, a.changes)
}

// chatMessage is a rendered message: the body, its media type and the URL
// it is posted to (ntfy's JSON form goes to the server's root, not the
// topic's URL).
type chatMessage struct {
	body        []byte
	contentType string
	target      string
}

// render encodes a in kind's payload format for the destination at rawURL.
// Every kind is posted to rawURL but ntfy, whose JSON form goes to the
// server's root.
func (a alert) render(kind NotifyKind, rawURL string) (chatMessage, error) {
	msg := chatMessage{contentType: "application/json", target: rawURL}
	var err error
	switch kind {
	case NotifySlack:
		msg.body, err = marshalText(a.slack())
	case NotifyDiscord:
		msg.body, err = marshalText(a.discord())
	case NotifyTeams:
		msg.body, err = a.teams()
	case NotifyNtfy:
		root, topic, rerr := ntfyRoot(rawURL)
		if rerr != nil {
			return chatMessage{}, rerr
		}
		msg.target = root
		msg.body, err = marshalText(a.ntfy(topic))
	default:
		return chatMessage{}, fmt.Errorf("no chat format for kind %q", kind)
	}
	return msg, err
}

// marshalText is json.Marshal without the escaping of <, > and & that
// encoding/json does for HTML: a chat payload is no HTML, and Slack's
// links are written <url|text>.
func marshalText(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Slack: an incoming webhook takes "text" (the notification's fallback)
// and Block Kit "blocks": at most 50 blocks a message, at most 3000
// characters in a section's text (testdata/notify/README.md).
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
		s := marker(it.status) + " *" + slackLink(it.link, it.subject) + "*" + it.sep() + slackEscape(it.line)
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

// Discord: an execute-webhook body of "content" (up to 2000 characters)
// and "embeds"; an embed's title holds up to 256 characters and its
// description 4096 (testdata/notify/README.md). Those characters are
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
		s := marker(it.status) + " **[" + discordEscape(it.subject) + "](" + it.link + ")**" + it.sep() + discordEscape(it.line)
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

// Teams (Workflows): a message whose attachment is an Adaptive Card, at
// most 28 KB in all (testdata/notify/README.md).
const (
	teamsMaxBytes = 28 << 10
	teamsMaxItems = 50
)

// teamsRun is a TextRun of a RichTextBlock: plain text, never read as
// markdown (unlike a TextBlock's), so outside text goes only in runs.
type teamsRun struct {
	Type         string       `json:"type"`
	Text         string       `json:"text"`
	Weight       string       `json:"weight,omitempty"`
	Size         string       `json:"size,omitempty"`
	SelectAction *teamsAction `json:"selectAction,omitempty"`
}

// teamsElement is a TextBlock (Text) or a RichTextBlock (Inlines).
type teamsElement struct {
	Type    string     `json:"type"`
	Text    string     `json:"text,omitempty"`
	Wrap    bool       `json:"wrap,omitempty"`
	Inlines []teamsRun `json:"inlines,omitempty"`
}

type teamsAction struct {
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
}

type teamsCard struct {
	Schema  string         `json:"$schema"`
	Type    string         `json:"type"`
	Version string         `json:"version"`
	Body    []teamsElement `json:"body"`
	Actions []teamsAction  `json:"actions"`
}

type teamsAttachment struct {
	ContentType string    `json:"contentType"`
	ContentURL  *string   `json:"contentUrl"`
	Content     teamsCard `json:"content"`
}

type teamsMessage struct {
	Type        string            `json:"type"`
	Attachments []teamsAttachment `json:"attachments"`
}

// run is a TextRun of text, linked to u unless u is "".
func run(text, u string) teamsRun {
	r := teamsRun{Type: "TextRun", Text: text}
	if u != "" {
		r.SelectAction = &teamsAction{Type: "Action.OpenUrl", URL: u}
	}
	return r
}

// teams is the message's body: the most items that fit in teamsMaxBytes.
// Outside text is in TextRuns alone; the TextBlock of what a capped
// message leaves out is ours.
func (a alert) teams() ([]byte, error) {
	encode := func(n int) ([]byte, error) {
		title := run(cut(a.title(plain), 400), "")
		title.Weight, title.Size = "Bolder", "Medium"
		card := teamsCard{Schema: "http://adaptivecards.io/schemas/adaptive-card.json", Type: "AdaptiveCard", Version: "1.2",
			Body:    []teamsElement{{Type: "RichTextBlock", Inlines: []teamsRun{title}}},
			Actions: []teamsAction{{Type: "Action.OpenUrl", Title: "Open on aistatus", URL: a.link}}}
		for _, it := range a.items[:n] {
			subject := run(it.subject, it.link)
			subject.Weight = "Bolder"
			runs := []teamsRun{run(marker(it.status)+" ", ""), subject, run(it.sep()+cut(it.line, 1000), "")}
			if it.evidence != "" {
				runs = append(runs, run(" — ", ""), run(it.evidence, it.evidenceURL))
			}
			card.Body = append(card.Body, teamsElement{Type: "RichTextBlock", Inlines: runs})
		}
		if n < len(a.items) {
			card.Body = append(card.Body, teamsElement{Type: "TextBlock", Text: a.more(len(a.items) - n), Wrap: true})
		}
		return marshalText(teamsMessage{Type: "message", Attachments: []teamsAttachment{{
			ContentType: "application/vnd.microsoft.card.adaptive", Content: card}}})
	}
	for n := min(len(a.items), teamsMaxItems); ; n-- {
		body, err := encode(n)
		if err != nil || len(body) <= teamsMaxBytes || n == 0 {
			return body, err
		}
	}
}

// ntfy: the JSON publish form, posted to the server's root with the topic
// in the body; a message holds at most 4096 bytes (testdata/notify/README.md).
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
