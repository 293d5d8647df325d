package api

import (
	"slices"
	"testing"
	"time"
)

func TestWorse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b, want Status
	}{
		// Unknown loses to every known status, in either argument position.
		{Unknown, Unknown, Unknown},
		{Unknown, Operational, Operational},
		{Operational, Unknown, Operational},
		{Unknown, Maintenance, Maintenance},
		{Maintenance, Unknown, Maintenance},
		{Unknown, Degraded, Degraded},
		{Unknown, PartialOutage, PartialOutage},
		{Unknown, MajorOutage, MajorOutage},
		{MajorOutage, Unknown, MajorOutage},
		// major > partial > degraded > maintenance > operational.
		{MajorOutage, PartialOutage, MajorOutage},
		{PartialOutage, MajorOutage, MajorOutage},
		{PartialOutage, Degraded, PartialOutage},
		{Degraded, PartialOutage, PartialOutage},
		{Degraded, Maintenance, Degraded},
		{Maintenance, Degraded, Degraded},
		{Maintenance, Operational, Maintenance},
		{Operational, Maintenance, Maintenance},
		{Operational, Degraded, Degraded},
		{Operational, MajorOutage, MajorOutage},
		// An outage during maintenance is an outage.
		{Maintenance, MajorOutage, MajorOutage},
		{Maintenance, PartialOutage, PartialOutage},
		// Equal statuses.
		{Operational, Operational, Operational},
		{MajorOutage, MajorOutage, MajorOutage},
	}
	for _, tt := range tests {
		t.Run(string(tt.a)+"+"+string(tt.b), func(t *testing.T) {
			if got := Worse(tt.a, tt.b); got != tt.want {
				t.Errorf("Worse(%s, %s) = %s, want %s", tt.a, tt.b, got, tt.want)
			}
		})
	}

	t.Run("total order", func(t *testing.T) {
		// From best-known to worst; Unknown first because it loses to all.
		order := []Status{Unknown, Operational, Maintenance, Degraded, PartialOutage, MajorOutage}
		for i, a := range order {
			for j, b := range order {
				want := order[max(i, j)]
				if got := Worse(a, b); got != want {
					t.Errorf("Worse(%s, %s) = %s, want %s", a, b, got, want)
				}
			}
		}
	})

	t.Run("fold", func(t *testing.T) {
		acc := Unknown
		for _, s := range []Status{Unknown, Operational, Maintenance, Degraded, Operational, Unknown} {
			acc = Worse(acc, s)
		}
		if acc != Degraded {
			t.Errorf("folded status = %s, want degraded", acc)
		}
	})
}

func TestStatusValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    Status
		want bool
	}{
		{Operational, true},
		{Degraded, true},
		{PartialOutage, true},
		{MajorOutage, true},
		{Maintenance, true},
		{Unknown, true},
		{"", false},
		{"Operational", false},
		{"down", false},
		{"partial outage", false},
		{"major", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.s), func(t *testing.T) {
			if got := tt.s.Valid(); got != tt.want {
				t.Errorf("Status(%q).Valid() = %v, want %v", tt.s, got, tt.want)
			}
		})
	}

	t.Run("Statuses lists every valid status once", func(t *testing.T) {
		if len(Statuses) != 6 {
			t.Errorf("len(Statuses) = %d, want 6", len(Statuses))
		}
		seen := map[Status]bool{}
		for _, s := range Statuses {
			if !s.Valid() {
				t.Errorf("Statuses holds invalid %q", s)
			}
			if seen[s] {
				t.Errorf("Statuses holds %q twice", s)
			}
			seen[s] = true
		}
		if Statuses[0] != Operational {
			t.Errorf("Statuses[0] = %s, want operational (best first)", Statuses[0])
		}
	})
}

// Basis.Valid accepts exactly Bases: a status's basis is official,
// measured, probe or none, never empty (a document written before the field) or anything else.
func TestBasisValid(t *testing.T) {
	t.Parallel()
	for _, b := range Bases {
		if !b.Valid() {
			t.Errorf("Bases holds invalid %q", b)
		}
	}
	for _, b := range []Basis{"", "measure", "Official", "unknown"} {
		if b.Valid() {
			t.Errorf("Basis(%q).Valid() = true", b)
		}
	}
	if len(Bases) != 4 || Bases[0] != BasisOfficial {
		t.Errorf("Bases = %q, want official first of four", Bases)
	}
}

func TestSeverityValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    Severity
		want bool
	}{
		{Minor, true},
		{Major, true},
		{Critical, true},
		{"", false},
		{"none", false},
		{"Major", false},
		{"major_outage", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.s), func(t *testing.T) {
			if got := tt.s.Valid(); got != tt.want {
				t.Errorf("Severity(%q).Valid() = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
	if want := []Severity{Minor, Major, Critical}; len(Severities) != 3 || Severities[0] != want[0] || Severities[1] != want[1] || Severities[2] != want[2] {
		t.Errorf("Severities = %v, want %v (mildest first)", Severities, want)
	}
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		20 * time.Second: "1 min", 45 * time.Minute: "45 min", time.Hour: "1 h",
		80 * time.Minute: "1 h 20 min", 26 * time.Hour: "1 d 2 h", 26*time.Hour + 42*time.Minute: "1 d 2 h",
		47*time.Hour + 59*time.Minute: "1 d 23 h", 48 * time.Hour: "2 d", 50 * time.Hour: "2 d 2 h",
	} {
		if got := HumanDuration(d); got != want {
			t.Errorf("HumanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestJoinListAndTruncate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		items []string
		want  string
	}{{nil, ""}, {[]string{"A"}, "A"}, {[]string{"A", "B"}, "A or B"}, {[]string{"A", "B", "C"}, "A, B or C"}} {
		if got := JoinList(tt.items, " or "); got != tt.want {
			t.Errorf("JoinList(%q) = %q, want %q", tt.items, got, tt.want)
		}
	}
	if got := Truncate("abcdef", 3); got != "abc…" {
		t.Errorf("Truncate = %q", got)
	}
	if got := Truncate("abc", 3); got != "abc" {
		t.Errorf("Truncate of a short string = %q", got)
	}
}

// TestDurationPhrase phrases only the severities with percentiles (at
// history.MinBasis incidents), and nothing without any.
func TestDurationPhrase(t *testing.T) {
	t.Parallel()
	minutes := func(n int) *int { return &n }
	for _, tc := range []struct {
		name string
		d    DurationBySeverity
		want string
	}{
		{"none", DurationBySeverity{}, ""},
		{"below the basis", DurationBySeverity{Major: DurationStats{Incidents: 4}}, ""},
		{"one severity", DurationBySeverity{Minor: DurationStats{Incidents: 2}, Major: DurationStats{Incidents: 5, P50Minutes: minutes(30), P90Minutes: minutes(50)}},
			"major p50 30 min, p90 50 min (5)"},
		{"in order of severity", DurationBySeverity{
			Critical: DurationStats{Incidents: 6, P50Minutes: minutes(90), P90Minutes: minutes(240)},
			Minor:    DurationStats{Incidents: 12, P50Minutes: minutes(12), P90Minutes: minutes(47)}},
			"minor p50 12 min, p90 47 min (12); critical p50 90 min, p90 240 min (6)"},
	} {
		if got := tc.d.Phrase(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestStatusTable: the one table of how statuses are said covers every
// status exactly once, and no two statuses share a word, an emoji or a
// label, so that no output can say two statuses alike.
func TestStatusTable(t *testing.T) {
	t.Parallel()
	if len(StatusTable) != len(Statuses) {
		t.Fatalf("StatusTable has %d rows for %d statuses", len(StatusTable), len(Statuses))
	}
	seen := map[Status]bool{}
	words, emoji, labels := map[string]Status{}, map[string]Status{}, map[string]Status{}
	for _, say := range StatusTable {
		if seen[say.Status] {
			t.Errorf("%s is in StatusTable twice", say.Status)
		}
		seen[say.Status] = true
		for _, f := range []struct {
			what, v string
			in      map[string]Status
		}{{"word", say.Word, words}, {"emoji", say.Emoji, emoji}, {"label", say.Label, labels}} {
			if f.v == "" {
				t.Errorf("%s has no %s", say.Status, f.what)
			}
			if other, dup := f.in[f.v]; dup {
				t.Errorf("%s and %s share the %s %q", other, say.Status, f.what, f.v)
			}
			f.in[f.v] = say.Status
		}
	}
	for _, st := range Statuses {
		if !seen[st] {
			t.Errorf("%s is not in StatusTable", st)
		}
		if st.Say().Status != st {
			t.Errorf("%s.Say() is %s's", st, st.Say().Status)
		}
	}
	if got := Status("bogus").Say(); got.Status != Unknown {
		t.Errorf("an unrecognised status is said as %s, want unknown", got.Status)
	}
}

// TestStatusOrders: every order of statuses is the table's.
func TestStatusOrders(t *testing.T) {
	t.Parallel()
	trouble := []Status{Operational, Unknown, Maintenance, Degraded, PartialOutage, MajorOutage}
	for i, a := range trouble {
		if a.Trouble() != i {
			t.Errorf("%s.Trouble() = %d, want %d", a, a.Trouble(), i)
		}
		for j, b := range trouble {
			if got, want := MoreTrouble(a, b), trouble[max(i, j)]; got != want {
				t.Errorf("MoreTrouble(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
	usable := []Status{Operational, Degraded, Maintenance, PartialOutage, MajorOutage, Unknown}
	if got := ByUsability(); !slices.Equal(got, usable) {
		t.Errorf("ByUsability() = %v, want %v", got, usable)
	}
	for i, a := range usable {
		for j, b := range usable {
			if got := CompareUsable(a, b); (got < 0) != (i < j) || (got == 0) != (i == j) {
				t.Errorf("CompareUsable(%s, %s) = %d", a, b, got)
			}
		}
	}
	if CompareUsable("bogus", Unknown) != 0 || CompareUsable("bogus", MajorOutage) <= 0 {
		t.Error("an unrecognised status does not sort with unknown, last")
	}
	if !Degraded.AtLeast(Degraded) || !MajorOutage.AtLeast(Degraded) || Maintenance.AtLeast(Degraded) || Unknown.AtLeast(Degraded) {
		t.Error("AtLeast(degraded) is not degraded or worse")
	}
}
