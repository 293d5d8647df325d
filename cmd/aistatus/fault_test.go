package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/snapshot"
)

// TestBuildKilledAtRandomPoints runs the real binary's build against a
// loopback fake of every service and SIGKILLs it at a random point, again and
// again. After every kill the folder must hold a complete snapshot — the
// previous one untouched or the next one whole — whose history lost nothing,
// and a build that then completes must leave no staging folder behind.
func TestBuildKilledAtRandomPoints(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault test")
	}
	// A fixed count of rounds, never a time budget: a slow machine runs
	// the same test, only slower. -tags long runs the full count.
	rounds := 6
	if buildtest.Long {
		rounds = 40
	}
	const seed = 20261101
	bin := filepath.Join(t.TempDir(), "aistatus")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	catalog := writeCatalog(t, world.Catalog)
	parent := t.TempDir()
	dir := filepath.Join(parent, "public")

	// runBuild runs one build, killed after kill (0: never), and reports
	// whether it completed on its own.
	runBuild := func(kill time.Duration) bool {
		ctx := context.Background()
		if kill > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, kill)
			defer cancel()
		}
		// exec.CommandContext sends SIGKILL when ctx ends: no chance to clean up.
		cmd := exec.CommandContext(ctx, bin, "build", "--out", dir, "--catalog", catalog,
			"--base-url", "http://aistatus.test", "--timeout", "5s", "--log-format", "json")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if err != nil && ctx.Err() == nil {
			t.Fatalf("build failed on its own: %v\n%s", err, out.Bytes())
		}
		return err == nil
	}
	noLeftovers := func(when string) {
		t.Helper()
		left, _ := filepath.Glob(filepath.Join(parent, ".public.staging-*"))
		if aside, _ := filepath.Glob(filepath.Join(parent, ".public.previous")); len(aside) > 0 {
			left = append(left, aside...)
		}
		if len(left) > 0 {
			t.Fatalf("%s: leftovers %v", when, left)
		}
	}

	// A first, complete build: the state every kill is compared with. Its
	// duration sets the range of kill delays (0–300 ms at least, one and a half
	// builds at most), so that kills land in every phase (start-up,
	// probing, writing, the swap) and about a third of the builds finish.
	start := time.Now()
	if !runBuild(0) {
		t.Fatal("the first build did not complete")
	}
	maxDelay := max(300*time.Millisecond, 3*time.Since(start)/2)
	prev := readState(t, dir)

	rng := rand.New(rand.NewPCG(seed, 0))
	var killed, completed int
	for round := range rounds {
		delay := time.Duration(rng.Int64N(int64(maxDelay)))
		before := time.Now()
		done := runBuild(delay)
		cur := readState(t, dir)
		switch {
		case cur.generatedAt.Equal(prev.generatedAt):
			// The previous snapshot, untouched — its history included.
			if !bytes.Equal(cur.history, prev.history) {
				t.Fatalf("round %d (kill at %v): same snapshot, but its history changed", round, delay)
			}
			if done {
				t.Fatalf("round %d: a completed build published nothing", round)
			}
		case cur.generatedAt.Before(before) || cur.generatedAt.After(time.Now()):
			t.Fatalf("round %d (kill at %v): snapshot of %v is neither the previous (%v) nor this build's",
				round, delay, cur.generatedAt, prev.generatedAt)
		default:
			// The next snapshot, whole: every service has one more check.
			for slug, n := range prev.checks {
				if cur.checks[slug] < n {
					t.Fatalf("round %d (kill at %v): %s has %d checks recorded, had %d", round, delay, slug, cur.checks[slug], n)
				}
				if !cur.lastChecked[slug].Equal(cur.generatedAt) {
					t.Fatalf("round %d (kill at %v): %s last checked %v in a snapshot of %v", round, delay, slug, cur.lastChecked[slug], cur.generatedAt)
				}
			}
		}
		if done {
			completed++
			noLeftovers("after a completed build")
		} else {
			killed++
		}
		prev = cur
	}
	if !runBuild(0) {
		t.Fatal("the last build did not complete")
	}
	readState(t, dir)
	noLeftovers("after the last build")
	if killed == 0 {
		t.Fatal("no build was interrupted")
	}
	t.Logf("%d builds killed, %d completed (kill delays 0–%v, seed %d)", killed, completed, maxDelay, seed)
}

// buildState is what a kill test compares between rounds.
type buildState struct {
	generatedAt time.Time
	history     []byte
	checks      map[string]int // successful probes recorded per service
	lastChecked map[string]time.Time
}

// readState loads dir as the server would (every file, parsed) and reads its
// history; either failing means a kill left a broken snapshot.
func readState(t *testing.T, dir string) buildState {
	t.Helper()
	snap, err := serve.Load(dir)
	if err != nil {
		t.Fatalf("snapshot does not load: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, snapshot.FileHistory))
	if err != nil {
		t.Fatalf("history.json: %v", err)
	}
	h, _, err := history.ReadHistory(dir)
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	st := buildState{generatedAt: snap.Manifest.GeneratedAt, history: data, checks: map[string]int{}, lastChecked: map[string]time.Time{}}
	for slug, sh := range h.Services {
		for _, b := range sh.Buckets {
			st.checks[slug] += b.Probes
		}
		st.lastChecked[slug] = sh.LastChecked
	}
	return st
}
