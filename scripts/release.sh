#!/usr/bin/env bash
# Build the release artefacts into dist/: the sdist, and the wheel built from that sdist
# (uv build does so), both carrying the browser bundle (built first by setup.sh), so that
# the sdist builds a complete wheel where Node.js is not installed. Prints what it made.
# Before a release, also run: sudo bash scripts/fresh-debian.sh (docs/development.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_common.sh
bash scripts/setup.sh
step release "building the sdist and, from it, the wheel into dist/"
uv build --quiet --out-dir dist
step_done
version="$(uv run --frozen --no-sync python -c 'import tol_tasks; print(tol_tasks.__version__)')"
for f in "dist/tol_tasks-$version.tar.gz" "dist/tol_tasks-$version-py3-none-any.whl"; do
  [ -f "$f" ] || { echo "release: $f was not made" >&2; exit 1; }
  echo "release: $f ($(du -h "$f" | cut -f1))"
done
