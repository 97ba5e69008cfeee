#!/usr/bin/env bash
# Build the documentation site into docs/_build/html, every warning an error (-W --keep-going:
# all of them are listed before it fails). The build generates the reference pages and takes
# the screenshots of what the participant sees from real tol-run sessions under Xvfb
# (docs/_ext/tol_docs.py, docs/screenshots.py), into docs/_generated/. Extra arguments go to
# sphinx-build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_common.sh
start=$SECONDS
# The API pages are generated again by every build: a page left from a module since moved
# or renamed (tol_analysis's faces) would otherwise fail the build as an orphan.
rm -rf docs/_generated/api
echo "docs: building the site (the reference pages generated, screenshots taken from real sessions under Xvfb) ..."
ticking uv run --frozen sphinx-build -W --keep-going -q -b html docs docs/_build/html "$@"
echo "docs: built docs/_build/html in $(( SECONDS - start )) s"
