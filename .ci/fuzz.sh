#!/usr/bin/env bash
# Fuzzes every Fuzz target of the module for a short, fixed time each
# (FUZZTIME, default 8s: about 15 targets must stay within a few minutes on
# two cores). Their seed corpora already run with every `go test`; this
# looks for new crashers. Exits 1 if any target fails, naming the input that
# failed: it is written under the package's testdata/fuzz/<Target>/, where it
# stays as a seed once the bug is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-8s}
gocache=$(go env GOCACHE)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

# `go test -list` prints each package's matching names, then its "ok" line.
if ! listing=$(go test -list '^Fuzz' ./... 2>&1); then
  echo "$listing"; echo "fuzz: could not list the Fuzz targets"; exit 1
fi
targets=$(awk '
  /^Fuzz/ { names[++n] = $1; next }
  /^ok/   { for (i = 1; i <= n; i++) print $2, names[i]; n = 0 }
' <<<"$listing")
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
  dir=$(go list -f '{{.Dir}}' "$pkg")
  # Run where `go test` would: crashers are written to ./testdata/fuzz.
  if out=$(cd "$dir" && "$test" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$fuzztime" \
    -test.fuzzcachedir "$gocache/fuzz/$pkg" -test.timeout 5m </dev/null 2>&1); then
    echo "ok    $name ($pkg) $((SECONDS - t0))s"
  else
    failed=1
    echo "FAIL  $name ($pkg)"
    tail -n 40 <<<"$out"
    sed -n 's/.*Failing input written to \(.*\)$/\1/p' <<<"$out" | while read -r input; do
      echo "      failing input: $dir/$input"
    done
  fi
done <<<"$targets"
echo "fuzz: done in $((SECONDS - start))s"
exit "$failed"
