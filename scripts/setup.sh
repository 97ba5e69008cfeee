#!/usr/bin/env bash
# Install everything tol-tasks needs on a fresh Debian machine (as root, or with sudo):
# the system packages below with apt-get, Node.js and npm if missing, the browser task's
# JavaScript packages exactly as pinned in web/package-lock.json (npm ci) and its bundle
# (npm run build, into tol_tasks/web/static), uv with pip, then the Python packages
# exactly as pinned in uv.lock (including the PsychoPy runner extra), compiled to bytecode.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages. Keep this list and the README's in step.
#   xvfb, xauth       a virtual X display for headless runs and the tests
#   libgl1-mesa-dri   OpenGL for PsychoPy's window (software rendering)
#   xdotool           real X pointer and key events in the tests
#   libjack-jackd2-0  lets PsychoPy import psychtoolbox (else it falls back silently)
#   libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0
#                     what PyQt6's X plugin needs for PsychoPy's participant dialog
#   chromium, fonts-dejavu-core
#                     a real headless browser that renders and prints the reports in the tests
APT_PACKAGES=(xvfb xauth libgl1-mesa-dri xdotool libjack-jackd2-0
              libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 chromium fonts-dejavu-core)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Node.js and npm build the browser task (web/) and run its unit tests; any Node 18 or
# newer works (Debian's nodejs and npm packages, if none is installed).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing nodejs and npm"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  npm --prefix web ci --no-audit --no-fund --loglevel=error
fi
npm --prefix web run build --silent

if ! command -v uv >/dev/null 2>&1; then
  echo "setup: installing uv"
  python3 -m pip install --quiet --disable-pip-version-check uv
fi

# Bytecode compiled at install, as a wheel install does: each command then starts without
# compiling its modules first (0.3-0.4 s of every tol-score run on a machine that sets
# PYTHONDONTWRITEBYTECODE, where Python never caches what it compiles). The project's own
# packages are installed as editable sources, which uv does not compile: compileall does.
uv sync --frozen --all-extras --quiet --compile-bytecode
uv run --frozen --no-sync python -m compileall -q tol_tasks analysis/tol_analysis
