package notify

// Teams (Workflows): a message whose attachment is an Adaptive Card, at
// most 28 KB in all (testdata/README.md).
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
			runs := []teamsRun{run(it.status.Emoji()+" ", ""), subject, run(it.sep()+cut(it.line, 1000), "")}
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
