#!/usr/bin/env bash
# Make the real event logs the fuzz test mutates: two short simulated sessions
# (Tower of Hanoi "demo" and Tower of London "london-shallice"), each with its
# JSON sidecar. Run from the repository root; needs a display (or xvfb-run -a).
set -euo pipefail
out="$(dirname "$0")"
tmp="$(mktemp -d)"
uv run tol-run demo --simulate --seed 5 --speed 20 --windowed --participant F01 --output "$tmp"
uv run tol-run london-shallice --simulate --seed 6 --speed 20 --windowed --participant F02 --output "$tmp"
for f in "$tmp"/F01_*.csv; do cp "$f" "$out/sim-hanoi.csv"; cp "${f%.csv}.json" "$out/sim-hanoi.json"; done
for f in "$tmp"/F02_*.csv; do cp "$f" "$out/sim-london.csv"; cp "${f%.csv}.json" "$out/sim-london.json"; done
rm -r "$tmp"
# The sidecars name their logs by their new names.
for name in sim-hanoi sim-london; do
  uv run python -c "import json, sys; p = sys.argv[1]; d = json.load(open(p)); d['event_log'] = sys.argv[2]; json.dump(d, open(p, 'w'), indent=2)" "$out/$name.json" "$name.csv"
done
