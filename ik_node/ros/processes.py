# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Start the package's nodes as processes without ``ros2 launch``, and stop them cleanly.

For scripts, benchmarks and tests on machines with the ROS 2 client wheels but no ROS
install. Discovery stays on the loopback interface (``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``)
in the domain given. Nothing here imports rclpy.
"""

import os
from pathlib import Path
import signal
import subprocess
import sys
from typing import Mapping, Sequence

__all__ = ['ros_environment', 'node_arguments', 'node_command', 'start_node',
           'stop_processes', 'NODE_MODULES']

# Executable name -> module run with ``python -m``.
NODE_MODULES = {'ik_node': 'ik_node.ros.start', 'sim_arm': 'ik_node.ros.sim_arm'}


def ros_environment(domain_id: int, ros_home: str | os.PathLike | None = None,
                    base: Mapping[str, str] | None = None) -> dict[str, str]:
    """
    Return a process environment for ROS domain ``domain_id`` with loopback-only discovery.

    base: the environment to start from (default: this process's). ros_home: where ROS logs
    go (default: kept from ``base``).
    """
    env = dict(os.environ if base is None else base)
    env.update(ROS_DOMAIN_ID=str(int(domain_id)), ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               PYTHONUNBUFFERED='1')
    env.pop('ROS_LOCALHOST_ONLY', None)
    if ros_home is not None:
        env['ROS_HOME'] = str(ros_home)
    return env


def node_arguments(params: Sequence[str], extra_ros_args: Sequence[str] = ()) -> list[str]:
    """Return a node's arguments: ``--ros-args``, ``extra_ros_args``, ``-p`` ``params``."""
    args = ['--ros-args', *extra_ros_args]
    for p in params:
        args += ['-p', p]
    return args


def node_command(executable: str, params: Sequence[str],
                 extra_ros_args: Sequence[str] = ()) -> list[str]:
    """Return the command that runs node ``executable`` with ``-p`` parameters ``params``."""
    return [sys.executable, '-m', NODE_MODULES[executable],
            *node_arguments(params, extra_ros_args)]


def start_node(executable: str, params: Sequence[str], env: Mapping[str, str],
               log_path: str | os.PathLike, extra_ros_args: Sequence[str] = (),
               cwd: str | os.PathLike | None = None,
               pass_fds: Sequence[int] = (), priority: int = 0) -> subprocess.Popen:
    """
    Start node ``executable`` ('ik_node' or 'sim_arm') with ``-p`` parameters ``params``.

    Its output (stdout and stderr) goes to ``log_path``; the returned Popen has ``log_path``
    set. extra_ros_args: more arguments after ``--ros-args`` (e.g. ``['-r', '__ns:=/arm1']``).
    cwd: its working folder (first on its module path: ``python -m`` runs it).
    pass_fds: open descriptors the node inherits (e.g. a lock it must hold while it lives).
    priority: how much to lower its niceness (as a control loop runs before other work on
    a robot's computer); needs the privilege (root or CAP_SYS_NICE), else it runs at the
    caller's priority, which :func:`raised_priority_allowed` tells beforehand.
    """
    with open(log_path, 'w') as log:
        proc = subprocess.Popen(node_command(executable, params, extra_ros_args),
                                env=dict(env), stdout=log, stderr=subprocess.STDOUT,
                                cwd=cwd, pass_fds=tuple(pass_fds),
                                preexec_fn=_niced(-priority) if priority else None)
    setattr(proc, 'log_path', Path(log_path))  # noqa: B010  (a Popen has no such field)
    return proc


def raised_priority_allowed() -> bool:
    """Return True when this process may start others at a raised priority (nice < 0)."""
    try:
        now = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, 0, now - 1)
    except PermissionError:
        return False
    os.setpriority(os.PRIO_PROCESS, 0, now)
    return True


def realtime_allowed() -> bool:
    """Return True when this process may run a thread at SCHED_FIFO (root, or an rtprio limit)."""
    try:
        policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except (AttributeError, PermissionError):
        return False
    os.sched_setscheduler(0, policy, param)
    return True


def _niced(increment: int):
    """Return a preexec_fn that changes the child's niceness by ``increment``."""
    def apply() -> None:
        os.nice(increment)
    return apply


def stop_processes(procs: Sequence[subprocess.Popen], timeout: float = 5.0) -> None:
    """Send SIGINT to every process still running, wait for each, kill the ones that hang."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in procs:
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
