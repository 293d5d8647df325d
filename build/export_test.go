package build

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// TestExportCSVLineEnds: export.csv ends every record with CRLF, as RFC 4180
// has text/csv, and reads back with a standard CSV reader, a comma in a
// name quoted.
func TestExportCSVLineEnds(t *testing.T) {
	t.Parallel()
	checked := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	data, err := exportCSV(api.StatusDoc{Services: []api.ServiceSummary{
		{Slug: "openai", Name: "OpenAI", Category: "llm-api", Domain: "openai.com", Status: api.Operational, LastChecked: &checked},
		{Slug: "acme", Name: "Acme, Inc.", Category: "llm-api", Domain: "acme.example", Status: api.Unknown},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := "slug,name,category,domain,status,lastChecked\r\n" +
		"openai,OpenAI,llm-api,openai.com,operational,2026-11-01T12:00:00Z\r\n" +
		"acme,\"Acme, Inc.\",llm-api,acme.example,unknown,\r\n"
	if string(data) != want {
		t.Errorf("export.csv:\n%q\nwant\n%q", data, want)
	}
	if n := bytes.Count(data, []byte("\n")); n != bytes.Count(data, []byte("\r\n")) {
		t.Errorf("%d line ends, %d of them CRLF", n, bytes.Count(data, []byte("\r\n")))
	}
	records, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(records) != 3 || records[2][1] != "Acme, Inc." {
		t.Errorf("read back: %v %q", err, records)
	}
}
