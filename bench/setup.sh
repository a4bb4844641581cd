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
if [ ! -x "$VENV/bin/python" ]; then
    echo "bench/setup.sh: creating $VENV"
    python3 -m venv "$VENV"
fi
echo "bench/setup.sh: installing the benchmark requirements and ik_node into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$ROOT/bench/requirements.txt" 2> >(grep -v "^WARNING: Location" >&2)
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$ROOT" \
    2> >(grep -v "^WARNING: Location" >&2)
echo "bench/setup.sh: done; run e.g. $VENV/bin/python $ROOT/bench/bench_ik.py --quick"
