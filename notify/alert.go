package notify

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

// Facts are what a build knows beside its changes that a chat
// message tells.
type Facts struct {
	// Basis is each service's basis this build, by slug: the evidence of
	// its status change.
	Basis map[string]api.Basis
	// Outages are the outages the build's recoveries end, by the id of
	// the *.recovered change: how long it was down, and how badly.
	Outages map[int64]Outage
}

// Outage is a stretch of a subject's status below operational.
type Outage struct {
	// Since is when it began: the subject's first change into degraded or
	// worse.
	Since time.Time
	// Worst is the worst status it reached.
	Worst api.Status
}

// SubjectNames are the names a chat message gives the subjects of
// cat's changes (api.Change.Subject): "Anthropic", "claude.ai (Anthropic)";
// a model's is its change's own, "Claude Sonnet 4.5 (model)".
func SubjectNames(cat catalog.Catalog) map[string]string {
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

// statusWords are the statuses as a sentence says them: their word
// (api.StatusSay.Word).
func statusWords(s api.Status) string {
	if s == "" {
		return "no status"
	}
	return s.Word()
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
// (SubjectNames). A status change back to operational whose
// recovery follows it is told once, as the recovery: "claude.ai is back".
func newAlert(changes []api.Change, facts Facts, names map[string]string, baseURL string) alert {
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
		if c.Model != nil {
			it.link = base + strings.NewReplacer(snapshot.AuthorParam+"/"+snapshot.ModelNameParam, c.Model.ID).Replace(snapshot.PathModel)
		}
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
			if _, isStatus := c.Type.Recovery(); !isStatus { // a *.recovered
				o, known := facts.Outages[c.ID]
				it.line, it.sentence = backLine(c, o, known), true
			}
		case api.ChangeIncidentOpened, api.ChangeIncidentUpdated, api.ChangeIncidentResolved:
			it.line, it.status = incidentLine(c)
			if inc := c.Incident; inc != nil {
				it.evidence = "our probes of the API"
				if inc.Source == api.SourceOfficial {
					it.evidence, it.evidenceURL = "the official status page", api.CleanURL(inc.URL, "")
				}
			}
		case api.ChangeModelAdded, api.ChangeModelRetiring, api.ChangeModelRetired:
			it.line, it.status = lifecycleLine(c), api.Unknown
			it.sentence = true
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

// lifecycleLine says a model's lifecycle change for people, as a sentence
// after its name: "is to be retired on 2027-01-14", never the event type.
func lifecycleLine(c api.Change) string {
	date := ""
	if c.Model != nil {
		date = c.Model.Date
	}
	switch {
	case c.Type == api.ChangeModelAdded:
		return "is newly watched: found in a gateway's model list"
	case c.Type == api.ChangeModelRetiring && date != "":
		return "is to be retired on " + date + ": requests naming it will fail after that"
	case c.Type == api.ChangeModelRetiring:
		return "is to be retired"
	case date != "":
		return "was retired on " + date + ": requests naming it fail, change the model"
	}
	return "was retired: requests naming it fail, change the model"
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
		return it.status.Emoji() + " " + esc(it.subject) + it.sep() + esc(it.line)
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
	return fmt.Sprintf("%s %d changes: %s", a.worst.Emoji(), len(a.items), named)
}

// plain is the escaping of a format with no markup: none.
func plain(s string) string { return s }

// backLine tells a recovery, c, of the outage o (if known): "is back:
// operational after 42 min of major outage".
func backLine(c api.Change, o Outage, known bool) string {
	worst := c.OldStatus
	if known {
		worst = api.Worse(worst, o.Worst)
	}
	what := endedWords(worst)
	if !known || o.Since.IsZero() || c.Time.Before(o.Since) {
		return "is back: " + statusWords(c.NewStatus) + " after " + what
	}
	return "is back: " + statusWords(c.NewStatus) + " after " + api.HumanDuration(c.Time.Sub(o.Since)) + " of " + strings.TrimPrefix(what, "a ")
}

// endedWords are the status a recovery ends, as "after …" says it,
// around its word: "a major outage", "degraded service", "maintenance".
func endedWords(s api.Status) string {
	switch {
	case s == api.Degraded:
		return statusWords(s) + " service"
	case s.AtLeast(api.PartialOutage):
		return "a " + statusWords(s)
	}
	return statusWords(s)
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
	s := it.status.Emoji() + " " + it.subject + it.sep() + it.line
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
func (a alert) render(kind Kind, rawURL string) (chatMessage, error) {
	msg := chatMessage{contentType: "application/json", target: rawURL}
	var err error
	switch kind {
	case Slack:
		msg.body, err = marshalText(a.slack())
	case Discord:
		msg.body, err = marshalText(a.discord())
	case Teams:
		msg.body, err = a.teams()
	case Ntfy:
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
