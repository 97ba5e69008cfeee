#!/usr/bin/env bash
# Set everything up, then run the checks, the browser task's JavaScript unit tests, the
# test suite (browser tests included), and the runner, embedding and Builder tests again on
# the oldest PsychoPy supported (scripts/test-psychopy-oldest.sh, its own environment).
# Extra arguments go to pytest; with them, the oldest PsychoPy's run is left out (it says so).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_common.sh
bash scripts/setup.sh
# Everything is installed now: a test that would skip for a missing program or extra fails
# instead (tests/system_tools.py), as in CI, so that a green run hides no test.
export CI="${CI:-scripts/test.sh}"
step test "ruff format --check and ruff check"
uv run --frozen ruff format --check .
uv run --frozen ruff check .
step test "the JavaScript unit tests (node --test, Node.js from uv.lock)"
uv run --frozen --no-sync npm --prefix web test --silent
step_done
# The documentation site (docs/), warnings as errors, its screenshots taken in this run.
bash scripts/docs.sh
step test "the test suite (pytest on both cores; a dot per test once collected)"
uv run --frozen pytest "$@"
step_done
if [ "$#" -eq 0 ]; then
  bash scripts/test-psychopy-oldest.sh
else
  echo "test: arguments given, so the tests on the oldest supported PsychoPy are left out"
  echo "test: (run them with: bash scripts/test-psychopy-oldest.sh [pytest arguments])"
fi
