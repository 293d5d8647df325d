package feed

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"golang.org/x/net/html"
)

// The real captures of the makers' pages (testdata/real/README.md).
const (
	realOpenAIDeprecations    = "deprecations-openai-20260602.md"
	realAnthropicDeprecations = "deprecations-anthropic-20260805.md"
	realGoogleDeprecations    = "deprecations-google-20260813.html"
)

// readPage serves body on a loopback server and reads it in format id.
func readPage(t *testing.T, format, body string) (DeprecationPage, error) {
	t.Helper()
	f := DeprecationFormats()[format]
	srv, _ := serve(t, f.Accept(), map[string]reply{"/page": {body: []byte(body), ctype: "text/markdown; charset=utf-8"}})
	return ReadDeprecations(context.Background(), &http.Client{}, srv.URL+"/page", f, Validators{})
}

func TestDeprecationsReal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, format, file string
		count              int
		// dates: what the page says of an id ("" for: not read).
		dates map[string]string
		alias map[string]bool
	}{
		{name: "OpenAI", format: catalog.LifecycleOpenAI, file: realOpenAIDeprecations, count: 120, dates: map[string]string{
			// ISO, in the newest announcement that names it (it is also
			// in the 2025-09-26 one, for 2026-03-26).
			"gpt-4-1106-preview": "2026-10-23",
			// A snapshot and its aliases in one cell.
			"o1-2024-12-17": "2026-10-23", "o1": "2026-10-23", "gpt-4": "2026-10-23", "gpt-4-completions": "2026-10-23",
			"gpt-4.1-nano": "2026-10-23", "gpt-4o-2024-05-13": "2026-10-23", "o4-mini": "2026-10-23",
			// "Dec 1, 2026", "Aug 10, 2026".
			"gpt-image-1.5": "2026-12-01", "gpt-5.2-chat-latest": "2026-08-10",
			// Non-breaking hyphens; "at earliest 2024-06-13" is no date,
			// so the 2026-03-26 row stands.
			"gpt-4-0314": "2026-03-26",
			// Bare ids, without backticks.
			"gpt-4o-realtime-preview-2024-12-17": "2026-05-07",
			"chatgpt-4o-latest":                  "2026-02-17", "text-davinci-003": "2024-01-04",
			// Not models, or more than a model: not read.
			"gpt-4-0125-preview": "", "gpt-4-turbo-preview": "", "Videos API": "", "/v1/edits": "",
			// "New fine-tuning training on `babbage-002`" is not
			// babbage-002's retirement: its own row (2026-09-28) stands.
			"babbage-002": "2026-09-28",
			// No row for GPT-4o or GPT-4.1 in this capture (it predates
			// the announcement of their shutdown on 2027-01-14).
			"gpt-4o": "", "gpt-4o-mini": "", "gpt-4.1": "", "gpt-4.1-mini": "",
		}},
		{name: "Anthropic", format: catalog.LifecycleAnthropic, file: realAnthropicDeprecations, count: 28, dates: map[string]string{
			"claude-opus-4-1-20250805": "2026-08-05", "claude-opus-4-1": "2026-08-05",
			"claude-sonnet-4-20250514": "2026-06-15", "claude-sonnet-4": "2026-06-15",
			"claude-3-haiku-20240307": "2026-04-20", "claude-3-opus-20240229": "2026-01-05",
			// Only in the announcements: the status table no longer lists it.
			"claude-instant-1.2": "2024-11-06", "claude-2.1": "2025-07-21",
			// Active, "Not sooner than …": nothing announced.
			"claude-opus-4-5-20251101": "", "claude-sonnet-4-6": "", "claude-opus-5": "",
			// Parameters are not models.
			"temperature": "",
		}, alias: map[string]bool{"claude-opus-4-1": true, "claude-opus-4-1-20250805": false, "claude-3-5-sonnet": true}},
		{name: "Google", format: catalog.LifecycleGoogle, file: realGoogleDeprecations, count: 42, dates: map[string]string{
			// Gray rows: already shut down, still dated.
			"gemini-2.0-flash": "2026-06-01", "gemini-2.0-flash-001": "2026-06-01", "gemini-2.0-flash-lite-001": "2026-06-01",
			"gemini-3-pro-preview": "2026-03-09", "text-embedding-004": "2026-01-14",
			// Announced, ahead.
			"gemini-3.1-flash-lite": "2027-05-07", "gemini-2.5-flash-image": "2026-10-02", "gemini-embedding-001": "2028-05-14",
			// Below the "Preview models" row, which is no model.
			"gemini-3.1-flash-image-preview": "2026-06-25", "gemini-robotics-er-1.6-preview": "2026-08-31",
			// A replacement cell of an id and prose does not hide the row.
			"veo-3.0-generate-001": "2026-06-30",
			// A row without a release date is read.
			"embedding-gecko-001": "2025-10-30",
			// "No shutdown date announced": nothing, gray row or not.
			"gemini-2.5-flash": "", "gemini-2.5-pro": "", "gemini-3.6-flash": "", "gemini-2.5-pro-preview-tts": "",
			"lyria-3-pro-preview": "", "Preview models": "",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			page, err := readPage(t, tc.format, string(realDoc(t, tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Deprecation{}
			for _, d := range page.Deprecations {
				if _, dup := got[d.Model]; dup {
					t.Errorf("%s read twice", d.Model)
				}
				got[d.Model] = d
			}
			if len(page.Deprecations) != tc.count {
				t.Errorf("%d models read, want %d", len(page.Deprecations), tc.count)
			}
			for id, want := range tc.dates {
				if g := got[id].Date; g != want {
					t.Errorf("%s: date %q, want %q", id, g, want)
				}
			}
			for id, want := range tc.alias {
				if got[id].Alias != want || (want && !strings.HasPrefix(got[id].Of, id+"-20")) {
					t.Errorf("%s: alias %v of %q, want an alias %v of a dated snapshot", id, got[id].Alias, got[id].Of, want)
				}
			}
			if _, _, err := AdmitDeprecations(page); err != nil {
				t.Errorf("the door refuses the real page: %v", err)
			}
		})
	}
}

func TestDeprecationsErrors(t *testing.T) {
	t.Parallel()
	openai, anthropic := string(realDoc(t, realOpenAIDeprecations)), string(realDoc(t, realAnthropicDeprecations))
	google := string(realDoc(t, realGoogleDeprecations))
	// Google's tables cut after their header rows.
	googleHeaders := google[:strings.Index(google, "<tbody>")] + "</table>"
	var many strings.Builder
	many.WriteString("| Shutdown date | Model / system | Recommended replacement |\n| --- | --- | --- |\n")
	for i := range MaxDeprecations + 1 {
		fmt.Fprintf(&many, "| 2026-10-23 | `m-%d` | `x` |\n", i)
	}
	for _, tc := range []struct {
		name, format, body string
		fail               api.FailureKind
	}{
		{"a bot wall", catalog.LifecycleOpenAI, "<!DOCTYPE html><title>Just a moment...</title>", api.FailureChallenge},
		{"the HTML page instead of the Markdown", catalog.LifecycleAnthropic, "<html><body><table><tr><td>claude-2.0</td></tr></table>", api.FailureChallenge},
		{"no table", catalog.LifecycleOpenAI, "# Deprecations\n\nNothing here.\n", api.FailureSchema},
		{"the other maker's page", catalog.LifecycleAnthropic, openai, api.FailureSchema},
		{"the other maker's page, the other way", catalog.LifecycleOpenAI, anthropic, api.FailureSchema},
		{"tables cut to their headers", catalog.LifecycleOpenAI, openai[:strings.Index(openai, "| Dec 1, 2026")], api.FailureEmpty},
		{"more models than a page may name", catalog.LifecycleOpenAI, many.String(), api.FailureSchema},
		// Google's page is HTML: an HTML page without its tables is a
		// page of another shape, Google's read as a Markdown page a bot
		// wall or the HTML page in its stead.
		{"Google's page as OpenAI's", catalog.LifecycleOpenAI, "<!DOCTYPE html>" + google, api.FailureChallenge},
		{"OpenAI's page as Google's", catalog.LifecycleGoogle, openai, api.FailureSchema},
		{"an HTML page without the tables", catalog.LifecycleGoogle, "<!DOCTYPE html><title>Just a moment...</title>", api.FailureSchema},
		{"Google's tables cut to their headers", catalog.LifecycleGoogle, googleHeaders, api.FailureEmpty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := readPage(t, tc.format, tc.body)
			if Kind(err) != tc.fail {
				t.Fatalf("error %v (%s), want %s", err, Kind(err), tc.fail)
			}
		})
	}
}

// TestDeprecationsCells is the strictness of a row: only a cell of ids is
// read, only a date is a date.
func TestDeprecationsCells(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cell string
		want []string
	}{
		{"`o1-2024-12-17` | `o1`", []string{"o1-2024-12-17", "o1"}},
		{"`gpt-4-0613` | `gpt-4`, `gpt-4-completions`", []string{"gpt-4-0613", "gpt-4", "gpt-4-completions"}},
		{"gpt-4o-realtime-preview", []string{"gpt-4o-realtime-preview"}},
		{"claude-opus-4-20250514", []string{"claude-opus-4-20250514"}},
		{"New fine-tuning training on `babbage-002`", nil},
		{"`gpt-4-0125-preview` (including `gpt-4-turbo-preview`)", nil},
		{"Videos API", nil},
		{"`/v1/edits`", nil},
		{"`gpt-4o", nil},
		{"`GPT-4o`", nil},
		{"`" + strings.Repeat("a", 129) + "`", nil},
		{"", nil},
	} {
		if got := modelCell(tc.cell); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("modelCell(%q) = %q, want %q", tc.cell, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		"2026-10-23": "2026-10-23", "2026\u201103\u201126": "2026-03-26", "Dec 1, 2026": "2026-12-01",
		"August 5, 2026": "2026-08-05", "at earliest 2024-06-13": "", "Not sooner than May 28, 2027": "",
		"N/A": "", "2026-13-01": "", "": "",
	} {
		if got, _ := pageDate(in); got != want {
			t.Errorf("pageDate(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAdmitDeprecations is the door: ids and dates a page may not carry
// are dropped and named, the rest stands.
func TestAdmitDeprecations(t *testing.T) {
	t.Parallel()
	page := DeprecationPage{Deprecations: []Deprecation{
		{Model: "gpt-4o", Date: "2027-01-14"},
		{Model: "gpt-old", Date: "1999-12-31"},
		{Model: "gpt-far", Date: "2100-01-01"},
		{Model: "Bad Id", Date: "2027-01-14"},
		{Model: "gpt-x\x1b[31m", Date: "2027-01-14"},
		{Model: "gpt-y", Date: "soon"},
	}}
	got, dropped, err := AdmitDeprecations(page)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Deprecations) != 1 || got.Deprecations[0].Model != "gpt-4o" {
		t.Errorf("admitted %v, want gpt-4o alone", got.Deprecations)
	}
	if len(dropped) != 5 {
		t.Errorf("dropped %q, want 5 named", dropped)
	}
	if _, _, err := AdmitDeprecations(DeprecationPage{Deprecations: page.Deprecations[1:]}); Kind(err) != api.FailureSchema {
		t.Errorf("a page of which nothing passes: %v, want a schema failure", err)
	}
	if got, _, err := AdmitDeprecations(DeprecationPage{Unchanged: true}); err != nil || !got.Unchanged {
		t.Errorf("an unchanged read: %v, %v", got, err)
	}
}

// TestDeprecationsConditional: the page is asked with the validators of
// the last read, and a 304 is the same page.
func TestDeprecationsConditional(t *testing.T) {
	t.Parallel()
	body := realDoc(t, realAnthropicDeprecations)
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Header.Get("If-None-Match")+"|"+r.Header.Get("If-Modified-Since"))
		mu.Unlock()
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Wed, 05 Aug 2026 08:00:00 GMT")
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	f := DeprecationFormats()[catalog.LifecycleAnthropic]
	first, err := ReadDeprecations(context.Background(), &http.Client{}, srv.URL, f, Validators{})
	if err != nil || first.Unchanged || len(first.Deprecations) != 28 {
		t.Fatalf("first read: %d entries, unchanged %v, %v", len(first.Deprecations), first.Unchanged, err)
	}
	second, err := ReadDeprecations(context.Background(), &http.Client{}, srv.URL, f, first.Validators)
	if err != nil || !second.Unchanged || len(second.Deprecations) != 0 {
		t.Fatalf("second read: %+v, %v", second, err)
	}
	if want := []string{"|", `"v1"|Wed, 05 Aug 2026 08:00:00 GMT`}; fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
}

// TestDeprecationFormats ties the registry to the catalog's formats.
func TestDeprecationFormats(t *testing.T) {
	t.Parallel()
	reg := DeprecationFormats()
	for _, id := range catalog.LifecycleFormats {
		if reg[id] == nil {
			t.Errorf("no reader for the catalog's format %q", id)
		}
	}
	if len(reg) != len(catalog.LifecycleFormats) {
		t.Errorf("%d readers for %d formats", len(reg), len(catalog.LifecycleFormats))
	}
	// Each page is asked for in what it serves.
	for id, want := range map[string]string{catalog.LifecycleOpenAI: markdownAccept, catalog.LifecycleAnthropic: markdownAccept,
		catalog.LifecycleGoogle: "text/html"} {
		if got := reg[id].Accept(); got != want {
			t.Errorf("%s asks for %q, want %q", id, got, want)
		}
	}
}

// FuzzDeprecations: whatever a page serves, each reader returns a bounded
// list or an error, and what passes the door is only model ids and sane
// days.
func FuzzDeprecations(f *testing.F) {
	f.Add(realDoc(f, realOpenAIDeprecations))
	f.Add(realDoc(f, realAnthropicDeprecations))
	f.Add(realDoc(f, realGoogleDeprecations))
	f.Add([]byte("<table><tr><td>Model<td>Shutdown date<tr><td>a<td>May 7, 2099<table><tr><td>b</table></table>"))
	f.Add([]byte("| Shutdown date | Model |\n|---|---|\n| 2099-12-31 | `a` \\| `b` |\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		for id, format := range DeprecationFormats() {
			deps, err := format.ParseDeprecations(doc)
			if err != nil {
				continue
			}
			if len(deps) == 0 || len(deps) > MaxDeprecations {
				t.Fatalf("%s: %d entries without an error", id, len(deps))
			}
			page, _, err := AdmitDeprecations(DeprecationPage{Deprecations: deps})
			if err != nil {
				continue
			}
			for _, d := range page.Deprecations {
				at, perr := time.Parse(time.DateOnly, d.Date)
				if !makerModelID.MatchString(d.Model) || perr != nil || !api.SaneTime(at) {
					t.Fatalf("%s: the door let through %+v", id, d)
				}
			}
		}
	})
}

// TestHTMLTables is how a table of an HTML page is read: the first row
// is the header, a row of another count of cells is none, and a table
// nested in a cell is a table of its own.
func TestHTMLTables(t *testing.T) {
	t.Parallel()
	doc := `<table><thead><tr><th>Model</th><th>Shutdown <b>date</b></th></tr></thead><tbody>
<tr><td colspan="2">Preview models</td></tr>
<tr class="row-gray"><td><code>m-1</code></td><td>June 1,<br>2026</td></tr>
<tr><td>m-2<table><tr><td>Model</td><td>Shutdown date</td></tr><tr><td>m-3</td><td>May 7, 2027</td></tr></table></td><td>No shutdown date announced</td></tr>
</tbody></table>`
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(htmlTables(root))
	want := "[{[model shutdown date] [[m-1 June 1, 2026] [m-2 No shutdown date announced]] } {[model shutdown date] [[m-3 May 7, 2027]] }]"
	if got != want {
		t.Errorf("tables %s, want %s", got, want)
	}
}
