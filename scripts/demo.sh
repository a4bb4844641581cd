#!/usr/bin/env bash
# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
#
# Fresh-machine demo, no ROS install needed: creates a venv with the ROS 2 (Kilted) client
# library wheels and this package, then runs the simulated arm and the IK node as real ROS
# nodes with a scripted target path, prints tracking error and latency, and saves a plot.
#
#   bash scripts/demo.sh [--output FILE.png] [--solver dls] [--scale 0.5]
#
# From any folder; the picture goes to out/ik_demo.png in the repository unless --output says
# otherwise (a relative --output is relative to the current folder).
#
# Environment: IK_NODE_VENV (default .venv-ros in the repository), ROS_DOMAIN_ID (default: a
# random one in 100-199, so runs do not see each other).
# DDS discovery stays on the loopback interface (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${IK_NODE_VENV:-$ROOT/.venv-ros}"

export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( (RANDOM % 100) + 100 ))}"
export ROS_HOME="${ROS_HOME:-$ROOT/out/ros_home}"
unset ROS_LOCALHOST_ONLY
# Each module's bytecode is written at its first import (see scripts/test.sh).
unset PYTHONDONTWRITEBYTECODE
mkdir -p "$ROS_HOME"

if ! "$VENV/bin/python" -c 'import rclpy, diagnostic_msgs, matplotlib, ik_node' 2>/dev/null; then
  # shellcheck source=scripts/venv.sh
  source "$ROOT/scripts/venv.sh"
  ik_node_venv "$VENV" demo.sh ros-rclpy ros-rmw-fastrtps-cpp ros-std-msgs \
    ros-std-srvs ros-sensor-msgs ros-geometry-msgs ros-trajectory-msgs ros-visualization-msgs \
    ros-diagnostic-msgs matplotlib
fi

exec "$VENV/bin/python" "$ROOT/scripts/ik_demo.py" "$@"
