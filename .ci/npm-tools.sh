# shellcheck shell=bash
# Sourced by .ci/openapi.sh and .ci/prism.sh (run from the repository root).
#
# npm_tools NAME installs the npm packages pinned by .ci/NAME/package.json and
# .ci/NAME/package-lock.json with `npm ci` into a cache folder
# ($AISTATUS_CI_CACHE, default ~/.cache/aistatus-ci), again only when either
# file changed, and sets npm_bin to their node_modules/.bin. Nothing is
# written to the repository. No install script of a dependency runs.
npm_tools() {
  local name=$1
  local cache=${AISTATUS_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aistatus-ci}
  local dir="$cache/$name" stamp
  stamp=$(cat ".ci/$name/package.json" ".ci/$name/package-lock.json" | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$dir/.installed" 2>/dev/null)" != "$stamp" ]; then
    echo "installing the pinned npm packages of .ci/$name into $dir"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp ".ci/$name/package.json" ".ci/$name/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    echo "$stamp" >"$dir/.installed"
  fi
  # shellcheck disable=SC2034 # read by the sourcing script
  npm_bin="$dir/node_modules/.bin"
}
