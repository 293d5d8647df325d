#!/usr/bin/env bash
# Fuzzes every Fuzz target of the module for a fixed time each (FUZZTIME,
# default 1m; the nightly workflow .github/workflows/fuzz.yml runs it, and
# so should whoever changes a reader). Their seed corpora already run with
# every `go test`; this looks for new crashers. Exits 1 if any target
# fails, naming the input that failed: it is written under the package's
# testdata/fuzz/<Target>/, where it stays as a seed once the bug is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-1m}
gocache=$(go env GOCACHE)
module=$(go list -m)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

# The targets, read from the sources: `go test -list` would build and run
# every package's test binary to print them, half a minute on two cores
# before any fuzzing. (A Fuzz function behind a build tag would be listed
# here and found missing by its binary, failing the run: none is.)
targets=$({ git grep -n '^func Fuzz[A-Za-z0-9_]*(' -- '*_test.go' || true; } |
  sed -E 's#^(([^:]*)/)?[^/:]*_test\.go:[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*#./\2 \3#' | sort)
if [ -z "$targets" ]; then
  echo "fuzz: no Fuzz targets found"; exit 1
fi

echo "fuzz: $(wc -l <<<"$targets") targets, $fuzztime each"
failed=0
start=$SECONDS
built=""
while read -r pkg name; do
  t0=$SECONDS
  test="$bin/$(tr / _ <<<"$pkg").test"
  if [ "$pkg" != "$built" ]; then
    # One instrumented test binary per package: `go test -fuzz` would
    # rebuild and relink it for every target, which costs more than the
    # fuzzing itself on a small machine.
    go test -c -fuzz '^Fuzz' -o "$test" "$pkg" </dev/null
    built=$pkg
  fi
  for attempt in 1 2; do
    # Run where `go test` would: crashers are written to ./testdata/fuzz.
    # Minimizing each new interesting input may take up to a minute by
    # default, during which nothing else is fuzzed: on the slower targets
    # that stalled the run for seconds at a time. A second is plenty for
    # inputs this small.
    if out=$(cd "$pkg" && "$test" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$fuzztime" \
      -test.fuzzminimizetime 1s -test.fuzzcachedir "$gocache/fuzz/$module/${pkg#./}" -test.timeout 5m </dev/null 2>&1); then
      echo "ok    $name ($pkg) $((SECONDS - t0))s"
      break
    fi
    # Go 1.26's fuzzing coordinator can fail a target with a bare "context
    # deadline exceeded" when -fuzztime ends while a worker is busy, on a
    # loaded machine (go.dev/issue/75804, fixed in Go 1.27). That is no
    # finding: a real one names its failing input. Such a run is repeated
    # once; a second one is reported without failing the run.
    if ! grep -q 'Failing input written to' <<<"$out" && grep -q '^    context deadline exceeded$' <<<"$out" &&
      [ "$(grep -c -- '--- FAIL' <<<"$out")" -le 1 ]; then
      echo "note  $name: the fuzzing coordinator's deadline race (go.dev/issue/75804), no finding; attempt $attempt"
      [ "$attempt" = 1 ] || echo "ok    $name ($pkg) $((SECONDS - t0))s, ended by the deadline race twice"
      continue
    fi
    failed=1
    echo "FAIL  $name ($pkg)"
    tail -n 40 <<<"$out"
    sed -n 's/.*Failing input written to \(.*\)$/\1/p' <<<"$out" | while read -r input; do
      echo "      failing input: ${pkg#./}/$input"
    done
    break
  done
done <<<"$targets"
echo "fuzz: done in $((SECONDS - start))s"
exit "$failed"
