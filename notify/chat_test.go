package notify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/notify/notifytest"
)

// The chat payloads are checked against the rules each service documents
// (notifytest.CheckPayload, whose sources testdata/README.md cites), with
// golden files of a sample (testdata/golden/<kind>.json), and with each
// service's own library (TestChatLibraries).

type jsonObject = map[string]any

// checkPayload checks body as kind's format: the rules each chat service
// documents (notifytest.CheckPayload).
func checkPayload(kind Kind, body []byte) error { return notifytest.CheckPayload(string(kind), body) }

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
var sampleFacts = Facts{Basis: map[string]api.Basis{"openai": api.BasisProbe},
	Outages: map[int64]Outage{7: {Since: t0, Worst: api.PartialOutage}}}

func defaultNames(t *testing.T) map[string]string {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return SubjectNames(cat)
}

// chatURLs are a destination of each chat kind, as their services hand
// them out (the tokens made up).
var chatURLs = map[Kind]string{
	Slack:   "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
	Discord: "https://discord.com/api/webhooks/123456789012345678/TOKEN",
	Teams:   "https://prod-00.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=SIG",
	Ntfy:    "https://ntfy.sh/mytopic",
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
		kind    Kind
		example string
		// brokenBy breaks one documented rule in a rendered payload.
		brokenBy func(jsonObject)
	}{
		{Slack, "slack-incoming-webhook.json", func(m jsonObject) {
			m["blocks"].([]any)[0].(jsonObject)["text"].(jsonObject)["text"] = strings.Repeat("x", 3001)
		}},
		{Discord, "discord-execute-webhook.json", func(m jsonObject) { m["content"] = strings.Repeat("x", 2001) }},
		{Teams, "teams-workflows-adaptive-card.json", func(m jsonObject) {
			m["attachments"].([]any)[0].(jsonObject)["contentType"] = "application/vnd.microsoft.teams.card.o365connector"
		}},
		{Ntfy, "ntfy-publish-json.json", func(m jsonObject) { m["priority"] = 6 }},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			example, err := os.ReadFile(filepath.Join("testdata", tt.example))
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
			buildtest.Golden(t, string(tt.kind)+".json", pretty.Bytes())

			big, err := newAlert(flood, Facts{}, names, "https://aistatus.example").render(tt.kind, chatURLs[tt.kind])
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
				msg, err := newAlert(set, Facts{}, names, "https://aistatus.example").render(tt.kind, chatURLs[tt.kind])
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
	a := newAlert(sampleChanges()[:1], Facts{Basis: map[string]api.Basis{"openai": api.BasisProbe}}, names, "https://aistatus.example/")
	if want := "🔴 OpenAI: up → major outage"; a.title(plain) != want {
		t.Errorf("title %q, want %q", a.title(plain), want)
	}
	for kind := range chatURLs {
		msg, err := a.render(kind, chatURLs[kind])
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"OpenAI", "up → major outage", "https://aistatus.example/services/openai", "our probes of the API"} {
			if !strings.Contains(string(msg.body), want) {
				t.Errorf("%s: no %q in %s", kind, want, msg.body)
			}
		}
	}
	// A surface's own incident is told as claude.ai's, not Anthropic's.
	login := api.Incident{ID: "anthropic-z", Service: "anthropic", Headline: "claude.ai login errors", Severity: api.Major,
		Status: "investigating", Source: api.SourceOfficial, URL: "https://status.claude.com/incidents/z"}
	surface := newAlert([]api.Change{{Type: api.ChangeIncidentOpened, Service: "anthropic", Surface: catalog.SurfaceApp, Incident: &login}}, Facts{}, names, "https://aistatus.example")
	if want := " claude.ai (Anthropic): incident opened"; !strings.Contains(surface.title(plain), want) {
		t.Errorf("a surface's incident titled %q, want %q in it", surface.title(plain), want)
	}
	all := newAlert(sampleChanges(), Facts{}, names, "https://aistatus.example")
	slack, _ := all.render(Slack, chatURLs[Slack])
	if s := string(slack.body); strings.Contains(s, "<Chat>") || !strings.Contains(s, "&lt;Chat&gt; &amp;") {
		t.Errorf("Slack: the headline's markup is not escaped: %s", s)
	}
	discord, _ := all.render(Discord, chatURLs[Discord])
	if s := string(discord.body); !strings.Contains(s, `"allowed_mentions":{"parse":[]}`) || !strings.Contains(s, `\\*API\\*`) {
		t.Errorf("Discord: mentions not disabled or markdown not escaped: %s", s)
	}
	ntfy, _ := all.render(Ntfy, "https://ntfy.example/base/alerts?auth=TOKEN")
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
func liveMarkup(kind Kind, body []byte) []string {
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
	case Slack:
		texts := []string{str(msg["text"])}
		blocks, _ := notifytest.Objects(msg["blocks"])
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
	case Discord:
		markdown("content", str(msg["content"]), true)
		embeds, _ := notifytest.Objects(msg["embeds"])
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
	case Teams:
		atts, _ := notifytest.Objects(msg["attachments"])
		for _, a := range atts {
			card, _ := a["content"].(jsonObject)
			elements, _ := notifytest.Objects(card["body"])
			actions, _ := notifytest.Objects(card["actions"])
			for _, e := range elements {
				markdown("TextBlock", str(e["text"]), false)
				inlines, _ := notifytest.Objects(e["inlines"])
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
	case Ntfy:
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
			msg, err := newAlert(set, Facts{}, names, "https://aistatus.example").render(kind, u)
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
		facts   Facts
		want    []string // the items, as plain lines
	}{
		{"with its outage", []api.Change{back, rec}, Facts{Outages: map[int64]Outage{11: outage}},
			[]string{"✅ claude.ai (Anthropic) is back: up after 42 min of major outage"}},
		{"its outage unknown", []api.Change{back, rec}, Facts{},
			[]string{"✅ claude.ai (Anthropic) is back: up after a partial outage"}},
		{"a status change without its recovery", []api.Change{back, other}, Facts{},
			[]string{"✅ claude.ai (Anthropic): unknown → up", "✅ OpenAI: major outage → up"}},
		{"among others", []api.Change{other, back, rec}, Facts{Outages: map[int64]Outage{11: {Since: t0.Add(-26 * time.Hour), Worst: api.Degraded}}},
			[]string{"✅ OpenAI: major outage → up", "✅ claude.ai (Anthropic) is back: up after 1 d 2 h of partial outage"}},
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
}

// TestChatLifecycleForPeople: a model's lifecycle change reads as a
// sentence about the model, never as its event type.
func TestChatLifecycleForPeople(t *testing.T) {
	t.Parallel()
	names := defaultNames(t)
	model := &api.ChangeModel{ID: "openai/gpt-4o", Name: "GPT-4o", Date: "2027-01-14"}
	for typ, want := range map[api.ChangeType]string{
		api.ChangeModelRetiring: "❔ GPT-4o (model) is to be retired on 2027-01-14: requests naming it will fail after that",
		api.ChangeModelRetired:  "❔ GPT-4o (model) was retired on 2027-01-14: requests naming it fail, change the model",
		api.ChangeModelAdded:    "❔ GPT-4o (model) is newly watched: found in a gateway's model list",
	} {
		c := api.Change{ID: 1, Type: typ, Service: "openai", Time: t0, Model: model}
		a := newAlert([]api.Change{c}, Facts{}, names, "https://aistatus.example")
		if got := a.title(plain); got != want {
			t.Errorf("%s: %q, want %q", typ, got, want)
		}
		if strings.Contains(a.title(plain), string(typ)) || a.link != "https://aistatus.example/api/v1/models/openai/gpt-4o" {
			t.Errorf("%s: title %q, link %q", typ, a.title(plain), a.link)
		}
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
// library (testdata/validate.mjs says how): Adaptive Cards' parser
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
	examples := map[Kind]string{Slack: "slack-incoming-webhook.json", Discord: "discord-execute-webhook.json",
		Teams: "teams-workflows-adaptive-card.json"}
	// breaks are messages breaking one rule of a library, from the golden.
	breaks := map[Kind]map[string]func(jsonObject){
		Slack: {
			"limit": func(m jsonObject) {
				m["blocks"].([]any)[0].(jsonObject)["text"].(jsonObject)["text"] = strings.Repeat("x", 3001)
			},
			"type": func(m jsonObject) { m["blocks"].([]any)[0].(jsonObject)["text"].(jsonObject)["type"] = "markdown" },
		},
		Discord: {
			"builder": func(m jsonObject) { m["embeds"].([]any)[0].(jsonObject)["title"] = strings.Repeat("x", 257) },
			"type":    func(m jsonObject) { m["allowed_mentions"] = jsonObject{"parse": []any{"channel"}} },
		},
		Teams: {
			"value":   func(m jsonObject) { teamsRuns(m)[0]["size"] = "Huge" },
			"unknown": func(m jsonObject) { teamsRuns(m)[0]["colour"] = "attention" },
		},
	}
	for kind, example := range examples {
		golden := filepath.Join("testdata", "golden", string(kind)+".json")
		valid[golden], valid[filepath.Join("testdata", example)] = true, true
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
	args := []string{filepath.Join("testdata", "validate.mjs"), modules}
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

// TestChatSaysTheAPIWords: every chat says each status with api's emoji
// and word (api.StatusTable): degraded is ⚠️ and "degraded" in Slack as
// in /check.
func TestChatSaysTheAPIWords(t *testing.T) {
	t.Parallel()
	names := defaultNames(t)
	for _, st := range api.Statuses {
		old := api.Operational
		if st == api.Operational {
			old = api.MajorOutage
		}
		a := newAlert([]api.Change{{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: t0, OldStatus: old, NewStatus: st}},
			Facts{}, names, "https://aistatus.example/")
		for kind := range chatURLs {
			msg, err := a.render(kind, chatURLs[kind])
			if err != nil {
				t.Fatal(err)
			}
			if body := string(msg.body); !strings.Contains(body, st.Emoji()) || !strings.Contains(body, old.Word()+" → "+st.Word()) {
				t.Errorf("%s, %s: no %s and %q in %s", kind, st, st.Emoji(), old.Word()+" → "+st.Word(), body)
			}
		}
	}
}
