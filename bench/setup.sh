#!/usr/bin/env bash
# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
#
# The one environment every benchmark runs in: .venv-bench at the repository root, with
# bench/requirements.txt (peers, robot data, ROS 2 wheels, web view) and ik_node itself.
#
#   bash bench/setup.sh                         # once (a few minutes), from any folder
#   .venv-bench/bin/python bench/<bench>.py --help
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${IK_NODE_BENCH_VENV:-$ROOT/.venv-bench}"
# shellcheck source=scripts/venv.sh
source "$ROOT/scripts/venv.sh"
# Benchmarks start processes and time them: every file byte-compiled once, here.
export UV_COMPILE_BYTECODE=1
ik_node_venv "$VENV" bench/setup.sh -r "$ROOT/bench/requirements.txt"
echo "bench/setup.sh: done; run e.g. $VENV/bin/python $ROOT/bench/bench_ik.py --quick"
