package site

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"

	"github.com/aistatus/aistatus/api"
)

// The rendered JSON Feeds, calendars and metrics are read by real
// third-party parsers: gofeed (a Go feed reader), the icalendar Python
// library (Debian python3-icalendar) and promtool (Debian prometheus).
// .ci/run installs the Debian ones; each test skips, saying so, without them.

// TestJSONFeedsParse: gofeed reads every JSON Feed as JSON Feed 1.1, with
// the same items, in the same order, as its Atom twin.
func TestJSONFeedsParse(t *testing.T) {
	t.Parallel()
	docs, files := render(t)
	names := []string{FileJSONFeed}
	for _, svc := range docs.Services {
		names = append(names, ServiceJSONFeed(svc.Slug))
	}
	for _, name := range names {
		feed, err := gofeed.NewParser().Parse(bytes.NewReader(files[name]))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if feed.FeedType != "json" || feed.FeedVersion != "https://jsonfeed.org/version/1.1" {
			t.Errorf("%s: read as %s %s, want json 1.1", name, feed.FeedType, feed.FeedVersion)
		}
		atomName := strings.TrimSuffix(name, ".feed.json") + ".atom"
		atom, err := gofeed.NewParser().Parse(bytes.NewReader(files[atomName]))
		if err != nil {
			t.Fatalf("%s: %v", atomName, err)
		}
		if len(feed.Items) != len(atom.Items) {
			t.Fatalf("%s: %d items, %s has %d", name, len(feed.Items), atomName, len(atom.Items))
		}
		for i, it := range feed.Items {
			a := atom.Items[i]
			if it.GUID != a.GUID || it.Title != a.Title || !it.PublishedParsed.Equal(*a.PublishedParsed) ||
				!it.UpdatedParsed.Equal(*a.UpdatedParsed) || it.Content != a.Description {
				t.Errorf("%s item %d: %q %q %v, Atom has %q %q %v", name, i, it.GUID, it.Title, it.PublishedParsed,
					a.GUID, a.Title, a.PublishedParsed)
			}
		}
	}
	// The fixture's 5 incidents and claude.ai's, a surface's (fixtureSurfaces).
	if feed, _ := gofeed.NewParser().Parse(bytes.NewReader(files[FileJSONFeed])); len(feed.Items) != 6 {
		t.Errorf("%s: %d items, want the fixture's 6", FileJSONFeed, len(feed.Items))
	}
}

// pythonWith returns a Python 3 that imports module, Debian's first (its
// packages install there, not into another Python on PATH); it skips the
// test when there is none.
func pythonWith(t *testing.T, module, debianPackage string) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(py); err == nil && exec.Command(path, "-c", "import "+module).Run() == nil {
			return path
		}
	}
	t.Skipf("no Python 3 with %s: install Debian's %s (.ci/run does)", module, debianPackage)
	return ""
}

// TestCalendarsParse: icalendar reads every calendar strictly, and
// understands each event as meant: a stable UID, SEQUENCE 1 for an ended
// window and 0 for an ongoing one, UTC times, no end while it goes on; on
// the retirement calendar, one all-day event per date, stamped with the
// build's time.
func TestCalendarsParse(t *testing.T) {
	t.Parallel()
	py := pythonWith(t, "icalendar", "python3-icalendar")
	docs, files := render(t)
	want := map[string]string{
		FileCalendar: "maintenance-groq-20261005T020000Z@aistatus.example|1|2026-10-05T04:30:00+00:00|2026-10-05T02:00:00+00:00|2026-10-05T04:30:00+00:00|Groq under maintenance\n" +
			"maintenance-mistral-20261101T110000Z@aistatus.example|0|2026-11-01T11:00:00+00:00|2026-11-01T11:00:00+00:00|-|Mistral AI under maintenance\n",
		ServiceCalendar("mistral"): "maintenance-mistral-20261101T110000Z@aistatus.example|0|2026-11-01T11:00:00+00:00|2026-11-01T11:00:00+00:00|-|Mistral AI under maintenance\n",
		ServiceCalendar("openai"):  "",
		// One event per date, its SEQUENCE the models of the date retired.
		FileRetirementsCalendar: "retirements-20260601@aistatus.example|2|2026-11-01T12:00:00+00:00|2026-06-01|2026-06-02|Retiring: Gemini 2.0 Flash, Gemini 2.0 Flash Lite\n" +
			"retirements-20261215@aistatus.example|0|2026-11-01T12:00:00+00:00|2026-12-15|2026-12-16|Retiring: Claude Opus 4.1\n",
	}
	names := []string{FileCalendar, FileRetirementsCalendar}
	for _, svc := range docs.Services {
		names = append(names, ServiceCalendar(svc.Slug))
	}
	got := readCalendars(t, py, files, names)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s read as\n%s\nwant\n%s", name, got[name], w)
		}
	}
}

// TestRetirementsCalendarDates: whatever the dates of the retirement
// calendar, the file is one a strict reader takes, every event all-day;
// a date that cannot be written as a DATE (its next day included) has no
// event. 9999-12-31 once wrote DTEND:100000101T000000Z, which icalendar
// drops as unreadable.
func TestRetirementsCalendarDates(t *testing.T) {
	t.Parallel()
	docs, h := fixture(t)
	retirement := func(id, date string) api.ModelRetirement {
		return api.ModelRetirement{ID: "example/" + id, Name: id, Date: date, State: api.RetirementAnnounced,
			Source: "openrouter-models", Reason: "a test"}
	}
	docs.Retirements.Retirements = []api.ModelRetirement{
		retirement("first", "2000-01-01"),
		retirement("last-day", "9999-12-31"),
		retirement("day-before", "9999-12-30"),
		retirement("year-zero", "0000-01-01"),
		retirement("year-one", "0001-01-01"),
		retirement("no-such-day", "2026-02-30"),
		retirement("not-a-date", "soon"),
		retirement("two-digit-year", "26-06-01"),
		retirement("leap-day", "2028-02-29"),
	}
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	ics := string(files[FileRetirementsCalendar])
	// What the parser needs not be asked: every DTSTART and DTEND an
	// eight-digit DATE, and each skipped date absent.
	dateLine := regexp.MustCompile(`^DT(START|END);VALUE=DATE:\d{8}$`)
	starts := 0
	for line := range strings.SplitSeq(ics, "\r\n") {
		if strings.HasPrefix(line, "DTSTART") || strings.HasPrefix(line, "DTEND") {
			if !dateLine.MatchString(line) {
				t.Errorf("not a DATE line: %q", line)
			}
			if strings.HasPrefix(line, "DTSTART") {
				starts++
			}
		}
		if line == "DTSTAMP:20261101T120000Z" {
			continue
		}
		if strings.HasPrefix(line, "DTSTAMP") {
			t.Errorf("%q, want the build's time", line)
		}
	}
	if starts != 4 {
		t.Errorf("%d events, want 4 (2000-01-01, 9999-12-30, 0001-01-01, 2028-02-29):\n%s", starts, ics)
	}
	py := pythonWith(t, "icalendar", "python3-icalendar")
	got := readCalendars(t, py, files, []string{FileRetirementsCalendar})[FileRetirementsCalendar]
	want := "retirements-20000101@aistatus.example|0|2026-11-01T12:00:00+00:00|2000-01-01|2000-01-02|Retiring: first\n" +
		"retirements-99991230@aistatus.example|0|2026-11-01T12:00:00+00:00|9999-12-30|9999-12-31|Retiring: day-before\n" +
		"retirements-00010101@aistatus.example|0|2026-11-01T12:00:00+00:00|0001-01-01|0001-01-02|Retiring: year-one\n" +
		"retirements-20280229@aistatus.example|0|2026-11-01T12:00:00+00:00|2028-02-29|2028-03-01|Retiring: leap-day\n"
	if got != want {
		t.Errorf("read as\n%s\nwant\n%s", got, want)
	}
}

// readCalendars runs testdata/validate/ical.py once over the named files
// and returns, by name, the events it read ("" for none); any file it
// refuses fails the test.
func readCalendars(t *testing.T, py string, files map[string][]byte, names []string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"testdata/validate/ical.py"}
	for i, name := range names {
		path := filepath.Join(dir, strconv.Itoa(i)+".ics")
		if err := os.WriteFile(path, files[name], 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// "# path" and then its events, for each file.
	got := map[string]string{}
	for i, part := range strings.Split(string(out), "# ")[1:] {
		_, events, _ := strings.Cut(part, "\n")
		got[names[i]] = events
	}
	if len(got) != len(names) {
		t.Fatalf("the parser read %d calendars, want %d:\n%s", len(got), len(names), out)
	}
	return got
}

// TestMetricsPromtool: promtool's linter passes the exposition, and a
// broken one fails it (the check can fail).
func TestMetricsPromtool(t *testing.T) {
	t.Parallel()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("no promtool: install Debian's prometheus package (.ci/run does)")
	}
	_, files := render(t)
	outage, err := Render(claudeAppOutage(t))
	if err != nil {
		t.Fatal(err)
	}
	vantages, err := Render(withVantages(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"rendered", files[FileMetrics], true},
		{"rendered during a claude.ai outage", outage[FileMetrics], true},
		{"rendered with vantage points", vantages[FileMetrics], true},
		{"a counter without _total", []byte("# HELP aistatus_x X.\n# TYPE aistatus_x counter\naistatus_x 1\n"), false},
	} {
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(tc.data)
		out, err := cmd.CombinedOutput()
		if (err == nil) != tc.ok {
			t.Errorf("%s: promtool check metrics: %v\n%s", tc.name, err, out)
		}
	}
}
