package feed

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"golang.org/x/text/encoding/unicode"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// awsEncodings are the ways the dashboard has been seen to encode its body;
// the real one is UTF-16 big-endian with a byte order mark.
var awsEncodings = []string{"UTF-16BE+BOM", "UTF-16LE+BOM", "UTF-16BE", "UTF-8", "UTF-8+BOM"}

// awsEncode re-encodes a UTF-8 fixture, and checks the first bytes so that
// the test does not depend on the encoder doing what the name says.
func awsEncode(t testing.TB, enc string, utf8 []byte) []byte {
	t.Helper()
	var out []byte
	var err error
	var prefix []byte
	c := utf8[0] // ASCII in every fixture
	switch enc {
	case "UTF-16BE+BOM":
		out, err = unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder().Bytes(utf8)
		prefix = []byte{0xFE, 0xFF, 0, c}
	case "UTF-16LE+BOM":
		out, err = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes(utf8)
		prefix = []byte{0xFF, 0xFE, c, 0}
	case "UTF-16BE":
		out, err = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewEncoder().Bytes(utf8)
		prefix = []byte{0, c}
	case "UTF-8":
		out, prefix = utf8, []byte{c}
	case "UTF-8+BOM":
		out, prefix = append([]byte{0xEF, 0xBB, 0xBF}, utf8...), []byte{0xEF, 0xBB, 0xBF, c}
	default:
		t.Fatalf("unknown encoding %q", enc)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, prefix) {
		t.Fatalf("%s body starts % x, want % x", enc, out[:min(len(out), 4)], prefix)
	}
	return out
}

func bedrock(srv *httptest.Server, filter ...string) catalog.Service {
	return catalog.Service{Slug: "aws-bedrock", StatusPage: "https://health.aws.amazon.com/health/status",
		Feed: catalog.Feed{Format: catalog.FormatAWSHealth, URL: srv.URL + "/feed", Scope: catalog.Scope{ComponentNames: filter}}}
}

func readAWSHealth(t *testing.T, rep reply, filter ...string) (Result, error) {
	t.Helper()
	srv, _ := serve(t, jsonAccept, map[string]reply{"/feed": rep})
	return read(t, awsHealth{}, bedrock(srv, filter...))
}

func TestAWSHealthStatus(t *testing.T) {
	t.Parallel()
	br := []string{"bedrock"}
	tests := []struct {
		name          string
		file          string
		filter        []string
		want          api.Status
		wantIncidents int
	}{
		{"calm: empty array", "awshealth-empty.json", br, api.Operational, 0},
		{"informational; another service's disruption filtered out", "awshealth-informational.json", br, api.Operational, 1},
		{"unfiltered, the EC2 disruption counts", "awshealth-informational.json", nil, api.PartialOutage, 2},
		{"filter ignores case and matches service_name", "awshealth-informational.json", []string{"AMAZON BEDROCK"}, api.Operational, 1},
		{"filter matching nothing", "awshealth-partial.json", []string{"sagemaker"}, api.Operational, 0},
		{"resolved event only", "awshealth-resolved.json", br, api.Operational, 0},
		{"status 2", "awshealth-degraded.json", br, api.Degraded, 2},
		{"status 3 in two regions (one twice)", "awshealth-partial.json", br, api.PartialOutage, 3},
		{"status 3 in three regions", "awshealth-major.json", br, api.MajorOutage, 3},
		{"mixed", "awshealth-incidents.json", br, api.PartialOutage, 4},
	}
	for _, tt := range tests {
		for _, enc := range awsEncodings {
			t.Run(tt.name+"/"+enc, func(t *testing.T) {
				res, err := readAWSHealth(t, reply{body: awsEncode(t, enc, fixture(t, tt.file))}, tt.filter...)
				checkStatus(t, res, err, tt.want)
				if len(res.Incidents) != tt.wantIncidents {
					t.Errorf("%d incidents, want %d: %+v", len(res.Incidents), tt.wantIncidents, res.Incidents)
				}
			})
		}
	}
}

func TestAWSHealthIncidents(t *testing.T) {
	t.Parallel()
	const official, page = api.SourceOfficial, "https://health.aws.amazon.com/health/status"
	want := []api.Incident{
		// Updated at the latest event_log timestamp (numbers and strings);
		// the ARN's slashes become hyphens.
		{ID: "aws-bedrock-arn:aws:health:us-east-1::event-BEDROCK-AWS_BEDROCK_OPERATIONAL_ISSUE-AWS_BEDROCK_OPERATIONAL_ISSUE_7D4B1_91C2E0A6F1B",
			Service: "aws-bedrock", Headline: "Increased Error Rates and Latencies (N. Virginia)", Severity: api.Major,
			StartedAt: *ts(t, "2024-11-19T06:00:00Z"), Status: "ongoing", Source: official, URL: page,
			UpdatedAt: *ts(t, "2024-11-19T07:15:30Z")},
		// No ARN: service and date; no event log: updated at the date.
		{ID: "aws-bedrock-bedrock-us-west-2-1731993000",
			Service: "aws-bedrock", Headline: "Degraded Model Invocation Performance (Oregon)", Severity: api.Minor,
			StartedAt: *ts(t, "2024-11-19T05:10:00Z"), Status: "ongoing", Source: official, URL: page,
			UpdatedAt: *ts(t, "2024-11-19T05:10:00Z")},
		// No summary: the service name, which already names the region; a
		// log entry older than the date does not move UpdatedAt back.
		{ID: "aws-bedrock-arn:aws:health:sa-east-1::event-BEDROCK-AWS_BEDROCK_API_ISSUE-AWS_BEDROCK_API_ISSUE_88E1A_5C6D7E8F9A0",
			Service: "aws-bedrock", Headline: "Amazon Bedrock (São Paulo)", Severity: api.Minor,
			StartedAt: *ts(t, "2024-11-19T03:00:00Z"), Status: "ongoing", Source: official, URL: page,
			UpdatedAt: *ts(t, "2024-11-19T03:00:00Z")},
		// Date and status as JSON numbers; an unreadable log timestamp is ignored.
		{ID: "aws-bedrock-arn:aws:health:ap-northeast-1::event-BEDROCK-AWS_BEDROCK_OPERATIONAL_NOTIFICATION-AWS_BEDROCK_OPERATIONAL_NOTIFICATION_2F9C3_0A1B2C3D4E5",
			Service: "aws-bedrock", Headline: "[Informational] Delayed CloudWatch metrics (Tokyo)", Severity: api.Minor,
			StartedAt: *ts(t, "2024-11-18T23:20:00Z"), Status: "ongoing", Source: official, URL: page,
			UpdatedAt: *ts(t, "2024-11-19T01:05:00Z")},
		// Left out: status 0, EC2 (filter), the event without a date, status 7.
	}
	for _, enc := range awsEncodings {
		t.Run(enc, func(t *testing.T) {
			res, err := readAWSHealth(t, reply{body: awsEncode(t, enc, fixture(t, "awshealth-incidents.json"))}, "bedrock")
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			checkIncidents(t, res.Incidents, want)
		})
	}
}

func TestAWSHealthErrors(t *testing.T) {
	t.Parallel()
	be := func(s string) []byte { return awsEncode(t, "UTF-16BE+BOM", []byte(s)) }
	full := be(`[]`)
	cases := []errorCase{
		{"malformed JSON", reply{file: "awshealth-malformed.json"}, "invalid character"},
		{"malformed UTF-16", reply{body: awsEncode(t, "UTF-16BE+BOM", fixture(t, "awshealth-malformed.json"))}, "invalid character"},
		{"truncated JSON", reply{file: "awshealth-truncated.json"}, "unexpected end of JSON"},
		{"truncated UTF-16", reply{body: awsEncode(t, "UTF-16LE+BOM", fixture(t, "awshealth-truncated.json"))}, "unexpected end of JSON"},
		{"UTF-16 cut in the middle of a code unit", reply{body: full[:len(full)-1]}, "invalid character"},
		{"object instead of array", reply{file: "awshealth-wrong-type.json"}, "cannot unmarshal object"},
		{"status is an object", reply{file: "awshealth-wrong-type-status.json"}, "want a string or a number"},
		{"date is a boolean", reply{body: be(`[{"date":true,"status":"3","service":"bedrock-us-east-1"}]`)}, "want a string or a number"},
		{"event_log is a string", reply{body: []byte(`[{"date":"1731996000","status":"3","service":"bedrock-us-east-1","event_log":"none"}]`)}, "cannot unmarshal string"},
		{"HTML instead of JSON", reply{file: "maintenance_page.html"}, `content type "text/html"`},
		{"empty body", reply{body: []byte{}}, "unexpected end of JSON"},
		{"byte order mark only", reply{body: []byte{0xFE, 0xFF}}, "unexpected end of JSON"},
		{"HTTP 500", reply{code: 500, body: full}, "HTTP 500"},
		{"HTTP 403", reply{code: 403}, "HTTP 403"},
		{"over MaxBody", reply{body: oversized([]byte("[]"))}, "larger than"},
	}
	checkErrors(t, cases, func(t *testing.T, rep reply) (Result, error) { return readAWSHealth(t, rep, "bedrock") })
}

// JSON null is not the list; events that cannot be read declare nothing bad.
func TestAWSHealthEmptyDocuments(t *testing.T) {
	t.Parallel()
	checkProvesNothing(t, []string{"null"}, func(t *testing.T, rep reply) (Result, error) {
		return readAWSHealth(t, reply{body: awsEncode(t, "UTF-16BE+BOM", rep.body)})
	})
	for body, want := range map[string]api.Status{
		`[{}]`:                                 api.Operational,
		`[null]`:                               api.Operational,
		`[{"status":"3"}]`:                     api.Operational, // no date, no service
		`[{"status":"3","date":"0"}]`:          api.Operational,
		`[{"status":"3","date":"1731996000"}]`: api.Operational, // neither ARN nor service: no id
	} {
		t.Run(body, func(t *testing.T) {
			res, err := readAWSHealth(t, reply{body: awsEncode(t, "UTF-16BE+BOM", []byte(body))})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if res.Status != want || len(res.Incidents) != 0 {
				t.Errorf("got %+v, want %q and no incidents", res, want)
			}
		})
	}
}

func TestAWSEpoch(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"1731996000":        "2024-11-19T06:00:00Z",
		" 1731996000 ":      "2024-11-19T06:00:00Z",
		"1731996000.5":      "2024-11-19T06:00:00.5Z",
		"1731996000123":     "2024-11-19T06:00:00.123Z",
		"1.731996e9":        "2024-11-19T06:00:00Z",
		"0":                 "",
		"-1731996000":       "",
		"":                  "",
		"soon":              "",
		"NaN":               "",
		"+Inf":              "",
		"1e300":             "",
		"99999999999999999": "",
	} {
		got, err := awsEpoch(in)
		switch {
		case want == "" && err == nil:
			t.Errorf("awsEpoch(%q) = %v, want an error", in, got)
		case want != "" && (err != nil || got.Format(time.RFC3339Nano) != want):
			t.Errorf("awsEpoch(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
}

func FuzzAWSHealth(f *testing.F) {
	for _, data := range fixtures(f, "awshealth-*") {
		f.Add(data)
		f.Add(awsEncode(f, "UTF-16BE+BOM", data))
	}
	f.Add([]byte{0xFF, 0xFE, '[', 0, ']'})
	f.Add([]byte{0xFE, 0xFF, 0, '[', 0xD8, 0x00, 0, ']'}) // lone surrogate
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, filter := range [][]string{{"bedrock"}, nil} {
			svc := catalog.Service{Slug: "aws-bedrock", Feed: catalog.Feed{Format: catalog.FormatAWSHealth, Scope: catalog.Scope{ComponentNames: filter}}}
			res, err := parseAWSHealth(data, Request{Service: svc})
			if checkParsed(t, svc, res, err) {
				checkDistinctHeadlines(t, res)
			}
		}
	})
}

// TestAWSHealthMultipleServices reads events filed under "Multiple
// services", which name Bedrock only in impacted_services. No real capture
// of the public events is in testdata/real: the fixture
// (awshealth-multiple-services.json) is hand-made in the shape of the
// dashboard's public current events (object keyed by service code with a
// service_name, and the list of codes form), served as the dashboard serves
// it, UTF-16 with a byte order mark.
func TestAWSHealthMultipleServices(t *testing.T) {
	t.Parallel()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	body := awsEncode(t, "UTF-16LE+BOM", fixture(t, "awshealth-multiple-services.json"))
	srv, _ := serve(t, jsonAccept, map[string]reply{"/feed": {body: body, ctype: "application/json"}})
	svc, _ := c.Lookup("aws-bedrock") // the catalog's own scope
	svc.Feed.URL = srv.URL + "/feed"
	res, err := read(t, awsHealth{}, svc)
	checkStatus(t, res, err, api.PartialOutage)
	const arn = "arn:aws:health:%s::event/MULTIPLE_SERVICES/AWS_MULTIPLE_SERVICES_OPERATIONAL_ISSUE/AWS_MULTIPLE_SERVICES_OPERATIONAL_ISSUE_%s"
	var got []string
	for _, inc := range res.Incidents {
		got = append(got, inc.Headline)
	}
	// Oregon's event (EC2, EBS) is not Bedrock's. Tokyo's names Bedrock
	// by its code only.
	want := []string{"Increased Error Rates (Tokyo)", "Increased Latencies (Ireland)", "Increased Error Rates and Latencies (N. Virginia)"}
	if !slices.Equal(got, want) {
		t.Errorf("incidents %q, want %q", got, want)
	}
	if len(res.Incidents) == 3 {
		first := res.Incidents[2]
		if first.Severity != api.Major || !first.UpdatedAt.Equal(time.Unix(1761011435, 0)) {
			t.Errorf("N. Virginia event %+v, want major, updated at its last log entry", first)
		}
		if id := api.OfficialIncidentID("aws-bedrock", fmt.Sprintf(arn, "us-east-1", "BA540_514A652BE1A")); first.ID != id {
			t.Errorf("id %q, want %q", first.ID, id)
		}
	}
}
