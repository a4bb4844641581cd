#!/usr/bin/env bash
# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
#
# Run the whole test suite on a fresh machine: make a venv, install the ROS 2 (Kilted)
# client wheels, the package and its test tools, then run pytest with loopback-only DDS.
# Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${IK_NODE_TEST_VENV:-$ROOT/.venv-test}"
PYTHON="${PYTHON:-python3}"

# DDS discovery stays on this machine; each run gets its own domain and scratch ROS_HOME.
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( (RANDOM % 100) + 100 ))}"
export ROS_HOME="${ROS_HOME:-$(mktemp -d)}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$ROOT/requirements-test.txt"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$ROOT"

cd "$ROOT"
exec "$VENV/bin/python" -m pytest test "$@"
