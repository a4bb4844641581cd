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
# Python writes each module's bytecode at its first import (these machines set
# PYTHONDONTWRITEBYTECODE): otherwise each of the hundreds of processes of a run compiles numpy,
# SciPy, numba, rclpy and ik_node from source as it starts, and compiling all of them at
# install instead takes CPU the kernels' compile needs (a clean run beside a busy process:
# 424 s that way, pytest 251 s).
unset PYTHONDONTWRITEBYTECODE
# One BLAS thread per process: 3 workers and the nodes they start already share 2 cores, and
# OpenBLAS's extra threads only spin against them (test_collision_hulls.py, whose oracle is
# scipy's SLSQP, took 25 s of CPU with them and 11.5 s without, beside a busy process).
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
SCRATCH="$(mktemp -d)"
COMPILE=''
# On the way out: stop a compile still running (an install failed meanwhile), remove the
# scratch folder, and keep the exit status of what ran last (pytest's).
trap 'rc=$?; [ -z "$COMPILE" ] || kill "$COMPILE" 2>/dev/null; rm -rf "$SCRATCH"; exit $rc' EXIT
export ROS_HOME="${ROS_HOME:-$SCRATCH/ros_home}"

# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"
# ik_node and what it needs first, so that its kernels compile (ik-compile, two processes,
# 2-4 minutes on a fresh checkout) while the browser, the ROS wheels and the test tools
# install; pytest's own ik-compile (test/conftest.py) then waits for this one and finds the
# cache compiled.
ik_node_venv "$VENV" test.sh
versions() { "$VENV/bin/python" -c 'from importlib.metadata import version as v
print(v("numpy"), v("numba"), v("llvmlite"))'; }
BEFORE="$(versions)"
echo "test.sh [${SECONDS} s]: compiling the solver kernels in the background (ik-compile)"
"$VENV/bin/python" -m ik_node.compile --quiet >"$SCRATCH/compile.log" 2>&1 &
COMPILE=$!

# The browser tests drive Debian's chromium headless (nothing downloads a browser).
if ! command -v chromium >/dev/null; then
    echo "test.sh: installing chromium for the browser tests (apt, about a minute)"
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
export IK_NODE_REQUIRE_BROWSER=1

echo "test.sh [${SECONDS} s]: installing -r requirements-test.txt into $VENV"
ik_node_install "$VENV" -r "$ROOT/requirements-test.txt"
echo "test.sh [${SECONDS} s]: waiting for ik-compile"
if ! wait "$COMPILE"; then
    cat "$SCRATCH/compile.log" >&2
    echo "test.sh: compiling the kernels failed (ik-compile, output above)" >&2
    exit 1
fi
COMPILE=''      # waited for: its process id may belong to another process by now
if [ "$(versions)" != "$BEFORE" ]; then
    # The test tools changed numpy or numba under the compiled kernels: drop the cache
    # (its sources stamp with it), pytest's ik-compile compiles again.
    echo "test.sh: numpy/numba changed after the compile; the kernels compile again"
    rm -f "$ROOT/ik_node/__pycache__/ik_node_jit_sources.sha256"
fi

cd "$ROOT"
# Three workers on 2 cores: the ROS tests wait for arms moving in real time most of their
# time (two workers kept 1.25 cores busy); a third fills that wait. Whole suite on this
# 2-core machine, a checkout used before: 181 s with 3 workers, 172 s with 4 (more load for
# little); from clean clones beside a process that keeps one core busy: 276-292 s with 2,
# 251 s with 3.
echo "test.sh [${SECONDS} s]: running pytest on 3 workers"
# The whole suite unless a test file or folder is named (test/test_cli.py, test/x.py::name).
TARGETS=(test)
for arg in "$@"; do
    if [ -e "${arg%%::*}" ]; then TARGETS=(); fi
done
# The 20 slowest tests are listed at the end: where the suite's time goes, run by run.
"$VENV/bin/python" -m pytest "${TARGETS[@]}" -n 3 --dist loadfile --durations=20 "$@"
