#!/usr/bin/env bash
# Set everything up, then run the checks, the browser task's JavaScript unit tests and the
# test suite (browser tests included). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
uv run --frozen ruff format --check .
uv run --frozen ruff check .
npm --prefix web test --silent
# The documentation site (docs/), warnings as errors, its screenshots taken in this run.
bash scripts/docs.sh
uv run --frozen pytest "$@"
