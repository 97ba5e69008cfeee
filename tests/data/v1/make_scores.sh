#!/usr/bin/env bash
# Version 1 event logs and the tables tol-score made of them before format 2.
#
# The logs are the two simulated sessions of tests/data/fuzz (made by
# tests/data/fuzz/make_logs.sh with event log format 1). scored/ holds what
# tol-score wrote for them at commit 7f03174 (the last release that wrote
# format 1), by:
#
#   git checkout 7f03174 && uv run tol-score tests/data/v1 --output /tmp/v1s
#   cp /tmp/v1s/{trials,sessions,moves,wide}.csv tests/data/v1/scored/
#
# tests/test_copy.py checks that today's tol-score gives the same values
# for every column these tables have. Do not re-make scored/ with newer code.
set -euo pipefail
cd "$(dirname "$0")/../../.."
git -c advice.detachedHead=false worktree add /tmp/tol-v1 7f03174
(cd /tmp/tol-v1 && uv run tol-score "$OLDPWD/tests/data/v1" --output /tmp/v1s)
cp /tmp/v1s/{trials,sessions,moves,wide}.csv tests/data/v1/scored/
git worktree remove /tmp/tol-v1
