#!/usr/bin/env bash
# Refreshes the vendored browser libraries in static/vendor from the npm registry (package.json pins them).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(python3 -c 'import json; print(json.load(open("package.json"))["devDependencies"]["chart.js"])')
(cd "$tmp" && npm pack --silent "chart.js@$version" >/dev/null && tar xzf chart.js-*.tgz)
mkdir -p static/vendor/chartjs
# The source map too: the file names it, and collectstatic (manifest storage) fails on a missing reference.
cp "$tmp/package/dist/chart.umd.min.js" "$tmp/package/dist/chart.umd.min.js.map" static/vendor/chartjs/
cp "$tmp/package/LICENSE.md" static/vendor/chartjs/
echo "vendored chart.js $version"
