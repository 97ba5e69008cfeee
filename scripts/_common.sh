# Sourced by the scripts under scripts/ (not run on its own): where uv is found, and a line
# with the elapsed time for every step that takes more than a few seconds.

# uv as scripts/setup.sh installs it where Python is externally managed (PEP 668): in a
# virtual environment of its own, linked from ~/.local/bin, which is not on root's PATH.
export PATH="$HOME/.local/bin:$PATH"

# step NAME WHAT: says what starts now, and at the next step (or at the end) how long the
# one before took.
_step_name="" _step_start=0
step() {
  step_done
  _step_name="$1: $2" _step_start=$SECONDS
  echo "$_step_name ..."
}
step_done() {
  if [ -n "$_step_name" ]; then
    echo "$_step_name: done in $(( SECONDS - _step_start )) s"
    _step_name=""
  fi
}

# The system packages declared in scripts/system-packages.txt whose need is one of the
# arguments (setup, run, test, optional), one per line.
system_packages() {
  local wanted=" $* " pkg need _rest
  while read -r pkg need _rest; do
    case "$pkg" in ''|'#'*) continue ;; esac
    case "$wanted" in *" $need "*) echo "$pkg" ;; esac
  done < "$(dirname "${BASH_SOURCE[0]}")/system-packages.txt"
}

# apt_has_candidate PKG: whether this system's package archive has PKG to install. The
# answer is read whole before it is searched: `apt-cache policy PKG | grep -q ...` under
# pipefail fails at random (grep stops reading, apt-cache dies of SIGPIPE), and on a fresh
# Debian 12 it called xvfb and libgl1 "not in the archive" (tests/test_system_packages.py).
apt_has_candidate() {
  local policy
  policy="$(apt-cache policy "$1" 2>/dev/null || true)"
  grep -q "Candidate: [^(]" <<<"$policy"
}

# The programs the tests look for, as program:package (the third column, where not -).
system_programs() {
  local pkg _need prog _rest
  while read -r pkg _need prog _rest; do
    case "$pkg" in ''|'#'*) continue ;; esac
    if [ "$prog" != "-" ]; then echo "$prog:$pkg"; fi
  done < "$(dirname "${BASH_SOURCE[0]}")/system-packages.txt"
}

# ticking CMD...: runs CMD, saying every 15 s that it still runs (for commands that are
# silent while they work: uv sync, npm ci and Sphinx when not on a terminal).
ticking() {
  local start=$SECONDS rc=0 ticker
  ( while sleep 15; do echo "${_step_name:-$1}: still running ($(( SECONDS - start )) s)"; done ) &
  ticker=$!
  "$@" || rc=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  return "$rc"
}
