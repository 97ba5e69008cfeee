#!/usr/bin/env bash
# Install everything tol-tasks needs. On Debian or Ubuntu (as root, or with sudo): the
# system packages below with apt-get, Node.js and npm if missing. Elsewhere (no apt-get):
# says which programs are missing and what to install, and goes on. Then everywhere: the
# browser task's JavaScript packages exactly as pinned in web/package-lock.json (npm ci)
# and its bundle (npm run build, into tol_tasks/web/static) where Node.js is installed, uv
# with pip if missing, then the Python packages exactly as pinned in uv.lock (including
# the PsychoPy runner extra), compiled to bytecode.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages (Debian names). Keep this list and the README's in step.
#   xvfb, xauth       a virtual X display for headless runs and the tests
#   libgl1-mesa-dri   OpenGL for PsychoPy's window (software rendering)
#   xdotool           real X pointer and key events in the tests
#   libjack-jackd2-0  lets PsychoPy import psychtoolbox (else it falls back silently)
#   libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0
#                     what PyQt6's X plugin needs for PsychoPy's participant dialog
#   chromium, fonts-dejavu-core
#                     a real headless browser that renders and prints the reports in the tests
#   libreoffice-calc  a real spreadsheet program (soffice --headless) in the tests: it re-saves
#                     real logs as a user would (semicolons, UTF-16), and reads every export
#                     and the reports' tables back (no participant text may arrive as a formula)
#   postgresql        tol-web serve --database: the tests start a PostgreSQL server of their own
#   nginx-light, openssl
#                     the documented reverse proxy (docs/deploy/nginx.conf), run by the tests with TLS
APT_PACKAGES=(xvfb xauth libgl1-mesa-dri xdotool libjack-jackd2-0
              libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 chromium fonts-dejavu-core
              libreoffice-calc postgresql nginx-light openssl)
# The programs among them that the tests look for (program:package), checked without apt.
PROGRAMS=(Xvfb:xvfb xauth:xauth xdotool:xdotool chromium:chromium soffice:libreoffice-calc
          node:nodejs npm:npm)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

apt_install() {
  echo "setup: installing system packages: $*"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
  # Node.js and npm build the browser task (web/) and run its unit tests; any Node 18 or
  # newer works (Debian's nodejs and npm packages, if none is installed).
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    apt_install nodejs npm
  fi
else
  absent=()
  for entry in "${PROGRAMS[@]}"; do
    command -v "${entry%%:*}" >/dev/null 2>&1 || absent+=("${entry%%:*} (Debian: ${entry##*:})")
  done
  echo "setup: no apt-get here, so no system packages are installed."
  if [ "${#absent[@]}" -gt 0 ]; then
    echo "setup: missing programs, to install with this system's package manager:"
    printf 'setup:   %s\n' "${absent[@]}"
  fi
  echo "setup: the runner also needs OpenGL (Mesa) and, for PsychoPy's participant dialog,"
  echo "setup: Qt's X libraries (Debian: ${APT_PACKAGES[*]})."
  echo "setup: tests that need a missing program are skipped and say which (pytest -ra)."
fi

if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
    npm --prefix web ci --no-audit --no-fund --loglevel=error
  fi
  npm --prefix web run build --silent
else
  echo "setup: no Node.js: the browser bundle is not built (install Node.js 18+ and npm, then run this again)."
fi

if ! command -v uv >/dev/null 2>&1; then
  echo "setup: installing uv"
  python3 -m pip install --quiet --disable-pip-version-check uv || {
    echo "setup: could not install uv with pip. Suggested fix: install uv (pipx install uv, or"
    echo "setup: your package manager), then run this again."
    exit 1
  }
fi

# Bytecode compiled at install, as a wheel install does: each command then starts without
# compiling its modules first (0.3-0.4 s of every tol-score run on a machine that sets
# PYTHONDONTWRITEBYTECODE, where Python never caches what it compiles). The project's own
# packages are installed as editable sources, which uv does not compile: compileall does.
uv sync --frozen --all-extras --quiet --compile-bytecode
uv run --frozen --no-sync python -m compileall -q tol_tasks analysis/tol_analysis
