#!/usr/bin/env bash
# Build a fresh Debian 12 root with debootstrap, clone this checkout's HEAD into it, and run
# the README's two commands there exactly as written (`bash scripts/demo.sh`, then `bash
# scripts/test.sh`), as root in a chroot. Prints how long each took and what the tests
# counted, and fails if either command fails or a test was skipped (on a machine set up by
# setup.sh every test runs). Run it before each release (docs/development.md says so).
#
#   bash scripts/fresh-debian.sh [--suite bookworm] [--mirror URL] [--work DIR] [--demo-only] [--keep]
#
# An Ubuntu release the same way (the README names Ubuntu 24.04): --suite noble (or jammy,
# ...) takes Ubuntu's archive, its main and universe components and debootstrap's Ubuntu
# script; without Ubuntu's archive keyring on this machine (Debian does not ship it) the
# packages' signatures cannot be checked, and the script says so.
#
# Needs root (debootstrap, chroot, mounts), debootstrap and git; about 15 GB of disk and,
# on a 2-core machine, about an hour (the whole test suite runs, on two PsychoPy versions).
# Only committed work is tested (the clone is of HEAD). The root sees the network and the
# machine's TLS settings: when SSL_CERT_FILE names a CA bundle (a network behind a
# TLS-inspecting proxy), that bundle is copied in and the same variables are set there. No
# service the packages install is started in the root (policy-rc.d), and every process left
# in it is ended before its mounts are undone and it is deleted (--keep keeps it).
# The whole script is one block, read before any of it runs: editing this file while a run
# (an hour long) goes on cannot change what that run does.
{
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

suite=bookworm mirror="" work="" demo_only=0 keep=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    --suite) suite="$2"; shift 2 ;;
    --mirror) mirror="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --demo-only) demo_only=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "fresh-debian: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-debian: needs root (debootstrap, chroot and mounts). Suggested fix: sudo bash $0" >&2
  exit 2
fi
# Ubuntu or Debian: the archive, its components and debootstrap's script for the release.
bootstrap=(--include=python3,git)
case "$suite" in
  focal|jammy|noble|oracular|plucky|questing)
    system=Ubuntu
    mirror="${mirror:-http://archive.ubuntu.com/ubuntu}"
    bootstrap+=(--components=main,universe)
    if [ ! -f /usr/share/keyrings/ubuntu-archive-keyring.gpg ]; then
      echo "fresh-debian: Ubuntu's archive keyring is not on this machine: the packages' signatures are not checked"
      bootstrap+=(--no-check-gpg)
    fi
    script=/usr/share/debootstrap/scripts/$suite
    [ -e "$script" ] || script=/usr/share/debootstrap/scripts/gutsy  # every Ubuntu release's
    ;;
  *) system=Debian; mirror="${mirror:-http://deb.debian.org/debian}"; script="" ;;
esac
for tool in debootstrap git chroot findmnt; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "fresh-debian: $tool is not installed. Suggested fix: apt-get install $tool" >&2; exit 2; }
done

work="${work:-$(mktemp -d /var/tmp/tol-fresh-debian.XXXXXX)}"
root="$work/root" logs="$work/logs"
mkdir -p "$root" "$logs"
echo "fresh-debian: working in $work (the root in root/, each command's whole output in logs/)"

# Processes whose root directory is the chroot: ours, started in it; ended by their ids.
_in_root() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
  done
  return 0
}
cleanup() {
  local pids
  pids="$(_in_root)"
  if [ -n "$pids" ]; then
    echo "fresh-debian: ending the processes left in the root: $(echo $pids)"
    kill $pids 2>/dev/null || true
    sleep 2
    pids="$(_in_root)"
    [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
  fi
  for m in dev/shm dev/pts dev sys proc; do
    mountpoint -q "$root/$m" && umount -l "$root/$m"
  done
  mountpoint -q "$root" && umount -l "$root"
  if findmnt -rn -o TARGET | grep "^$root/" >/dev/null; then  # (grep -q under pipefail: SIGPIPE)
    echo "fresh-debian: something is still mounted under $root: it is not deleted" >&2
  elif [ "$keep" -eq 0 ]; then
    rm -rf "$root"
    echo "fresh-debian: the root is deleted; the logs stay in $logs"
  else
    echo "fresh-debian: the root is kept in $root"
  fi
}
trap cleanup EXIT

start=$SECONDS
echo "fresh-debian: debootstrap $suite from $mirror (a plain $system: its required and important packages, python3 and git)"
debootstrap "${bootstrap[@]}" "$suite" "$root" "$mirror" ${script:+"$script"} > "$logs/debootstrap.log" 2>&1 || {
  tail -20 "$logs/debootstrap.log"; echo "fresh-debian: debootstrap failed ($logs/debootstrap.log)" >&2; exit 1; }
debootstrap_s=$(( SECONDS - start ))
echo "fresh-debian: debootstrap done in $debootstrap_s s"

# The machine's network: its resolver, and its CA bundle where the machine names one.
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"  # no service starts in a chroot
chmod +x "$root/usr/sbin/policy-rc.d"
env_in=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb)
if [ -n "${SSL_CERT_FILE:-}" ] && [ -f "$SSL_CERT_FILE" ]; then
  mkdir -p "$root/etc/ssl"  # a plain Debian has no /etc/ssl until ca-certificates comes
  cp "$SSL_CERT_FILE" "$root/etc/ssl/host-ca-bundle.crt"
  for var in SSL_CERT_FILE REQUESTS_CA_BUNDLE PIP_CERT NODE_EXTRA_CA_CERTS CURL_CA_BUNDLE GIT_SSL_CAINFO; do
    env_in+=("$var=/etc/ssl/host-ca-bundle.crt")
  done
  echo "fresh-debian: the machine's CA bundle ($SSL_CERT_FILE) is copied in, and SSL_CERT_FILE and its kin name it"
fi

git clone --quiet "$here" "$root/root/tol-tasks"
echo "fresh-debian: cloned $(git -C "$here" rev-parse --short HEAD) ($(git -C "$here" log -1 --format=%s | cut -c1-70)) into /root/tol-tasks"

# The root a mount point of its own, as / is on a machine: inside a plain directory the
# chroot's processes could not make a mount namespace (`unshare -m` changes the propagation
# of / and Linux refuses that where / is no mount point), which the small-disk tests need.
mount --bind "$root" "$root"
mount --make-rprivate "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666
mount -t tmpfs shm "$root/dev/shm"

in_root() {  # in_root NAME COMMAND: COMMAND run in the root's clone, as a user types it
  local name="$1" cmd="$2" t0=$SECONDS rc=0
  echo "fresh-debian: [$name] $ $cmd   (whole output: $logs/$name.log)"
  chroot "$root" /usr/bin/env -i "${env_in[@]}" /bin/bash -c "cd /root/tol-tasks && $cmd" 2>&1 \
    | tee "$logs/$name.log" | sed -u "s/^/  [$name] /" || rc=$?
  eval "${name}_s=$(( SECONDS - t0 )) ${name}_rc=$rc"
  echo "fresh-debian: [$name] exit $rc in $(( SECONDS - t0 )) s"
}

python_version="$(chroot "$root" /usr/bin/python3 --version)"
node_before="$(chroot "$root" /bin/sh -c 'command -v node || echo none')"
# The README's two commands, read from its first bash block (comments left out), so that
# what runs here is what the README says.
mapfile -t readme < <(awk '/^```bash$/ { inside = 1; next } inside && /^```$/ { exit }
                           inside { sub(/ *#.*/, ""); if ($0 != "") print }' "$here/README.md")
if [ "${#readme[@]}" -ne 2 ]; then
  echo "fresh-debian: the README's first bash block should hold two commands, not: ${readme[*]}" >&2
  exit 2
fi
in_root demo "${readme[0]}"
if [ "$demo_only" -eq 0 ]; then
  in_root test "${readme[1]}"
fi

# What each command counted, from its output.
echo
echo "fresh-debian: summary ($(. "$root/etc/os-release" && echo "$PRETTY_NAME"), $python_version, no Node.js before: $node_before)"
echo "fresh-debian:   debootstrap: $debootstrap_s s"
echo "fresh-debian:   ${readme[0]}: exit $demo_rc in $demo_s s (set-up included)"
grep -E "^demo: tables in|session .* (solved|problems)" "$logs/demo.log" | head -3 | sed 's/^/fresh-debian:     /'
verdict=$demo_rc
if [ "$demo_only" -eq 0 ]; then
  echo "fresh-debian:   ${readme[1]}: exit $test_rc in $test_s s"
  grep -E "^ℹ (tests|pass|fail) " "$logs/test.log" | tr '\n' ' ' | sed 's/^/fresh-debian:     JavaScript: /; s/$/\n/'
  grep -E "^=+ .*(passed|failed).* in .*=+$" "$logs/test.log" | sed 's/^/fresh-debian:     pytest: /'
  grep -E "^test-psychopy-oldest|^test: PsychoPy" "$logs/test.log" | tail -1 | sed 's/^/fresh-debian:     /'
  skipped="$(grep -E "^SKIPPED" "$logs/test.log" || true)"
  if [ -n "$skipped" ]; then
    echo "fresh-debian:   tests skipped (each should have run on a machine set up by setup.sh):"
    echo "$skipped" | sed 's/^/fresh-debian:     /'
    verdict=1
  fi
  [ "$test_rc" -eq 0 ] || verdict=$test_rc
fi
echo "fresh-debian:   in all: $(( SECONDS - start )) s; verdict: $([ "$verdict" -eq 0 ] && echo passed || echo FAILED)"
exit "$verdict"
}
