package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// The open dataset: monthly files under CC-BY-4.0 in snapshot.DirDatasets — the
// daily rollups of every service as CSV (RFC 4180, CRLF line ends) and the
// incidents as NDJSON (one incident per line, the API's shape) — and an
// index listing each file with its month, size, row count and SHA-256.
//
// A month's files are rewritten by every build until the month has been
// over for MonthCloseGrace; from then on they are closed: published again
// byte for byte by every later build (from the previous snapshot), never
// rewritten, and served as immutable. They are also the store of the daily
// rows: the next build reads them back (ReadArchive), each file checked
// against the SHA-256 the previous index lists for it.
const (
	// MonthCloseGrace is how long after its end a month stays open: the
	// last day's last minutes are credited by the first check after
	// midnight, and an outage confirmed then may restate up to an hour.
	MonthCloseGrace = Day
)

// Dataset kinds.
const (
	DatasetUptime    = "uptime"
	DatasetIncidents = "incidents"
)

// DatasetFile names the file of kind for month (YYYY-MM).
func DatasetFile(kind, month string) string {
	ext := ".csv"
	if kind == DatasetIncidents {
		ext = ".ndjson"
	}
	return snapshot.DirDatasets + "/" + kind + "-" + month + ext
}

// parseDatasetFile is DatasetFile's inverse.
func parseDatasetFile(name string) (kind, month string, ok bool) {
	base, found := strings.CutPrefix(name, snapshot.DirDatasets+"/")
	if !found {
		return "", "", false
	}
	for _, k := range []string{DatasetUptime, DatasetIncidents} {
		if m, found := strings.CutPrefix(base, k+"-"); found {
			m = strings.TrimSuffix(m, path.Ext(m))
			if _, err := time.Parse("2006-01", m); err == nil && DatasetFile(k, m) == name {
				return k, m, true
			}
		}
	}
	return "", "", false
}

// MonthClosed reports whether month (YYYY-MM) is closed at now.
func MonthClosed(month string, now time.Time) bool {
	start, err := time.Parse("2006-01", month)
	if err != nil {
		return false
	}
	return !now.Before(start.AddDate(0, 1, 0).Add(MonthCloseGrace))
}

// DatasetIndex is datasets/index.json.
type DatasetIndex struct {
	Description string `json:"description"`
	// Columns describes the uptime CSV's columns, in order.
	Columns     []DatasetColumn `json:"columns"`
	Files       []DatasetEntry  `json:"files"`
	Attribution string          `json:"attribution"`
	Timestamp   time.Time       `json:"timestamp"`
	License     string          `json:"license"`
}

// DatasetColumn is one column of the uptime CSV.
type DatasetColumn struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// DatasetEntry is one file of the dataset.
type DatasetEntry struct {
	Kind  string `json:"kind"`
	Month string `json:"month"`
	// Path is the file's path from the site root; URL its address.
	Path      string `json:"path"`
	URL       string `json:"url"`
	MediaType string `json:"mediaType"`
	// Closed files never change again.
	Closed bool   `json:"closed"`
	Bytes  int    `json:"bytes"`
	Rows   int    `json:"rows"`
	SHA256 string `json:"sha256"`
	// Unverified marks a file carried over whose bytes the previous index
	// did not list: changed or put in datasets/ by hand since, or no index
	// to check against. There is no other copy to restore (a build keeps no
	// older snapshot), nor a whole one to render again (the hourly buckets
	// last 32 days, incidents 90), so it is published as found and said
	// so: never closed, its rows not read back, and unverified for good.
	Unverified bool `json:"unverified,omitempty"`
}

// uptimeColumns are the uptime CSV's header and what each column holds.
var uptimeColumns = []DatasetColumn{
	{"date", "the UTC day, YYYY-MM-DD"},
	{"kind", `what the row is about: "service"`},
	{"subject", "the service's slug"},
	{"uptime_percent", "100 × (observed − downtime) / observed, floored to three decimals; empty when nothing was observed. Downtime is major-outage time plus 0.3 × partial-outage time; maintenance and unknown time are left out"},
	{"coverage", "share of the day (0–1) with a known status, maintenance included"},
	{"operational_minutes", "minutes the service was operational"},
	{"degraded_minutes", "minutes degraded"},
	{"partial_outage_minutes", "minutes in partial outage"},
	{"major_outage_minutes", "minutes in major outage"},
	{"maintenance_minutes", "minutes in maintenance"},
	{"unknown_minutes", "minutes checked but unknown; the rest of the day (1440 minus all these) had no check"},
	{"downtime_minutes", "major_outage_minutes + 0.3 × partial_outage_minutes"},
	{"incidents", "incidents (official and our probe's) that started that day"},
	{"incidents_minor", "of which minor"},
	{"incidents_major", "of which major"},
	{"incidents_critical", "of which critical"},
	{"probes", "successful probes of the service's API that day"},
	{"latency_ms_avg", "their mean latency in milliseconds; empty without probes"},
}

// minutes formats seconds as minutes with at most three decimals.
func minutes(seconds float64) string {
	return strconv.FormatFloat(math3(seconds/60), 'f', -1, 64)
}

func math3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// EncodeUptimeCSV renders rows as the uptime CSV: a header line, then one
// line per row, CRLF line ends.
func EncodeUptimeCSV(rows []DayRow) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	header := make([]string, len(uptimeColumns))
	for i, c := range uptimeColumns {
		header[i] = c.Name
	}
	if err := w.Write(header); err != nil {
		return nil, err
	}
	for _, r := range rows {
		uptime, latency := "", ""
		if p := r.Uptime(); p != nil {
			uptime = strconv.FormatFloat(*p, 'f', -1, 64)
		}
		if r.Time.Probes > 0 {
			latency = strconv.FormatFloat(math3(r.Time.LatencyMs/float64(r.Time.Probes)), 'f', -1, 64)
		}
		t := r.Time
		if err := w.Write([]string{r.Date, r.Kind, r.Subject, uptime, strconv.FormatFloat(r.Coverage(), 'f', -1, 64),
			minutes(t.Operational), minutes(t.Degraded), minutes(t.Partial), minutes(t.Major), minutes(t.Maintenance),
			minutes(t.Unknown), minutes(t.down()), strconv.Itoa(r.Incidents), strconv.Itoa(r.Minor),
			strconv.Itoa(r.Major), strconv.Itoa(r.Critical), strconv.Itoa(t.Probes), latency}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// DecodeUptimeCSV reads rows back from an uptime CSV.
func DecodeUptimeCSV(data []byte) ([]DayRow, error) {
	records, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(records) == 0 || len(records[0]) != len(uptimeColumns) || records[0][0] != uptimeColumns[0].Name {
		return nil, errors.New("not an uptime file: unexpected header")
	}
	rows := make([]DayRow, 0, len(records)-1)
	for n, rec := range records[1:] {
		var nums [15]float64
		for i, v := range rec[3:] {
			if v == "" {
				continue
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || f > 1e9 {
				return nil, fmt.Errorf("line %d: column %s: %q is not a count", n+2, uptimeColumns[i+3].Name, v)
			}
			nums[i] = f
		}
		if _, err := time.Parse(time.DateOnly, rec[0]); err != nil || rec[1] == "" || rec[2] == "" {
			return nil, fmt.Errorf("line %d: no date, kind or subject", n+2)
		}
		// nums: 0 uptime, 1 coverage, 2–7 minutes by status, 8 downtime,
		// 9–12 incidents, 13 probes, 14 latency.
		b := Bucket{Operational: nums[2] * 60, Degraded: nums[3] * 60, Partial: nums[4] * 60, Major: nums[5] * 60,
			Maintenance: nums[6] * 60, Unknown: nums[7] * 60, Probes: int(nums[13])}
		b.LatencyMs = nums[14] * float64(b.Probes)
		if b.observed()+b.Maintenance+b.Unknown > Day.Seconds()+60 {
			return nil, fmt.Errorf("line %d: more than a day of status time", n+2)
		}
		rows = append(rows, DayRow{Date: rec[0], Kind: rec[1], Subject: rec[2], Time: b,
			Incidents: int(nums[9]), Minor: int(nums[10]), Major: int(nums[11]), Critical: int(nums[12])})
	}
	return rows, nil
}

// ReadArchive reads the previous snapshot's dataset files in dir into h:
// every file's bytes (Archive), and the uptime files' rows (Days). A file
// that cannot be read back is still kept, byte for byte, so nothing
// published is lost; its rows are missing from the long windows and the
// history, and the returned problems say which. So is a file whose bytes
// are not those the previous index lists (ArchiveUnverified): the index is
// what the builds vouch for, the folder only what is there now.
func ReadArchive(dir string, h *History) (problems []string, err error) {
	if h.Days == nil {
		h.Days = DaySeries{}
	}
	h.Archive = map[string]string{}
	h.ArchiveUnverified = map[string]bool{}
	entries, err := os.ReadDir(filepath.Join(dir, snapshot.DirDatasets))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	listed, err := listedSums(dir)
	if err != nil {
		problems = append(problems, fmt.Sprintf("%s: %v: no dataset file can be verified", snapshot.FileDatasets, err))
	}
	for _, e := range entries {
		name := snapshot.DirDatasets + "/" + e.Name()
		// The index is made anew; any other file is kept, even one the
		// build did not write (the folder is replaced as a whole).
		if name == snapshot.FileDatasets || !e.Type().IsRegular() {
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(name))
		h.Archive[name] = file
		kind, _, ok := parseDatasetFile(name)
		if !ok {
			continue // carried over, never listed
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != listed[name] {
			h.ArchiveUnverified[name] = true
			problems = append(problems, fmt.Sprintf("%s: not the bytes the previous index lists (changed or put there by hand): "+
				"not read; kept as found and listed unverified unless the build writes the month anew", name))
			continue
		}
		if kind != DatasetUptime {
			continue
		}
		rows, err := DecodeUptimeCSV(data)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		for _, r := range rows {
			h.Days.Put(r)
		}
	}
	return problems, nil
}

// listedSums is the SHA-256 the dataset index in dir lists for each file
// it vouches for (not those it marks unverified), by file name; empty, and
// an error, when there is no index to read.
func listedSums(dir string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(snapshot.FileDatasets)))
	if err != nil {
		return nil, err
	}
	var idx DatasetIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, err
	}
	sums := map[string]string{}
	for _, f := range idx.Files {
		if !f.Unverified {
			sums[strings.TrimPrefix(f.Path, "/")] = f.SHA256
		}
	}
	return sums, nil
}

// WriteDataset writes the dataset into out: each month's files and the
// index. A closed month whose file the previous snapshot had is published
// as it was, read from h.Archive when its turn comes, and listed as
// unverified when ReadArchive found it so; an open month is rendered from
// h.Days and the retained incidents. base is the site's address, for the
// index's URLs.
func WriteDataset(out snapshot.Sink, h *History, now time.Time, base string) (DatasetIndex, error) {
	idx := DatasetIndex{
		Description: "Monthly files of aistatus's data: daily uptime per service (CSV, RFC 4180) and incidents " +
			"(NDJSON, one incident per line in the API's shape, in the month they ended; the current month also " +
			"holds the open ones). A month closes a day after it ends (MonthCloseGrace): its files never change again. " +
			"A file marked unverified is not as aistatus published it (changed or added by hand): kept as found, never closed.",
		Columns: uptimeColumns, Attribution: api.Attribution(base), Timestamp: now.UTC(), License: api.License,
	}
	// Each file is rendered (or read back) when its turn comes, in name
	// order, and dropped once written.
	render := map[string]func() ([]byte, error){}
	archived := func(name string) bool {
		_, ok := h.Archive[name]
		_, month, _ := parseDatasetFile(name)
		return ok && MonthClosed(month, now)
	}
	// Uptime rows by month, in date then subject order.
	byMonth := map[string][]DayRow{}
	for _, k := range slices.Sorted(maps.Keys(h.Days)) {
		for _, r := range h.Days[k] {
			byMonth[r.Date[:7]] = append(byMonth[r.Date[:7]], r)
		}
	}
	for month, rows := range byMonth {
		if name := DatasetFile(DatasetUptime, month); !archived(name) {
			render[name] = func() ([]byte, error) {
				slices.SortStableFunc(rows, func(a, b DayRow) int { return strings.Compare(a.Date, b.Date) })
				return EncodeUptimeCSV(rows)
			}
		}
	}
	// Incidents by the month they ended in; the open ones in the current month.
	// A month whose file is archived is not gathered at all: at the
	// retention caps that is most of 100 000 incidents.
	current := now.UTC().Format("2006-01")
	incidents := map[string][]api.Incident{current: nil}
	kept := map[string]bool{}
	for _, inc := range h.Incidents {
		month := current
		if inc.EndedAt != nil {
			month = inc.EndedAt.UTC().Format("2006-01")
		}
		archivedMonth, seen := kept[month]
		if !seen {
			archivedMonth = archived(DatasetFile(DatasetIncidents, month))
			kept[month] = archivedMonth
		}
		if !archivedMonth {
			incidents[month] = append(incidents[month], inc)
		}
	}
	for month, list := range incidents {
		name := DatasetFile(DatasetIncidents, month)
		if archived(name) || MonthClosed(month, now) && len(list) == 0 {
			continue
		}
		render[name] = func() ([]byte, error) { return encodeNDJSON(list) }
	}
	// Whatever else the previous snapshot's dataset held is kept, byte for
	// byte: closed months, and files the build does not write.
	carried := map[string]bool{}
	for name, file := range h.Archive {
		if _, ok := render[name]; !ok {
			render[name] = func() ([]byte, error) { return os.ReadFile(file) }
			carried[name] = true
		}
	}

	for _, name := range slices.Sorted(maps.Keys(render)) {
		data, err := render[name]()
		if err != nil {
			return DatasetIndex{}, fmt.Errorf("render %s: %w", name, err)
		}
		if err := out.Put(name, data); err != nil {
			return DatasetIndex{}, err
		}
		kind, month, ok := parseDatasetFile(name)
		if !ok {
			continue // kept, not one of the dataset's files
		}
		sum := sha256.Sum256(data)
		rows := bytes.Count(data, []byte("\n"))
		media := snapshot.ContentNDJSON
		if kind == DatasetUptime {
			rows-- // the header
			media = snapshot.ContentCSV
		}
		// The SHA-256 is that of the bytes published, verified or not: a
		// download is checked against it all the same.
		unverified := carried[name] && h.ArchiveUnverified[name]
		idx.Files = append(idx.Files, DatasetEntry{Kind: kind, Month: month, Path: "/" + name,
			URL: strings.TrimSuffix(base, "/") + "/" + name, MediaType: media, Closed: MonthClosed(month, now) && !unverified,
			Bytes: len(data), Rows: max(rows, 0), SHA256: hex.EncodeToString(sum[:]), Unverified: unverified})
	}
	data, err := json.Marshal(idx)
	if err != nil {
		return DatasetIndex{}, err
	}
	return idx, out.Put(snapshot.FileDatasets, append(data, '\n'))
}

// encodeNDJSON is incidents as NDJSON, oldest first, as a log reads.
func encodeNDJSON(list []api.Incident) ([]byte, error) {
	slices.SortFunc(list, func(a, b api.Incident) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	var buf bytes.Buffer
	buf.Grow(400 * len(list)) // an incident is about 350 bytes
	err := WriteNDJSON(&buf, list)
	return buf.Bytes(), err
}
