#!/usr/bin/env bash
# The runner, embedding and Builder tests (pytest marker psychopy_compat) on the oldest
# PsychoPy that tol-tasks[runner] accepts, in an environment of its own
# (.venv-psychopy-oldest), installed exactly as uv.lock pins it (dependency group
# psychopy-oldest). scripts/test.sh runs it after the main suite; extra arguments go to
# pytest (e.g. -k builder).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_common.sh
export UV_PROJECT_ENVIRONMENT=.venv-psychopy-oldest
step test-psychopy-oldest "installing the oldest supported PsychoPy into $UV_PROJECT_ENVIRONMENT (uv.lock)"
ticking uv sync --frozen --group psychopy-oldest --extra plots --extra report --extra spss --extra serve --extra neuro
step_done
uv run --frozen --no-sync python -c \
  "import psychopy, sys; print(f'test: PsychoPy {psychopy.__version__}, Python {sys.version.split()[0]}, in $UV_PROJECT_ENVIRONMENT')"
uv run --frozen --no-sync pytest -m psychopy_compat "$@"
