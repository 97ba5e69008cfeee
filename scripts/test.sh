#!/usr/bin/env bash
# Set everything up, then run the checks, the browser task's JavaScript unit tests and the
# test suite (browser tests included). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
uv run --frozen ruff format --check .
uv run --frozen ruff check .
if command -v node >/dev/null 2>&1 || [ -n "${CI:-}" ]; then
  npm --prefix web test --silent
else
  echo "test: no Node.js: the JavaScript unit tests are left out (install Node.js 18+ and npm)"
fi
uv run --frozen pytest "$@"
