#!/usr/bin/env bash
# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
#
# Run the whole test suite on a fresh machine: make a venv, install the ROS 2 (Kilted)
# client wheels, the package and its test tools, then run pytest with loopback-only DDS.
# Usage: bash scripts/test.sh [extra pytest args]
#
# ROS domains: each run locks a block of 24 domain ids for itself (test/conftest.py), so two
# runs on one machine never see each other; ROS_DOMAIN_ID only picks the preferred block.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${IK_NODE_TEST_VENV:-$ROOT/.venv-test}"
PYTHON="${PYTHON:-python3}"

# DDS discovery stays on this machine; each run gets its own domain and scratch ROS_HOME.
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( (RANDOM % 8 + 1) * 24 ))}"
unset ROS_LOCALHOST_ONLY
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
export ROS_HOME="${ROS_HOME:-$SCRATCH/ros_home}"

# The browser tests drive Debian's chromium headless (nothing downloads a browser).
if ! command -v chromium >/dev/null; then
    echo "test.sh: installing chromium for the browser tests (apt, about a minute)"
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
export IK_NODE_REQUIRE_BROWSER=1

if [ ! -x "$VENV/bin/python" ]; then
    echo "test.sh: creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
echo "test.sh: installing the test requirements into $VENV (about a minute on a fresh machine)"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$ROOT/requirements-test.txt" 2> >(grep -v "^WARNING: Location" >&2)
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$ROOT" \
    2> >(grep -v "^WARNING: Location" >&2)

cd "$ROOT"
echo "test.sh: running pytest on 2 workers (on a fresh checkout each first compiles the" \
     "solver kernels: about a minute before the first dot)"
"$VENV/bin/python" -m pytest test -n 2 --dist loadfile "$@"
