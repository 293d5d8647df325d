package snapshot

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tree returns every entry under dir: files as path → content, folders as
// "path/" → "", symbolic links as path → "-> target".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "-> " + target
		case d.IsDir():
			out[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return out
}

// expectTree is the tree Publish should produce for files: the files plus
// every folder on their paths.
func expectTree(files map[string][]byte, extra map[string]string) map[string]string {
	out := map[string]string{}
	for name, data := range files {
		out[name] = string(data)
		for d := filepath.ToSlash(filepath.Dir(name)); d != "."; d = filepath.ToSlash(filepath.Dir(d)) {
			out[d+"/"] = ""
		}
	}
	maps.Copy(out, extra)
	return out
}

func diffTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: %s missing", what, k)
		} else if g != want[k] {
			t.Errorf("%s: %s = %q, want %q", what, k, g, want[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected %s", what, k)
		}
	}
}

// names lists a folder's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out
}

// checkParent asserts that after a finished publish the parent holds only
// the snapshot folder and its lock file (which is kept on purpose: removing a
// lock file while another build may be waiting on it would be unsafe).
func checkParent(t *testing.T, parent, base string) {
	t.Helper()
	want := []string{"." + base + ".lock", base}
	if got := names(t, parent); !slices.Equal(got, want) {
		t.Errorf("parent holds %v, want %v (no staging folders or leftovers)", got, want)
	}
}

// gen returns a snapshot whose every file carries the generation number.
func gen(n int) map[string][]byte {
	s := strconv.Itoa(n)
	return map[string][]byte{
		FileManifest:            []byte(`{"generation":` + s + `}`),
		FileStatus:              []byte("status " + s),
		ServiceFile("openai"):   []byte("openai " + s),
		ServiceFile("cohere"):   []byte("cohere " + s),
		"deep/er/nested/x.json": []byte("nested " + s),
	}
}

func mustPublish(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if err := Publish(dir, files); err != nil {
		t.Fatalf("Publish: %v", err)
	}
}

func TestPublishFirst(t *testing.T) {
	t.Parallel()
	parent := filepath.Join(t.TempDir(), "not", "yet")
	dir := filepath.Join(parent, "public")
	files := gen(1)
	mustPublish(t, dir, files)
	diffTree(t, "first publish", tree(t, dir), expectTree(files, nil))
	checkParent(t, parent, "public")
}

func TestPublishRelativeDir(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	mustPublish(t, "out", gen(1))
	diffTree(t, "relative", tree(t, filepath.Join(root, "out")), expectTree(gen(1), nil))
	checkParent(t, root, "out")
}

func TestPublishReplaces(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "public")
	first := gen(1)
	first[ServiceFile("retired")] = []byte("retired 1")
	first["old-top-level.json"] = []byte("old 1")
	mustPublish(t, dir, first)

	second := gen(2)
	mustPublish(t, dir, second)

	// Every file of the second snapshot has its new content. services/ is
	// written again, so it is replaced as a whole: services/retired.json is
	// gone. old-top-level.json is a top-level entry the second snapshot does
	// not write, so it is carried over (see TestPublishCarriesOver).
	want := expectTree(second, map[string]string{"old-top-level.json": "old 1"})
	diffTree(t, "second publish", tree(t, dir), want)
	checkParent(t, parent, "public")
}

func TestPublishCarriesOver(t *testing.T) {
	t.Parallel()
	// Intended behaviour (Publish doc comment): top-level entries that the
	// new snapshot does not write — a hand-placed README, a CNAME for a static
	// host, a folder of assets — survive every publish unchanged. Carry-over
	// is per top-level entry: inside a folder the snapshot writes (services/),
	// nothing hand-placed survives.
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	mustPublish(t, dir, gen(0))

	hand := map[string]string{
		"README.md":              "# aistatus\n",
		"CNAME":                  "status.example.com\n",
		"assets/":                "",
		"assets/logo.svg":        "<svg/>",
		"assets/css/":            "",
		"assets/css/site.css":    "body{}",
		"assets/empty/":          "",
		".well-known/":           "",
		".well-known/security.t": "Contact: x",
	}
	for name, data := range hand {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Hand-placed inside a folder the snapshot owns: not carried over.
	if err := os.WriteFile(filepath.Join(dir, "services", "custom.json"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}

	for n := 1; n <= 4; n++ {
		files := gen(n)
		mustPublish(t, dir, files)
		diffTree(t, "publish "+strconv.Itoa(n), tree(t, dir), expectTree(files, hand))
		checkParent(t, parent, "site")
	}

	t.Run("a written name replaces a hand-placed one", func(t *testing.T) {
		files := gen(5)
		files["CNAME"] = []byte("other.example.com\n")
		mustPublish(t, dir, files)
		want := expectTree(files, hand)
		want["CNAME"] = "other.example.com\n"
		diffTree(t, "publish 5", tree(t, dir), want)
	})
}

func TestPublishCarriesOverSymlinks(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	mustPublish(t, dir, gen(1))
	if err := os.Symlink(FileStatus, filepath.Join(dir, "latest.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	mustPublish(t, dir, gen(2))
	got := tree(t, dir)
	if got["latest.json"] != "-> "+FileStatus {
		t.Errorf("latest.json = %q, want a link to %s", got["latest.json"], FileStatus)
	}
}

func TestPublishStaleStagingLeftovers(t *testing.T) {
	t.Parallel()
	// A build that crashed leaves its staging folder (and, with the
	// two-rename fallback, a ".prev" one) beside the snapshot.
	parent := t.TempDir()
	dir := filepath.Join(parent, "public")
	mustPublish(t, dir, gen(1))
	before := tree(t, dir)

	for _, name := range []string{".public.staging-XYZ", ".public.staging-123456.prev"} {
		if err := os.MkdirAll(filepath.Join(parent, name, "services"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(parent, name, FileStatus), []byte("half-written"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Similar names that are not this folder's leftovers are left alone.
	for _, name := range []string{".public2.staging-XYZ", "public.staging-XYZ"} {
		if err := os.Mkdir(filepath.Join(parent, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The crash did not touch the published folder.
	diffTree(t, "after crash", tree(t, dir), before)

	mustPublish(t, dir, gen(2))
	diffTree(t, "next publish", tree(t, dir), expectTree(gen(2), nil))
	want := []string{".public.lock", ".public2.staging-XYZ", "public", "public.staging-XYZ"}
	if got := names(t, parent); !slices.Equal(got, want) {
		t.Errorf("parent holds %v, want %v", got, want)
	}
}

func TestPublishFailureKeepsPrevious(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string][]byte
		want  string // in the error
	}{
		// "a" is written as a file, then "a/b" needs "a" to be a folder: the
		// publish fails after some files of the new snapshot were written.
		{"fails midway", map[string][]byte{FileStatus: []byte("new"), "a": []byte("file"), "a/b": []byte("x")}, "publish:"},
		{"dot-dot", map[string][]byte{FileStatus: []byte("new"), "../x": []byte("escape")}, `invalid file name "../x"`},
		{"absolute", map[string][]byte{FileStatus: []byte("new"), "/abs": []byte("x")}, `invalid file name "/abs"`},
		{"empty", map[string][]byte{FileStatus: []byte("new"), "": []byte("x")}, `invalid file name ""`},
		{"dot", map[string][]byte{".": []byte("x")}, `invalid file name "."`},
		{"inner dot-dot", map[string][]byte{"services/../../x": []byte("x")}, "invalid file name"},
		{"double slash", map[string][]byte{"services//x.json": []byte("x")}, "invalid file name"},
		{"trailing slash", map[string][]byte{"services/": []byte("x")}, "invalid file name"},
		{"leading dot-slash", map[string][]byte{"./x": []byte("x")}, "invalid file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "public")
			mustPublish(t, dir, gen(1))
			if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("hand"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := tree(t, dir)

			err := Publish(dir, tt.files)
			if err == nil {
				t.Fatal("Publish succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
			// The previous snapshot is intact, byte for byte, and nothing
			// was created outside it.
			diffTree(t, "after failed publish", tree(t, dir), before)
			checkParent(t, parent, "public")
			if _, err := os.Stat(filepath.Join(parent, "x")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a file escaped the snapshot folder: %v", err)
			}

			// The next publish works normally.
			mustPublish(t, dir, gen(2))
			diffTree(t, "next publish", tree(t, dir), expectTree(gen(2), map[string]string{"README.md": "hand"}))
			checkParent(t, parent, "public")
		})
	}

	t.Run("invalid name before the first publish", func(t *testing.T) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "public")
		if err := Publish(dir, map[string][]byte{"../x": []byte("x")}); err == nil {
			t.Fatal("Publish succeeded, want an error")
		}
		if got := names(t, parent); !slices.Equal(got, []string{".public.lock"}) {
			t.Errorf("parent holds %v, want only the lock file", got)
		}
	})
}

// TestStagingAbandoned: a build that stops between two files it streams
// into the staging folder (a render error, a cancelled context) leaves the
// previous snapshot as it was and no staging folder behind; a file put twice
// and a staging used after its commit are errors.
func TestStagingAbandoned(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "public")
	mustPublish(t, dir, gen(1))
	before := tree(t, dir)
	lock, err := LockFolder(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()

	st, err := lock.Stage()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(FileStatus, []byte("half")); err != nil {
		t.Fatal(err)
	}
	if err := st.Put("services/a.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(FileStatus, []byte("again")); err == nil || !strings.Contains(err.Error(), "written twice") {
		t.Errorf("a file put twice: %v, want an error", err)
	}
	st.Abort()
	diffTree(t, "after an abandoned staging", tree(t, dir), before)
	checkParent(t, parent, "public")

	st, err = lock.Stage()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range gen(2) {
		if err := st.Put(name, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	st.Abort() // after Commit: nothing to undo
	diffTree(t, "after commit", tree(t, dir), expectTree(gen(2), nil))
	checkParent(t, parent, "public")
	if err := st.Put("late.json", []byte("{}")); err == nil {
		t.Error("a put after Commit succeeded")
	}
	if err := st.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
}

func TestPublishInterruptedFallbackSwapKeepsPrevious(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "public")
	aside := previousName(dir) // where swapByRename keeps it between its renames
	if err := os.Mkdir(aside, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"README.md": "hand", FileHistory: `{"version":1}`} {
		if err := os.WriteFile(filepath.Join(aside, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustPublish(t, dir, gen(2))
	// The previous snapshot is put back before publishing, so its
	// hand-placed README carries over; nothing is left aside.
	got := tree(t, dir)
	if got["README.md"] != "hand" {
		t.Errorf("the previous snapshot left aside by an interrupted swap was lost (README.md: %q)", got["README.md"])
	}
	if _, err := os.Stat(aside); err == nil {
		t.Errorf("%s still exists after a successful publish", aside)
	}
}

func TestPublishConcurrentReader(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "public")
	mustPublish(t, dir, gen(0))

	// A reader that opened the folder before the publishes keeps the
	// generation-0 tree: it sees generation 0 or, once that tree is removed,
	// nothing — never a newer file.
	held, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	const publishes = 50
	done := make(chan error, 1)
	go func() {
		for g := 1; g <= publishes; g++ {
			if err := Publish(dir, gen(g)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()

	// pass reads two files of one generation through one os.Root and returns
	// the generation, or -1 when the tree was removed under the reader.
	pass := func(root *os.Root) (int, error) {
		var got []int
		for _, name := range []string{FileStatus, ServiceFile("openai"), "deep/er/nested/x.json"} {
			data, err := root.ReadFile(name)
			if errors.Is(err, fs.ErrNotExist) {
				return -1, nil
			}
			if err != nil {
				return 0, err
			}
			_, num, _ := strings.Cut(string(data), " ")
			n, err := strconv.Atoi(num)
			if err != nil {
				return 0, err
			}
			got = append(got, n)
		}
		if got[0] != got[1] || got[1] != got[2] {
			return 0, errors.New("mixed generations " + strconv.Itoa(got[0]) + "/" + strconv.Itoa(got[1]) + "/" + strconv.Itoa(got[2]))
		}
		return got[0], nil
	}

	passes, removed, last := 0, 0, 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("concurrent Publish: %v", err)
			}
			running = false
		default:
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			// With renameat2 the folder is never missing; the two-rename
			// fallback has a moment without it.
			if runtime.GOOS != "linux" && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			t.Fatalf("OpenRoot during publishes: %v", err)
		}
		g, err := pass(root)
		root.Close()
		if err != nil {
			t.Fatalf("pass %d: %v", passes, err)
		}
		if g < 0 {
			removed++
			continue
		}
		if g < last {
			t.Fatalf("pass %d saw generation %d after %d", passes, g, last)
		}
		last = g
		passes++

		if g, err := pass(held); err != nil || (g != 0 && g != -1) {
			t.Fatalf("held root: generation %d, %v; want 0 or removed", g, err)
		}
	}
	t.Logf("%d consistent passes, %d passes hit a removed tree", passes, removed)

	// All publishes done: the latest generation is complete and the
	// generation-0 tree the held root points to is gone.
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if g, err := pass(root); err != nil || g != publishes {
		t.Errorf("final pass: generation %d, %v; want %d", g, err, publishes)
	}
	if _, err := held.ReadFile(FileStatus); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("held root after the publishes: err = %v, want not-exist (old tree removed)", err)
	}
	diffTree(t, "final", tree(t, dir), expectTree(gen(publishes), nil))
	checkParent(t, parent, "public")
}

// umask returns the process's file-creation mask, found by creating a file
// with mode 0777.
func umask(t *testing.T) fs.FileMode {
	t.Helper()
	p := filepath.Join(t.TempDir(), "probe")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o777)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return 0o777 &^ fi.Mode().Perm()
}

func TestPublishModes(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	mask := umask(t)
	if mask&0o644 != 0 {
		t.Logf("umask %#o: files are %#o rather than 0644", mask, 0o644&^mask)
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "public")
	for n := 1; n <= 2; n++ {
		mustPublish(t, dir, gen(n))
		// The folder itself is chmod-ed to exactly 0755; what Publish creates
		// inside it is 0644/0755 less the umask (0644/0755 with the usual 022).
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode(); got != fs.ModeDir|0o755 {
			t.Errorf("publish %d: folder mode %v, want drwxr-xr-x", n, got)
		}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dir {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			want := fs.FileMode(0o644 &^ mask)
			if d.IsDir() {
				want = fs.ModeDir | (0o755 &^ mask)
			}
			if fi.Mode() != want {
				t.Errorf("publish %d: %s mode %v, want %v", n, p, fi.Mode(), want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestSwapByRename(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T, withNext, withDir bool) (next, dir string) {
		parent := t.TempDir()
		next, dir = filepath.Join(parent, ".public.staging-1"), filepath.Join(parent, "public")
		if withNext {
			if err := os.Mkdir(next, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(next, "gen"), []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if withDir {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "gen"), []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return next, dir
	}
	noPrev := func(t *testing.T, next string) {
		t.Helper()
		if _, err := os.Stat(next + ".prev"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s.prev left behind: %v", filepath.Base(next), err)
		}
	}

	t.Run("exchange", func(t *testing.T) {
		next, dir := setup(t, true, true)
		if err := swapByRename(next, dir); err != nil {
			t.Fatal(err)
		}
		diffTree(t, "dir", tree(t, dir), map[string]string{"gen": "new"})
		diffTree(t, "next", tree(t, next), map[string]string{"gen": "old"})
		noPrev(t, next)
	})

	t.Run("no previous folder", func(t *testing.T) {
		next, dir := setup(t, true, false)
		if err := swapByRename(next, dir); err != nil {
			t.Fatalf("swapByRename: %v", err)
		}
		diffTree(t, "dir", tree(t, dir), map[string]string{"gen": "new"})
		noPrev(t, next)
	})

	t.Run("missing next puts the previous folder back", func(t *testing.T) {
		next, dir := setup(t, false, true)
		if err := swapByRename(next, dir); err == nil {
			t.Fatal("swapByRename succeeded without a next folder")
		}
		diffTree(t, "dir", tree(t, dir), map[string]string{"gen": "old"})
		noPrev(t, next)
	})
}

func TestSwapDirs(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	next, dir := filepath.Join(parent, "next"), filepath.Join(parent, "dir")
	write := func(folder, content string) {
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, "gen"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("dir missing", func(t *testing.T) {
		write(next, "1")
		if err := swapDirs(next, dir); err != nil {
			t.Fatal(err)
		}
		diffTree(t, "dir", tree(t, dir), map[string]string{"gen": "1"})
		if _, err := os.Stat(next); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("next still exists: %v", err)
		}
	})

	t.Run("dir exists", func(t *testing.T) {
		write(dir, "1")
		write(next, "2")
		if err := swapDirs(next, dir); err != nil {
			t.Fatal(err)
		}
		diffTree(t, "dir", tree(t, dir), map[string]string{"gen": "2"})
		diffTree(t, "next", tree(t, next), map[string]string{"gen": "1"})
	})
}

func TestCorruptHistoryName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		now  time.Time
		want string
	}{
		{"UTC", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), "history.corrupt-20261101T000000Z.json"},
		{"seconds and nanoseconds", time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.UTC), "history.corrupt-20260102T030405Z.json"},
		{"other zone converted to UTC", time.Date(2026, 11, 1, 5, 30, 0, 0, time.FixedZone("IST", 5*3600+1800)), "history.corrupt-20261101T000000Z.json"},
		{"zone across midnight", time.Date(2026, 10, 31, 20, 0, 0, 0, time.FixedZone("EDT", -4*3600)), "history.corrupt-20261101T000000Z.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CorruptHistoryName(tt.now)
			if got != tt.want {
				t.Errorf("CorruptHistoryName = %q, want %q", got, tt.want)
			}
			// A valid top-level snapshot name, distinct from history.json, so
			// Publish accepts it and later publishes carry it over.
			if !fs.ValidPath(got) || strings.Contains(got, "/") || got == FileHistory {
				t.Errorf("%q is not a distinct top-level file name", got)
			}
		})
	}
}
