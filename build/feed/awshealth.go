package feed

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// awsHealth reads the AWS Health Dashboard's public current events: a JSON
// array, usually UTF-16 with a byte order mark, of the events open right now
// across every AWS service and region. The filter picks the service
// ("bedrock" → "bedrock-us-east-1", "Amazon Bedrock (N. Virginia)").
type awsHealth struct{}

// awsEvent is the part of one current event that is used.
type awsEvent struct {
	Date        awsText `json:"date"`
	RegionName  string  `json:"region_name"`
	Region      string  `json:"region"`
	Status      awsText `json:"status"`
	Service     string  `json:"service"`
	ServiceName string  `json:"service_name"`
	Summary     string  `json:"summary"`
	ARN         string  `json:"arn"`
	EventLog    []struct {
		Timestamp awsText `json:"timestamp"`
	} `json:"event_log"`
	// ImpactedServices names the services an event touches beyond its own:
	// an event filed under "Multiple services" lists Bedrock only here.
	ImpactedServices awsImpacted `json:"impacted_services"`
}

// awsImpacted is the impacted_services member: an object keyed by service
// code, each with a service_name, or a plain list of codes or objects. Any
// other shape reads as empty rather than failing the whole document.
type awsImpacted []ref

func (a *awsImpacted) UnmarshalJSON(b []byte) error {
	var byCode map[string]struct {
		ServiceName string `json:"service_name"`
	}
	if json.Unmarshal(b, &byCode) == nil {
		for code, v := range byCode {
			// A code alone still names the service ("bedrock-us-east-1").
			*a = append(*a, ref{ID: code, Name: cmp.Or(v.ServiceName, code)})
		}
		slices.SortFunc(*a, func(x, y ref) int { return strings.Compare(x.ID, y.ID) })
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(b, &list); err != nil {
		return nil //nolint:nilerr // any other shape reads as no impacted services (see the type's comment)
	}
	for _, item := range list {
		var code string
		var obj struct {
			Service     string `json:"service"`
			ServiceName string `json:"service_name"`
		}
		switch {
		case json.Unmarshal(item, &code) == nil:
			*a = append(*a, ref{ID: code, Name: code})
		case json.Unmarshal(item, &obj) == nil:
			*a = append(*a, ref{ID: obj.Service, Name: cmp.Or(obj.ServiceName, obj.Service)})
		}
	}
	return nil
}

// awsText is a JSON string or number kept as text: the dashboard writes
// epoch times and status codes either way.
type awsText string

func (t *awsText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*t = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = awsText(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("want a string or a number, got %s", b)
	}
	*t = awsText(n)
	return nil
}

// awsStatusPage is where a person reads the events the feed lists.
const awsStatusPage = "https://health.aws.amazon.com/health/status"

// Read fetches the current events and parses them.
func (awsHealth) Read(ctx context.Context, req Request) (Result, error) {
	return readDocument(ctx, req, "application/json", parseAWSHealth)
}

// parseAWSHealth decodes the body (UTF-16 BE or LE, or UTF-8, by its byte
// order mark) and turns the events in scope into a Result: an event is in
// scope when its own service or one of its impacted services is. A status-3
// event is a disruption in one region of a service that runs in many: a
// partial outage, and a major one only when three or more regions are
// disrupted at once. A document that is JSON null is not the list: an error.
func parseAWSHealth(data []byte, req Request) (Result, error) {
	svc := req.Service
	text, err := awsDecode(data)
	if err != nil {
		return Result{}, err
	}
	var events []awsEvent
	if err := json.Unmarshal(text, &events); err != nil {
		return Result{}, err
	}
	if events == nil && bytes.Equal(bytes.TrimSpace(text), []byte("null")) {
		return Result{}, failure(api.FailureSchema, "null: not an AWS Health events list")
	}
	services := func(ev awsEvent) []ref {
		return append([]ref{{ID: ev.Service, Name: cmp.Or(ev.ServiceName, ev.Service)}}, ev.ImpactedServices...)
	}
	var all []ref
	for _, ev := range events {
		all = append(all, services(ev)...)
	}
	s := newScoper(svc.Feed.Scope, all, true, pageScopes(svc)...)
	res := Result{Status: api.Operational}
	disrupted := map[string]bool{} // regions at status 3
	seen := map[string]bool{}
	for _, ev := range events {
		if !s.incident(ev.Summary, services(ev)) {
			continue
		}
		// Status 0 (resolved) and codes not known here say nothing; an
		// event that cannot be listed is skipped altogether.
		inc, ok := awsConvert(svc, ev)
		if !ok {
			continue
		}
		switch ev.Status {
		case "3":
			region := strings.ToLower(awsFirst(ev.Region, ev.RegionName, ev.Service))
			disrupted[region] = true
			res.Status = api.Worse(res.Status, api.PartialOutage)
		case "2":
			res.Status = api.Worse(res.Status, api.Degraded)
		}
		if !seen[inc.ID] {
			seen[inc.ID] = true
			res.Incidents = append(res.Incidents, inc)
		}
	}
	if len(disrupted) >= 3 {
		res.Status = api.MajorOutage
	}
	api.SortIncidents(res.Incidents)
	return res, nil
}

// awsDecode returns the body as UTF-8. A byte order mark decides the
// encoding; without one, a NUL in the first two bytes gives UTF-16 away
// (the document starts with ASCII "[" or white space), else it is UTF-8.
func awsDecode(data []byte) ([]byte, error) {
	var fallback transform.Transformer = unicode.UTF8.NewDecoder()
	if len(data) >= 2 {
		switch {
		case data[0] == 0 && data[1] != 0:
			fallback = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()
		case data[0] != 0 && data[1] == 0:
			fallback = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()
		}
	}
	out, _, err := transform.Bytes(unicode.BOMOverride(fallback), data)
	if err != nil {
		return nil, fmt.Errorf("decoding text: %w", err)
	}
	return out, nil
}

// awsConvert maps one event to an incident; false for a status-0
// (resolved) or unknown status, or one without a readable date or an id.
func awsConvert(svc catalog.Service, ev awsEvent) (api.Incident, bool) {
	var sev api.Severity
	switch ev.Status {
	case "3":
		sev = api.Major
	case "2", "1":
		sev = api.Minor
	default:
		return api.Incident{}, false
	}
	started, err := awsEpoch(string(ev.Date))
	if err != nil {
		return api.Incident{}, false
	}
	upstream := ev.ARN
	if strings.TrimSpace(upstream) == "" {
		if strings.TrimSpace(ev.Service) == "" {
			return api.Incident{}, false
		}
		upstream = ev.Service + "-" + string(ev.Date)
	}
	id := api.OfficialIncidentID(svc.Slug, upstream)
	if id == "" {
		return api.Incident{}, false
	}
	updated := started
	for _, e := range ev.EventLog {
		if t, err := awsEpoch(string(e.Timestamp)); err == nil && t.After(updated) {
			updated = t
		}
	}
	headline := strings.TrimSpace(ev.Summary)
	switch r := strings.TrimSpace(ev.RegionName); {
	case headline == "":
		// The service name already names the region.
		headline = cmp.Or(awsFirst(ev.ServiceName, ev.Service), "AWS Health event")
	case r != "":
		headline += " (" + r + ")"
	}
	return api.Incident{
		ID:        id,
		Service:   svc.Slug,
		Headline:  headline,
		Severity:  sev,
		StartedAt: started,
		Status:    "ongoing",
		Source:    api.SourceOfficial,
		URL:       awsStatusPage,
		UpdatedAt: updated,
	}, true
}

// awsEpoch reads Unix epoch seconds, possibly fractional; a value too big
// to be seconds (later than the year 5000) is taken as milliseconds. Zero,
// negative and absurd times are errors.
func awsEpoch(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		switch {
		case n <= 0 || n > 1e14:
			return time.Time{}, errors.New("epoch out of range")
		case n > 1e11:
			return time.UnixMilli(n).UTC(), nil
		}
		return time.Unix(n, 0).UTC(), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return time.Time{}, err
	}
	if f > 1e11 {
		f /= 1000
	}
	if math.IsNaN(f) || f <= 0 || f > 1e11 {
		return time.Time{}, errors.New("epoch out of range")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
}

// awsFirst returns the first argument that is not blank, trimmed.
func awsFirst(s ...string) string {
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

var _ Adapter = awsHealth{}
