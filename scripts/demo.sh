#!/usr/bin/env bash
# Set everything up, then run the main job: the demo protocol played by the
# simulated participant in a real PsychoPy window (on a virtual display when
# there is no screen), then scoring. Extra arguments go to tol-run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_common.sh
bash scripts/setup.sh
out="${TOL_DEMO_OUTPUT:-data}"
scored="${TOL_DEMO_SCORED:-scored}"
# Each run is a pilot participant of its own: a second run into the same folder is another
# session, not a second log of the first (tol-run refuses that).
pilot="sim-$(date +%Y%m%d-%H%M%S)"
run=(uv run --frozen tol-run demo --simulate --seed 1 --speed 3 --windowed --output "$out"
     --participant "$pilot" "$@")
if [ -z "${DISPLAY:-}" ]; then
  echo "demo: no display; running on a virtual one (Xvfb)"
  xvfb-run -a -s "-screen 0 1280x1024x24" "${run[@]}"
else
  "${run[@]}"
fi
uv run --frozen python -m tol_tasks.session_data.summary "$out"
uv run --frozen tol-score "$out" --output "$scored" --plots --replace  # the demo's own folder: replaced on each run
echo "demo: tables in $scored/ (moves.csv, trials.csv, sessions.csv, wide.csv, codebook.md), figures in $scored/plots/"
