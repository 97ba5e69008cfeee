#!/usr/bin/env bash
# Set everything up, then run the checks and the test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
uv run --frozen ruff format --check .
uv run --frozen ruff check .
uv run --frozen pytest "$@"
