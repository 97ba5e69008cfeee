#!/usr/bin/env bash
# Set everything up, then run the main job: a demonstration of the exact solver.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
uv run --frozen python -m tol_tasks.demo "$@"
