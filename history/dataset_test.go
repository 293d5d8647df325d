package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// datasetHistory holds daily rows for two services over September and
// October 2026 and incidents ending in both months, one still open.
func datasetHistory() *History {
	h := New()
	h.Days = DaySeries{}
	for d := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC); d.Before(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); d = d.Add(Day) {
		for i, slug := range []string{"openai", "anthropic"} {
			h.Days.Put(DayRow{Date: d.Format(time.DateOnly), Kind: KindService, Subject: slug,
				Time:      Bucket{Operational: 1400 * 60, Partial: float64(30+i) * 60, Unknown: 5 * 60, Probes: 288, LatencyMs: 288 * 123.456},
				Incidents: 1, Minor: 1})
		}
	}
	sep := time.Date(2026, 9, 10, 8, 0, 0, 0, time.UTC)
	oct := time.Date(2026, 10, 20, 8, 0, 0, 0, time.UTC)
	h.Incidents = []api.Incident{
		{ID: "openai-open", Service: "openai", Headline: `Errors with "quotes", commas, and a line` + "\n" + "break", Severity: api.Major,
			StartedAt: oct, Status: "investigating", Source: api.SourceOfficial, URL: "https://status.openai.com/incidents/1", UpdatedAt: oct},
		{ID: "openai-oct", Service: "openai", Headline: "Slow", Severity: api.Minor, StartedAt: oct, EndedAt: new(oct.Add(time.Hour)),
			Status: "resolved", Source: api.SourceOfficial, URL: "https://status.openai.com/incidents/2", UpdatedAt: oct.Add(time.Hour)},
		{ID: "anthropic-sep", Service: "anthropic", Headline: "Down", Severity: api.Critical, StartedAt: sep, EndedAt: new(sep.Add(time.Hour)),
			Status: "resolved", Source: api.SourceProbe, URL: "https://status.claude.com", UpdatedAt: sep.Add(time.Hour)},
	}
	return h
}

func TestUptimeCSVRoundTrip(t *testing.T) {
	t.Parallel()
	rows := datasetHistory().Days.Rows(KindService, "openai", "2026-09-01", "2026-09-03")
	data, err := EncodeUptimeCSV(rows)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeUptimeCSV(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rows) {
		t.Fatalf("%d rows back, want %d", len(back), len(rows))
	}
	for i := range rows {
		if !reflect.DeepEqual(back[i], rows[i]) {
			t.Errorf("row %d: %+v, want %+v", i, back[i], rows[i])
		}
	}
	for _, bad := range []string{
		"",
		"a,b\r\n",
		strings.Replace(string(data), "2026-09-02", "yesterday", 1),
		strings.Replace(string(data), ",288,", ",-288,", 1),
		strings.Replace(string(data), ",1400,", ",99999,", 1),
	} {
		if _, err := DecodeUptimeCSV([]byte(bad)); err == nil {
			t.Errorf("no error for %.60q", bad)
		}
	}
}

// TestDatasetClosedMonthsNeverChange: a month's files are rendered while
// it is open; once closed, the file of the previous snapshot is published
// byte for byte, even when the rows would now render differently.
func TestDatasetClosedMonthsNeverChange(t *testing.T) {
	t.Parallel()
	h := datasetHistory()
	// 2026-11-01 12:00: September is closed, October in its grace day.
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	files, idx, err := datasetFiles(h, now, "https://aistatus.example")
	if err != nil {
		t.Fatal(err)
	}
	closed := map[string]bool{}
	for _, f := range idx.Files {
		closed[f.Path] = f.Closed
	}
	want := map[string]bool{"/datasets/uptime-2026-09.csv": true, "/datasets/uptime-2026-10.csv": false,
		"/datasets/incidents-2026-09.ndjson": true, "/datasets/incidents-2026-10.ndjson": false, "/datasets/incidents-2026-11.ndjson": false}
	if len(closed) != len(want) {
		t.Errorf("files %v, want %v", closed, want)
	}
	for p, c := range want {
		if got, ok := closed[p]; !ok || got != c {
			t.Errorf("%s: listed %v, closed %v; want closed %v", p, ok, got, c)
		}
	}
	if !bytes.Contains(files[DatasetFile(DatasetIncidents, "2026-11")], []byte(`"id":"openai-open"`)) {
		t.Error("the open incident is not in the current month's file")
	}

	// The next snapshot reads them back; a day of each month changes.
	dir := t.TempDir()
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
	next := New()
	if problems, err := ReadArchive(dir, next); err != nil || problems != nil {
		t.Fatal(problems, err)
	}
	if n := len(next.Days.Rows(KindService, "openai", "", "")); n != 61 {
		t.Fatalf("%d rows of openai read back, want 61", n)
	}
	for _, d := range []string{"2026-09-15", "2026-10-15"} {
		next.Days.Put(DayRow{Date: d, Kind: KindService, Subject: "openai", Time: Bucket{Major: 3600}})
	}
	next.Incidents = h.Incidents
	later := now.Add(6 * time.Hour)
	again, _, err := datasetFiles(next, later, "https://aistatus.example")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{DatasetFile(DatasetUptime, "2026-09"), DatasetFile(DatasetIncidents, "2026-09")} {
		if !bytes.Equal(again[name], files[name]) {
			t.Errorf("%s, closed, was rewritten", name)
		}
	}
	if bytes.Equal(again[DatasetFile(DatasetUptime, "2026-10")], files[DatasetFile(DatasetUptime, "2026-10")]) {
		t.Error("the open October was not rendered again")
	}
	// An unreadable file is kept byte for byte and reported.
	bad := filepath.Join(dir, "datasets", "uptime-2026-08.csv")
	if err := os.WriteFile(bad, []byte("not,a,dataset\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := New()
	if err := os.WriteFile(filepath.Join(dir, "datasets", "README.md"), []byte("by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	problems, err := ReadArchive(dir, kept)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "uptime-2026-08.csv") {
		t.Fatalf("problems %v, err %v", problems, err)
	}
	out, _, err := datasetFiles(kept, later, "https://aistatus.example")
	if err != nil || string(out["datasets/uptime-2026-08.csv"]) != "not,a,dataset\r\n" {
		t.Errorf("the unreadable file was not kept: %q %v", out["datasets/uptime-2026-08.csv"], err)
	}
	if string(out["datasets/README.md"]) != "by hand" {
		t.Error("a file put in datasets/ by hand was not kept")
	}
}

// TestDatasetUnverifiedFiles: a file of datasets/ whose bytes the previous
// index does not list — a closed month changed by hand, or a month planted —
// is published as found, but listed unverified and not closed, and its rows
// are not read back; this holds in every later build. An untouched month
// keeps its bytes, hash and closing, and with no index nothing is verified.
func TestDatasetUnverifiedFiles(t *testing.T) {
	t.Parallel()
	const base = "https://aistatus.example"
	// 2026-11-01 12:00: September is closed, October in its grace day.
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	files, idx, err := datasetFiles(datasetHistory(), now, base)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
	write := func(dir, name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Closed September's incidents gain one; October's uptime, closing in
	// the next build, loses a day of outage; July is planted.
	septInc, octUp, julyUp := DatasetFile(DatasetIncidents, "2026-09"), DatasetFile(DatasetUptime, "2026-10"), DatasetFile(DatasetUptime, "2026-07")
	tampered := map[string][]byte{
		septInc: append(slices.Clone(files[septInc]), `{"id":"made-up","service":"openai"}`+"\n"...),
		octUp:   bytes.Replace(files[octUp], []byte(",30,0,0,5,9,"), []byte(",0,0,0,5,0,"), 1),
	}
	planted, err := EncodeUptimeCSV([]DayRow{{Date: "2026-07-01", Kind: KindService, Subject: "openai", Time: Bucket{Major: 3600}}})
	if err != nil {
		t.Fatal(err)
	}
	tampered[julyUp] = planted
	if bytes.Equal(tampered[octUp], files[octUp]) {
		t.Fatal("October's file was not changed: the test proves nothing")
	}
	for name, data := range tampered {
		write(dir, name, data)
	}
	untouched := []string{DatasetFile(DatasetUptime, "2026-09"), DatasetFile(DatasetIncidents, "2026-10")}

	// Two builds after: the second reads the first's index, which must not
	// have laundered the files it found unverified.
	later := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC) // October closed
	for build := 1; build <= 2; build++ {
		next := New()
		problems, err := ReadArchive(dir, next)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != len(tampered) {
			t.Errorf("build %d: problems %q, want one per changed or planted file", build, problems)
		}
		for name := range tampered {
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, name+": ") }) {
				t.Errorf("build %d: %s not reported", build, name)
			}
		}
		// The rows of the changed and planted uptime files are not read.
		if got := next.Days.Rows(KindService, "openai", "", ""); len(got) != 30 || got[0].Date != "2026-09-01" || got[29].Date != "2026-09-30" {
			t.Errorf("build %d: %d rows of openai read back, want September's 30", build, len(got))
		}
		next.Incidents = datasetHistory().Incidents
		again, idx2, err := datasetFiles(next, later, base)
		if err != nil {
			t.Fatal(err)
		}
		entries := map[string]DatasetEntry{}
		for _, f := range idx2.Files {
			entries[f.Path[1:]] = f
		}
		for name, data := range tampered {
			f := entries[name]
			sum := sha256.Sum256(data)
			if !f.Unverified || f.Closed || !bytes.Equal(again[name], data) || f.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("build %d: %s listed %+v; want it kept as found, unverified, not closed", build, name, f)
			}
		}
		for _, name := range untouched {
			f, before := entries[name], idx.Files[slices.IndexFunc(idx.Files, func(f DatasetEntry) bool { return f.Path == "/"+name })]
			if f.Unverified || !f.Closed || f.SHA256 != before.SHA256 || !bytes.Equal(again[name], files[name]) {
				t.Errorf("build %d: untouched %s listed %+v, was %+v", build, name, f, before)
			}
		}
		if !strings.Contains(string(again[snapshot.FileDatasets]), `"unverified":true`) {
			t.Errorf("build %d: the index says nothing of it: %s", build, again[snapshot.FileDatasets])
		}
		dir = t.TempDir()
		if err := snapshot.Publish(dir, again); err != nil {
			t.Fatal(err)
		}
	}

	// Without an index, nothing can be verified.
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(snapshot.FileDatasets))); err != nil {
		t.Fatal(err)
	}
	next := New()
	problems, err := ReadArchive(dir, next)
	if err != nil || len(problems) == 0 || !strings.HasPrefix(problems[0], snapshot.FileDatasets+": ") || len(next.Days) != 0 {
		t.Errorf("without an index: problems %q, %d days read, err %v", problems, len(next.Days), err)
	}
	_, idx3, err := datasetFiles(next, later, base)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range idx3.Files {
		if f.Month != "2026-11" && (!f.Unverified || f.Closed) { // November, open, is rendered anew
			t.Errorf("without an index: %+v", f)
		}
	}
}

// TestDatasetThirdPartyReaders reads the dataset with readers that are not
// ours: Python's csv, json and hashlib modules check the index (size, row
// count, SHA-256), the CSV's header, CRLF line ends and values, and jq
// parses every NDJSON line as one JSON object in the API's incident shape.
func TestDatasetThirdPartyReaders(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed (Debian: apt-get install python3; .ci/run installs it)")
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq not installed (Debian: apt-get install jq; .ci/run installs it)")
	}
	files, idx, err := datasetFiles(datasetHistory(), time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), "https://aistatus.example")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
	script := `
import csv, hashlib, json, sys
root = sys.argv[1]
idx = json.load(open(root + "/datasets/index.json", encoding="utf-8"))
assert idx["license"] == "CC-BY-4.0", idx["license"]
names = [c["name"] for c in idx["columns"]]
for f in idx["files"]:
    data = open(root + f["path"], "rb").read()
    assert len(data) == f["bytes"], (f["path"], len(data), f["bytes"])
    assert hashlib.sha256(data).hexdigest() == f["sha256"], f["path"]
    if f["kind"] == "uptime":
        assert data.endswith(b"\r\n") and data.count(b"\n") == data.count(b"\r\n"), "not CRLF: " + f["path"]
        rows = list(csv.reader(data.decode("utf-8").splitlines(), strict=True))
        assert rows[0] == names, rows[0]
        body = [dict(zip(names, r)) for r in rows[1:]]
        assert len(body) == f["rows"], (f["path"], len(body), f["rows"])
        for r in body:
            assert r["date"].startswith(f["month"]) and r["kind"] == "service"
            assert 0 <= float(r["uptime_percent"]) <= 100 and 0 <= float(r["coverage"]) <= 1
            total = sum(float(r[c]) for c in names[5:11])
            assert total <= 1440.01, total
    else:
        lines = data.decode("utf-8").split("\n")
        assert lines[-1] == "", "no final newline"
        assert len(lines) - 1 == f["rows"], (f["path"], len(lines) - 1, f["rows"])
print(sum(f["rows"] for f in idx["files"]))
`
	out, err := exec.Command(python, "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 rejects the dataset: %v\n%s", err, out)
	}
	total := 0
	for _, f := range idx.Files {
		total += f.Rows
	}
	if got := strings.TrimSpace(string(out)); got != strconv.Itoa(total) {
		t.Errorf("python3 counted %s rows, the index %d", got, total)
	}
	for _, f := range idx.Files {
		if f.Kind != DatasetIncidents {
			continue
		}
		// -e fails on a line that is not an object with the incident's keys.
		out, err := exec.Command(jq, "-e", "-c",
			`select(type == "object" and has("id") and has("service") and has("severity") and has("startedAt") and has("endedAt")) | .id`,
			filepath.Join(dir, filepath.FromSlash(f.Path))).CombinedOutput()
		if err != nil {
			t.Fatalf("jq rejects %s: %v\n%s", f.Path, err, out)
		}
		if n := strings.Count(string(out), "\n"); n != f.Rows {
			t.Errorf("jq read %d incidents from %s, the index says %d", n, f.Path, f.Rows)
		}
		var first api.Incident
		line, _, _ := bytes.Cut(files[f.Path[1:]], []byte("\n"))
		if err := json.Unmarshal(line, &first); err != nil || first.ID == "" {
			t.Errorf("%s: first line %q is not an incident: %v", f.Path, line, err)
		}
	}
}

// datasetFiles renders the dataset in memory (see WriteDataset).
func datasetFiles(h *History, now time.Time, base string) (snapshot.Files, DatasetIndex, error) {
	files := snapshot.Files{}
	idx, err := WriteDataset(files, h, now, base)
	return files, idx, err
}
