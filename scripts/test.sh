#!/usr/bin/env bash
# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
#
# Run the whole test suite on a fresh machine: make a venv, install the ROS 2 (Kilted)
# client wheels, the package and its test tools, then run pytest with loopback-only DDS.
# Usage: bash scripts/test.sh [pytest args: test files to run, -k, -x, ...]
#
# ROS domains: each test process locks a block of 12 domain ids for itself (test/conftest.py),
# so two runs on one machine never see each other; ROS_DOMAIN_ID only picks the preferred block.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${IK_NODE_TEST_VENV:-$ROOT/.venv-test}"

# DDS discovery stays on this machine; each run gets its own domain and scratch ROS_HOME.
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( (RANDOM % 17 + 1) * 12 ))}"
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

# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"
ik_node_venv "$VENV" test.sh -r "$ROOT/requirements-test.txt"

cd "$ROOT"
echo "test.sh: running pytest on 2 workers (on a fresh checkout the solver kernels compile" \
     "first, two processes side by side then two more: 3-6 minutes before the first dot)"
# The whole suite unless a test file or folder is named (test/test_cli.py, test/x.py::name).
TARGETS=(test)
for arg in "$@"; do
    if [ -e "${arg%%::*}" ]; then TARGETS=(); fi
done
"$VENV/bin/python" -m pytest "${TARGETS[@]}" -n 2 --dist loadfile "$@"
