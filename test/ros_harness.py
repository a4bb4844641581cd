# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
One harness for the tests that run the nodes as real processes.

- :func:`fresh_domain`: a ROS domain of this test run (see conftest: each run holds a lock on a
  block of domains, so concurrent runs on one machine never see each other);
- :class:`Procs`: node processes in one domain, stopped at the end; forked from this test
  process's fork server where nothing would differ (:mod:`forked_nodes`, :func:`node_forks`),
  else started by ``python -m``;
- :class:`Probe`: an rclpy node in the test process that publishes targets and records what the
  node sends, every command with its header stamp;
- :class:`WatchedProbe`: a Probe whose commands and arm readings are judged by a
  :class:`~ik_node.motion.watcher.CommandWatcher` in stamp order (publish order), never arrival
  order;
- :func:`ros_rig`: Procs and a probe in a fresh domain, closed after, no traceback allowed;
- :func:`assert_bad_starts_fail`: ik_node started with bad parameters exits at once with code 1
  and the reason.

Tests wait for conditions with deadlines (:meth:`Probe.spin_until`), never for a fixed time.
"""

from contextlib import contextmanager
import itertools
import math
import os
from pathlib import Path
import signal
import subprocess
import sys
import tempfile
import time
from typing import Iterator, Optional

from conftest import domain_lock_fds, URDF_DIR
from forked_nodes import forks_enabled, NodeForks
from ik_node import Chain
from ik_node.motion.watcher import CommandWatcher, StampedLog
from ik_node.ros.processes import (raised_priority_allowed, realtime_allowed, ros_environment,
                                   start_node, stop_processes)
from ik_node.spatial.pose import pose_error, quat_xyzw_from_matrix
import numpy as np
import pytest

rclpy = pytest.importorskip('rclpy')

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus  # noqa: E402, I100
from geometry_msgs.msg import PointStamped, PoseStamped  # noqa: E402
from rcl_interfaces.srv import SetParameters, SetParametersAtomically  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402

URDF = URDF_DIR / 'ur5.urdf'
Q0 = np.array([0.0, -1.2, 1.3, -1.6, -1.57, 0.0])
V_MAX = 3.15            # [rad/s] every UR5 joint
PERIOD = 0.01           # [s] the node's default output_rate is 100 Hz
STEP = V_MAX * PERIOD   # [rad] the most one command may move a UR5 joint at 100 Hz
# Bounds waits for a node to come up: loading the compiled kernels takes about a second, a
# busy machine may take several. Only a bound: tests go on as soon as the node answers.
STARTUP_TIMEOUT = 60.0
# [s] Probe.answer_to sends a target again after this once the node answers: longer than
# a search takes (up to half a second, more on a busy machine).
RESEND_ALIVE = 3.0
# Given to every ik_node the tests start (later -p values override them). A loaded test
# machine must not turn a reachable target into a timed-out or unconverged solve: the
# node's own 5 ms, one-attempt budget is the benchmarks' business. The marker server is not
# installed here. The control thread runs at SCHED_FIFO where the machine allows it, as on a
# robot's computer (realtime_priority): a node not scheduled for over 50 ms beside busy test
# workers leaves a gap in its commands, and an arm holding its last command through it stops
# abruptly, which the command watcher rightly reports but which says nothing of the node's
# own logic (the sphere tests beside two busy processes: 12 of 16 green without, 6 of 6 with).
NODE_TEST_PARAMS = {'timeout': 0.5, 'max_attempts': 20, 'interactive_marker': False,
                    'realtime_priority': 50 if realtime_allowed() else 0}


def solve_budget_parameters() -> list:
    """
    Return NODE_TEST_PARAMS' solve budget (timeout, max_attempts) as rclpy Parameters.

    For an ik_node built in the test process (``parameter_overrides``): beside busy test
    workers the node's default 50 ms found no answer to a reachable goal (a clean-clone run).
    """
    return [Parameter(name, value=NODE_TEST_PARAMS[name]) for name in ('timeout', 'max_attempts')]


_domains = itertools.count()


def node_environment(domain: int, tmp: Path) -> dict:
    """
    Return the environment of node processes under test: ``domain``, ROS_HOME in ``tmp``.

    A node that crashes in C code (DDS, a Python extension) prints its Python stacks
    (faulthandler) to its log instead of ending with a bare signal. (Not the slow-tick dump
    of ik_node.ros.cycle_watch: beside busy processes it delays the ticks it watches.)
    One BLAS thread, as scripts/test.sh gives every process: the test workers and their
    nodes share 2 cores, and a fork server (forked_nodes) with OpenBLAS's threads cannot fork
    (run by plain pytest without it, every node would start by ``python -m``).
    """
    return {**ros_environment(domain, ros_home=tmp), 'PYTHONFAULTHANDLER': '1',
            'OPENBLAS_NUM_THREADS': '1'}


def fresh_domain() -> int:
    """Return the next ROS domain of this run's block (see conftest.ros_domain_block)."""
    base, size = (int(v) for v in os.environ['IK_NODE_TEST_DOMAIN_BLOCK'].split(':'))
    return base + next(_domains) % size


def stamp_ns(stamp) -> int:
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def stamp_text(stamp) -> str:
    return f'{stamp.sec}.{stamp.nanosec:09d}'


# The nodes under test run 10 nice levels above the test workers where the privilege allows
# (as a control loop runs before other work on a robot's computer): a node starved for over
# 50 ms by a compiling xdist worker beside it stops the arm abruptly, which the command
# watcher rightly reports, but which says nothing of the node's own logic.
NODE_PRIORITY = 10 if raised_priority_allowed() else 0


_forks: list = []      # this test process's fork server (forked_nodes), once started


def node_forks() -> Optional[NodeForks]:
    """
    Return this process's fork server (started at the first call), or None if it failed.

    It has the environment of the nodes under test (:func:`node_environment`, whose ROS
    variables each child sets for itself), not the first caller's: a first node started with
    more variables would leave every later one to ``python -m``.
    """
    if not _forks:
        env = node_environment(int(os.environ.get('ROS_DOMAIN_ID', '0')),
                               Path(tempfile.gettempdir()))
        forks = NodeForks(env, domain_lock_fds())
        if forks.failure:
            print(f'ros_harness: nodes start by python -m: the fork server failed '
                  f'({forks.failure})', file=sys.stderr)
        _forks.append(forks)
    return None if _forks[0].failure else _forks[0]


class Procs:
    """Node processes in one domain; :meth:`close` stops them all."""

    def __init__(self, domain: int, tmp: Path):
        self.domain, self.tmp, self.procs = domain, tmp, []
        self.env = node_environment(domain, tmp)
        # Forked from this process's fork server where nothing differs (forked_nodes); False:
        # every node by ``python -m``, as users start them.
        self.forks = forks_enabled()

    def start(self, executable: str, *params: str, name: str = '', ros_args=(), cwd=None,
              env_extra: Optional[dict] = None):
        """
        Start 'ik_node' or 'sim_arm' with parameters ``params``; log to tmp/<name>.log.

        cwd: its working folder (a package copy there is the one it runs); env_extra: more
        environment variables.
        """
        count = sum(1 for p in self.procs if p.executable == executable)
        name = name or (executable if not count else f'{executable}_{count}')
        if executable == 'ik_node':
            params = tuple(f'{k}:={str(v).lower() if isinstance(v, bool) else v}'
                           for k, v in NODE_TEST_PARAMS.items()) + tuple(params)
        env, log = {**self.env, **(env_extra or {})}, self.tmp / f'{name}.log'
        forks = node_forks() if self.forks else None
        proc = forks and forks.start(executable, params, env, log, ros_args, cwd, NODE_PRIORITY)
        if not proc:
            proc = start_node(executable, params, env, log, ros_args, cwd, domain_lock_fds(),
                              NODE_PRIORITY)
        proc.executable = executable
        self.procs.append(proc)
        return proc

    def logs(self) -> str:
        return '\n'.join(f'--- {p.log_path.name}\n{p.log_path.read_text()}' for p in self.procs)

    def close(self) -> None:
        stop_processes(self.procs)


class Probe:
    """An rclpy node in the test process: publishes targets, records what the node sends."""

    def __init__(self, domain: int, namespace: str = ''):
        self.ctx = Context()
        rclpy.init(context=self.ctx, domain_id=domain)
        self.node = rclpy.create_node('probe', context=self.ctx, namespace=namespace or None,
                                      start_parameter_services=False)
        self.executor = SingleThreadedExecutor(context=self.ctx)
        self.executor.add_node(self.node)
        # (receive time, message); a deep queue, so that nothing is lost while the test works.
        self.commands: list[tuple[float, JointState]] = []
        self.statuses: list[DiagnosticStatus] = []
        self.states: list[DiagnosticStatus] = []
        self.status_stamps: list[int] = []      # [ns] the stamp of each status's array
        self.arm: list[tuple[float, np.ndarray]] = []
        deep = QoSProfile(depth=10_000)
        self.command_sub = self.node.create_subscription(JointState, 'joint_commands',
                                                         self._on_command, deep)
        self.node.create_subscription(DiagnosticArray, 'ik_status', self._on_status, deep)
        self.targets = self.node.create_publisher(PoseStamped, 'target_pose', 10)
        self.goal_pose = self.node.create_publisher(PoseStamped, '/goal_pose', 10)
        self.clicked_point = self.node.create_publisher(PointStamped, '/clicked_point', 10)
        self.joint_states = self.node.create_publisher(JointState, 'joint_states', 10)
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
        self.description = self.node.create_publisher(String, 'robot_description', latched)
        self._param_clients: dict = {}
        # The rig's node processes (ros_rig): their logs tell the late ticks the machine caused
        # (command_judge.judge_commands excuses the abrupt stops those made).
        self.procs: Optional[Procs] = None

    def _on_status(self, msg: DiagnosticArray) -> None:
        # The node's periodic state (ik_node.ros.state_report) apart from the answers.
        answers = [s for s in msg.status if not s.name.endswith(': state')]
        self.states.extend(s for s in msg.status if s.name.endswith(': state'))
        self.statuses.extend(answers)
        self.status_stamps.extend([stamp_ns(msg.header.stamp)] * len(answers))

    def _on_command(self, msg: JointState) -> None:
        self.commands.append((time.monotonic(), msg))

    def now_ns(self) -> int:
        return self.node.get_clock().now().nanoseconds

    def spin_until(self, predicate, timeout: float, every=None, period: float = 0.2) -> bool:
        """Spin until predicate() holds or ``timeout`` [s] passed; call every() meanwhile."""
        end = time.monotonic() + timeout
        next_call = 0.0
        while time.monotonic() < end:
            if predicate():
                return True
            if every is not None and time.monotonic() >= next_call:
                every()
                next_call = time.monotonic() + period
            self.executor.spin_once(timeout_sec=0.01)
        return bool(predicate())

    def spin_for(self, seconds: float) -> None:
        """Spin for ``seconds``: for paced publishing (a stream of targets), never as a wait."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.005)

    def last_command(self, chain: Chain) -> np.ndarray:
        """Return the newest command by stamp."""
        msg = max((m for _, m in self.commands), key=lambda m: stamp_ns(m.header.stamp))
        return q_of(msg, chain)

    def commands_by_stamp(self, chain: Chain, since: int = 0, after_ns: int = 0
                          ) -> tuple[np.ndarray, np.ndarray]:
        """
        Return (stamps [s] (k,), q (k, n)) of commands in stamp (publish) order.

        since: only commands received from this index on; after_ns: only commands stamped
        later than this [ns] (commands in flight when it was taken arrive later but are older).
        """
        msgs = sorted((m for _, m in self.commands[since:]
                       if stamp_ns(m.header.stamp) > after_ns),
                      key=lambda m: stamp_ns(m.header.stamp))
        return (np.array([stamp_ns(m.header.stamp) * 1e-9 for m in msgs]),
                np.array([q_of(m, chain) for m in msgs]).reshape(-1, chain.n))

    def publish_pose(self, T: np.ndarray, frame: str = 'base_link', topic=None) -> PoseStamped:
        msg = pose_msg(T, frame)
        msg.header.stamp = self.node.get_clock().now().to_msg()
        (topic or self.targets).publish(msg)
        return msg

    def publish_joint_states(self, names, q, stamp_ns: Optional[int] = None) -> None:
        """Publish a reading stamped now, or at ``stamp_ns`` (another clock, a late one)."""
        msg = JointState(name=list(names), position=[float(v) for v in q])
        stamp_ns = self.now_ns() if stamp_ns is None else stamp_ns
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
        self.joint_states.publish(msg)

    def set_parameters(self, node_name: str, **values) -> list:
        return self.set_parameter_list(node_name, [Parameter(name, value=value)
                                                   for name, value in values.items()])

    def set_parameter_list(self, node_name: str, params: list, every=None,
                           period: float = 0.2) -> list:
        """
        Set rclpy Parameters on a node through its service; return the results.

        every: called each ``period`` [s] until the answer is in (a jog stream going on
        while the node takes the new values: the call may take longer than a jog_timeout).
        """
        return self._call_parameters(node_name, SetParameters, 'set_parameters', params,
                                     every, period).results

    def set_parameters_atomically(self, node_name: str, params: list):
        """Set rclpy Parameters on a node all at once (judged together); return the result."""
        return self._call_parameters(node_name, SetParametersAtomically,
                                     'set_parameters_atomically', params).result

    def _call_parameters(self, node_name: str, srv_type, service: str, params: list,
                         every=None, period: float = 0.2):
        """Call the node's parameter ``service`` with ``params``; return the response."""
        # One client per node and service, kept until close() (not made for each call).
        client = self._param_clients.get((node_name, service))
        if client is None:
            client = self.node.create_client(srv_type, f'/{node_name}/{service}')
            self._param_clients[(node_name, service)] = client
        if every is None:
            assert client.wait_for_service(timeout_sec=STARTUP_TIMEOUT)
        else:
            assert self.spin_until(client.service_is_ready, STARTUP_TIMEOUT, every, period)
        request = srv_type.Request(parameters=[p.to_parameter_msg() for p in params])
        # Sent again after 5 s without an answer (setting the same values twice is harmless).
        # A call right after discovery can lose its response: the service's response writer
        # may not have discovered this client's reader yet, and Fast DDS gives it 100 ms
        # (ros2/ros2#1253). One call to a just-started node got no answer in 30 s beside two
        # other test processes. A node that hangs answers none of the 6 requests.
        for _ in range(6):
            future = client.call_async(request)
            if self.spin_until(future.done, 5.0, every, period):
                return future.result()
            client.remove_pending_request(future)
        raise AssertionError(f'{service} got no answer in 30 s: the node hangs')

    def answer(self, publish, n_before: int, refusal: bool = False,
               timeout: float = STARTUP_TIMEOUT):
        """
        Publish (again every 0.2 s) until the node answers; return the answering status.

        Refusals while the node is starting (no model, no joint_states yet) do not count,
        unless ``refusal`` is True. Returns None if no answer came within ``timeout``.
        """
        def found():
            for s in self.statuses[n_before:]:
                if refusal or s.level != DiagnosticStatus.ERROR:
                    return s
            return None

        self.spin_until(lambda: found() is not None, timeout, publish)
        return found()

    def answer_to(self, publish_once, timeout: float = STARTUP_TIMEOUT, refusal: bool = False,
                  period: float = 0.2):
        """
        Publish a target until a status answers that very message; return it, or None.

        ``publish_once()`` publishes one target and returns the message; the answer is the
        first status whose ``target_stamp`` matches a message sent (refusals while the node
        starts do not count unless ``refusal``). The target goes again every ``period`` s
        while the node has answered nothing yet (it may not hear the first ones) or when it
        answered the last one with a refusal that does not count; once the node has answered
        anything, a message unanswered goes again only after RESEND_ALIVE s. A search takes
        up to half a second: sent again meanwhile, the node would pursue the second message
        while the test follows the first's answer.
        """
        sent: list[str] = []
        n_before = len(self.statuses)
        last_send = -math.inf

        def counts(s) -> bool:
            return refusal or s.level != DiagnosticStatus.ERROR

        def answered(stamp: str) -> list:
            return [s for s in self.statuses[n_before:]
                    if status_values(s).get('target_stamp') == stamp]

        def found():
            for s in self.statuses[n_before:]:
                if status_values(s).get('target_stamp') in sent and counts(s):
                    return s
            return None

        def send_if_due():
            nonlocal last_send
            since = time.monotonic() - last_send
            if sent and self.statuses:
                last = answered(sent[-1])
                due = (since >= period and last and not any(counts(s) for s in last)
                       or since >= RESEND_ALIVE)
            else:
                due = since >= period
            if due:
                sent.append(stamp_text(publish_once().header.stamp))
                last_send = time.monotonic()

        self.spin_until(lambda: found() is not None, timeout, send_if_due, 0.0)
        return found()

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.shutdown(context=self.ctx)


class WatchedProbe(Probe):
    """
    A Probe whose commands and the arm's joint_states go through a CommandWatcher by stamp.

    Only the simulated arm publishes joint_states here (the tests' own bad messages carry
    other joints or go through :meth:`publish_raw_joint_states`), so the watcher may trust
    them. :meth:`assert_safe` replays everything in stamp order and fails on any violation.
    """

    def __init__(self, domain: int, chain: Chain, v_max: float = V_MAX,
                 period: float = PERIOD):
        super().__init__(domain)
        self.chain = chain
        self.v_max, self.period = v_max, period
        self.log = StampedLog()
        self.trusted_arm = True
        self.arm_stamped: list[tuple[int, np.ndarray]] = []
        deep = QoSProfile(depth=10_000)
        self.node.create_subscription(
            JointState, 'joint_commands',
            lambda m: self.log.command(stamp_ns(m.header.stamp), m.name, m.position), deep)
        self.node.create_subscription(JointState, 'joint_states', self._on_arm, deep)

    def _on_arm(self, msg: JointState) -> None:
        if not self.trusted_arm or list(msg.name)[:self.chain.n] != list(self.chain.joint_names):
            return
        stamp = stamp_ns(msg.header.stamp)
        self.log.arm(stamp, msg.name, msg.position)
        self.arm.append((time.monotonic(), np.array(msg.position[:self.chain.n])))
        self.arm_stamped.append((stamp, self.arm[-1][1]))

    def watcher(self) -> CommandWatcher:
        """Return a fresh watcher fed with everything so far, in stamp order."""
        # Joint by joint: a tip_link change legitimately commands fewer joints.
        w = CommandWatcher.for_chain(self.chain, np.full(self.chain.n, self.v_max),
                                     self.period, require_all=False, speed_slack=0.002)
        return self.log.replay(w)

    def assert_safe(self) -> CommandWatcher:
        """Fail with the first violations if any command was unsafe; return the watcher."""
        w = self.watcher()
        summary = w.summary()
        assert w.messages > 0, 'no command was judged'
        assert w.total_violations == 0, '\n'.join(
            [f'{summary["violations"]} unsafe command(s) of {summary["messages"]}:']
            + summary['first'])
        return w

    def arm_reached(self, T: np.ndarray, tol: float = 1e-3) -> bool:
        """Return True once the simulated arm's tip is within ``tol`` m and 10*tol rad of T."""
        if not self.arm:
            return False
        pe, oe = pose_error(T, self.chain.fk(self.arm[-1][1]))
        return pe < tol and oe < 10 * tol

    def arm_before(self, t: float, wait: float = 5.0) -> np.ndarray:
        """
        Return the newest arm reading stamped before ``t`` [s] (by its header stamp).

        First waits up to ``wait`` [s] for a reading stamped at ``t`` or later: the arm's
        readings come in order, so then every reading before ``t`` is in. A busy probe may
        not have read them yet (a CI run beside a busy process took one from 0.15 s before
        ``t``). An arm that stopped publishing has no later reading: its last one is taken.
        """
        self.spin_until(
            lambda: bool(self.arm_stamped) and self.arm_stamped[-1][0] >= t * 1e9, wait)
        before = [(s, q) for s, q in self.arm_stamped if s < t * 1e9]
        assert before, f'no arm reading before {t}'
        return max(before, key=lambda e: e[0])[1]

    def settled(self, since_ns: int = 0, rest: float = 0.3, timeout: float = 10.0,
                every=None) -> np.ndarray:
        """
        Wait until the arm has rested for ``rest`` s (by stamp); return where it rests.

        Readings are taken in stamp order (the transport may deliver one late).

        Only readings stamped after ``since_ns`` count (an arm restarted since then: the old
        one's last readings also rest). Rest is every reading of the last ``rest`` seconds
        equal: at 100 Hz two equal readings in a row can be one skipped command mid-motion.
        """
        def still() -> bool:
            readings = sorted(((t, q) for t, q in self.arm_stamped if t > since_ns),
                              key=lambda e: e[0])
            if not readings or readings[-1][0] - rest * 1e9 < readings[0][0]:
                return False
            t_last, q_last = readings[-1]
            recent = [q for t, q in readings if t >= t_last - rest * 1e9]
            return len(recent) >= 10 and all(np.array_equal(q, q_last) for q in recent)

        assert self.spin_until(still, timeout, every, 0.02), \
            f'the arm did not rest for {rest} s within {timeout} s: {self._motion_text(rest)}'
        return max(self.arm_stamped, key=lambda e: e[0])[1]

    def _motion_text(self, span: float) -> str:
        """Say how the arm's newest readings and the commands moved (a failure's message)."""
        now = self.now_ns()
        readings = sorted(self.arm_stamped, key=lambda e: e[0])
        if not readings:
            return 'no reading'
        t_last = readings[-1][0]
        recent = np.array([q for t, q in readings if t >= t_last - span * 1e9])
        text = (f'{len(readings)} readings, the newest stamped {(now - t_last) * 1e-9:.3f} s '
                f'ago; over its last {span} s {len(recent)} readings moved '
                f'{np.ptp(recent, axis=0).round(6).tolist()} rad')
        if self.commands:
            stamp, last = max(((stamp_ns(m.header.stamp), m) for _, m in self.commands[-50:]),
                              key=lambda e: e[0])
            text += (f'; the newest command stamped {(now - stamp) * 1e-9:.3f} s ago at '
                     f'{np.round(last.position, 6).tolist()}')
        return text

    def commanded(self, T: np.ndarray) -> bool:
        """Return True once the newest command puts the tip within 1 mm and 0.01 rad of T."""
        if not self.commands:
            return False
        pe, oe = pose_error(T, self.chain.fk(self.last_command(self.chain)))
        return pe < 1e-3 and oe < 1e-2

    def serve_good_target(self, dq: np.ndarray, timeout: float = 20.0) -> DiagnosticStatus:
        """
        Publish the reachable target FK(Q0 + dq) until it is solved and commanded.

        Returns the OK status of its solve; fails the test if it is not served.
        """
        T = self.chain.fk(Q0 + dq)
        status = self.answer_to(lambda: self.publish_pose(T), timeout)
        assert status is not None and status.level == DiagnosticStatus.OK, status
        # Sent until answered, then left alone: the commands approach that one solution.
        if not self.spin_until(lambda: self.commanded(T), timeout):
            q = self.last_command(self.chain)
            pytest.fail(f'a good target was not commanded: the newest command is '
                        f'{pose_error(T, self.chain.fk(q))} (m, rad) from it; status {status}')
        return status


def pose_msg(T: np.ndarray, frame: str) -> PoseStamped:
    msg = PoseStamped()
    msg.header.frame_id = frame
    p = msg.pose.position
    p.x, p.y, p.z = (float(v) for v in T[:3, 3])
    o = msg.pose.orientation
    o.x, o.y, o.z, o.w = (float(v) for v in quat_xyzw_from_matrix(T))
    return msg


def status_values(status: DiagnosticStatus) -> dict:
    return {kv.key: kv.value for kv in status.values}


def q_of(msg: JointState, chain: Chain) -> np.ndarray:
    assert list(msg.name) == list(chain.joint_names)
    return np.array(msg.position)


@contextmanager
def ros_rig(tmp: Path, chain: Optional[Chain] = None) -> Iterator[tuple[Procs, Probe]]:
    """
    Yield (procs, probe) in a fresh domain: a WatchedProbe of ``chain``, or a plain Probe.

    Both are closed afterwards; then no node process may have printed a Python traceback
    or nanobind's report of objects alive at exit (also not while stopping).
    """
    domain = fresh_domain()
    procs = Procs(domain, tmp)
    probe = WatchedProbe(domain, chain) if chain is not None else Probe(domain)
    probe.procs = procs
    try:
        yield procs, probe
    finally:
        probe.close()
        procs.close()
    logs = procs.logs()
    assert 'Traceback' not in logs, logs
    assert 'Fatal Python error' not in logs, logs    # a crash (faulthandler's report)
    assert 'nanobind: leaked' not in logs, logs     # the nodes free their objects before exit


def assert_bad_starts_fail(tmp: Path, urdf: Path, cases: list[tuple[list[str], str]]) -> None:
    """
    Start ik_node on ``urdf`` once per (parameters, reason) of ``cases``, all at once.

    Each must exit with code 1 and a FATAL line containing its reason (the reasons must not
    mix), without a traceback, within STARTUP_TIMEOUT. The first starts by ``python -m``, as
    users start it; the others are forked where they can be (:func:`node_forks`). Each has a
    domain of its own: sharing one, the failing nodes met (topics of one name with different
    types among their parameters), and once one logged Fast DDS's 'Error registering remote
    type: Inconsistent TypeObject' and died of SIGSEGV as it exited after its FATAL line
    (docs/reliability.md). This test checks each start's own exit, not how they meet.
    """
    forks = node_forks() if forks_enabled() else None
    runs = []
    for i, (params, words) in enumerate(cases):
        env = node_environment(fresh_domain(), tmp)
        node_params = [f'urdf_file:={urdf}', 'interactive_marker:=false', *params]
        log = tmp / f'bad_start_{i}.log'
        proc = forks.start('ik_node', node_params, env, log) if forks and i else None
        runs.append((params, words, proc or start_node('ik_node', node_params, env, log)))
    for params, words, proc in runs:
        try:
            proc.wait(timeout=STARTUP_TIMEOUT)
        except subprocess.TimeoutExpired:
            # SIGABRT: faulthandler (node_environment) prints where each thread hangs.
            proc.send_signal(signal.SIGABRT)
            try:
                proc.wait(timeout=10.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            pytest.fail(f'ik_node with {params} did not exit within {STARTUP_TIMEOUT} s; its '
                        f'output, then its threads at SIGABRT:\n{proc.log_path.read_text()}')
        out = proc.log_path.read_text()
        assert proc.returncode == 1, (params, f'exit code {proc.returncode}', out)
        assert words in out and 'Traceback' not in out, (params, out)
