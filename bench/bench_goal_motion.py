# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Goal motion of the IK node: far targets one after another, judged by what the arm does.

The measurement of issue 28 ("How it is measured"). For each arm (the demo arm, UR5, Panda)
``ik_node`` and ``sim_arm`` run as real processes, started with the README's console scripts
and config files (``config/ik_node.yaml``, ``config/sim_arm.yaml``: the simulated arm follows
the commands within the URDF velocity limits). The world is the floor (the node's default)
plus one static sphere (node parameter ``obstacle_spheres``) placed where many straight joint
paths between the sampled goals pass but no goal is. This process sends the targets and
records every command (with its header stamp), every ``joint_states`` reading and every
``ik_status``. Nothing is read from the node's internals: the verdicts come from the measured
arm, the stamps and the status values.

- **Targets**: the FK pose of a random joint vector (seeded, uniform within the URDF limits)
  that is collision-free by an exact check (pinocchio + coal on the URDF's collision geometry,
  self, floor and obstacle; the self pairs are chosen from the geometry alone, see
  ``exact_collision.reference_pairs``) and at least ``--min-distance`` rad (Euclidean) from
  the previous goal's joint vector. Each is sent as a PoseStamped on ``target_pose`` after the
  previous one ended.
- **Verdict per target**, from the measured arm (FK of ``joint_states`` by the benchmark's own
  model) and ``ik_status``:
  *reached*: the tool within 1 mm and 0.01 rad of the target in every reading for
  ``--settle`` s, the joints still (spread under 1 mrad) in that time;
  *refused*: a WARN/ERROR status answering that target (its ``target_stamp``) and no motion
  since it was sent (no command differing from the one before, the arm within 1 mrad);
  *stopped*: neither, because a stall status came ('stall', 'step refused', 'not
  following'), the arm came to rest away from the target (still for ``--still`` s after
  moving), or the deadline (``--deadline`` s) passed.
- **Per target**: click-to-first-motion (target stamp -> stamp of the first command that
  differs from the command before it, in stamp order), time to reach (target stamp -> the
  first reading of the settled run), and the time the node's own straight-line motion
  (one jerk-limited profile along the joint line, ``ik_node.motion.trajectory.LineSegment``)
  takes at the same velocity, acceleration and jerk limits from where the arm was to where
  it ended (the node's default acceleration and jerk where no YAML declares them).
- **Command stream** (all JointState commands in stamp order): the largest |velocity|,
  |acceleration| and |jerk| by divided differences at the stamps (a gap longer than 2.5
  output periods is read as the last command held until one period before the next, what a
  position-controlled driver does with it), as ratios to the declared limits: velocity = URDF
  (or joint_limits YAML ``max_velocity``) x ``velocity_scale``; acceleration and jerk from
  the YAML named by the node parameter ``joint_limits_file`` when the node has one (x
  ``acceleration_scale`` when the node has that), else the raw numbers; every distinct
  command checked for contact by the exact check.
- **Timings from ik_status** when present: ``goal_search_ms`` + ``planning_ms`` (and the
  ``motion`` / ``path`` values), else today's ``solve_time_ms``.

Output: a markdown table per arm, printed and written to ``bench/out/goal_motion_<date>.md``
with the raw records in ``goal_motion_<date>.json`` (a new ``_2``, ``_3``, ... file when one
exists), node logs in ``bench/out/scratch/``. One progress line per target.

    .venv-bench/bin/python bench/bench_goal_motion.py --arms demo ur5 --targets 30
    .venv-bench/bin/python bench/bench_goal_motion.py            # 100 targets, all three arms
"""

import argparse
from dataclasses import dataclass, field
import datetime
import importlib.metadata
import json
import math
import os
from pathlib import Path
import platform
import subprocess
import sys
import time
from typing import Any, Optional

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from common import check_kernels, note_load, publish  # noqa: E402, I100
from exact_collision import ExactChecker, reference_pairs  # noqa: E402
import robots  # noqa: E402
from targets import ORIENTATION_TOLERANCE, pose_error, POSITION_TOLERANCE  # noqa: E402

OUT = HERE / 'out'
ARMS = ('demo', 'ur5', 'panda')
NODE_CONFIG = ROOT / 'config' / 'ik_node.yaml'
SIM_CONFIG = ROOT / 'config' / 'sim_arm.yaml'
PANDA_READY = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)
MOTION_EPS = 1e-3       # [rad] the arm moved / a settled arm's spread
COMMAND_EPS = 1e-9      # [rad] a command differs from the one before
HOLD_GAP = 2.5          # [output periods] a longer gap is a held command
REFUSAL_GRACE = 0.5     # [s] no motion this long after a refusal: refused before moving
ANSWER_WAIT = 1.0       # [s] the longest wait for a target's answer after its verdict
STALL_WORDS = ('stall', 'step refused', 'not following')
NODE_NAME = 'ik_node'
OBSTACLE_POOL = 100     # goals drawn to place the obstacle


# --- Arms and their world ------------------------------------------------------------------

@dataclass
class Arm:
    """A benchmark arm: URDF, chain, start pose (chain order), mesh folders."""

    name: str
    urdf: str
    base_link: str
    tip_link: str
    start: np.ndarray
    package_dirs: list = field(default_factory=list)


def _erd_share() -> Path:
    dist = importlib.metadata.distribution('example-robot-data')
    return Path(dist.locate_file('cmeel.prefix/share'))


def _sim_start() -> dict:
    """Return the start pose of config/sim_arm.yaml as {joint: value}."""
    import yaml
    values = yaml.safe_load(SIM_CONFIG.read_text())['/**']['ros__parameters']
    return dict(zip(values['initial_joint_names'], values['initial_positions']))


def load_arm(name: str) -> Arm:
    """Return the benchmark arm ``name`` ('demo', 'ur5' or 'panda')."""
    if name == 'demo':
        urdf, base, tip, dirs = str(ROOT / 'config' / 'urdf' / 'demo_arm.urdf'), 'base_link', \
            'tool0', []
    else:
        spec = robots.get_robot(name)
        urdf, base, tip, dirs = spec.urdf, spec.base_link, spec.tip_link, [_erd_share()]
    chain = robots.ReferenceChain(urdf, base, tip)
    if name == 'panda':
        start = np.array(PANDA_READY)
    else:
        pose = _sim_start()
        start = np.array([pose[j] for j in chain.joint_names])
    return Arm(name, urdf, base, tip, start, dirs)


def velocity_limits(urdf: str, joint_names) -> np.ndarray:
    """Return the URDF velocity limits (n,) [rad/s] of ``joint_names``."""
    robot = robots._parse(urdf)     # its warnings about unknown tags kept off stderr
    return np.array([float(robot.joint_map[j].limit.velocity) for j in joint_names])


def sample_goals(rng, chain, exact: ExactChecker, n: int, q_start: np.ndarray,
                 min_distance: float, max_tries: int = 200_000) -> np.ndarray:
    """Return (n, dof) collision-free joint vectors, each >= min_distance from the previous."""
    lo = np.maximum(chain.lower, -2 * np.pi)
    hi = np.minimum(chain.upper, 2 * np.pi)
    goals, prev = [], q_start
    for _ in range(max_tries):
        if len(goals) == n:
            break
        q = rng.uniform(lo, hi)
        if np.linalg.norm(q - prev) < min_distance or exact.collides(q):
            continue
        goals.append(q)
        prev = q
    if len(goals) < n:
        raise RuntimeError(f'only {len(goals)} of {n} collision-free far goals in {max_tries} '
                           'draws')
    return np.array(goals)


class Skeleton:
    """The arm as points on the segments between its joint origins (pinocchio FK)."""

    def __init__(self, exact: ExactChecker, tip_link: str, per_segment: int = 8):
        import pinocchio as pin
        self.pin, self.exact = pin, exact
        self.joint_ids = [exact.model.getJointId(j) for j in exact_joint_names(exact)]
        self.tip = exact.model.getFrameId(tip_link)
        self.data = exact.model.createData()
        self.s = np.linspace(0.0, 1.0, per_segment, endpoint=False)

    def points(self, q: np.ndarray) -> np.ndarray:
        """Return (p, 3) points [m] along the arm at chain joints ``q``."""
        pin, model, data = self.pin, self.exact.model, self.data
        pin.framesForwardKinematics(model, data, self.exact._q(q))
        origins = np.array([data.oMi[j].translation for j in self.joint_ids]
                           + [data.oMf[self.tip].translation])
        a, b = origins[:-1], origins[1:]
        return (a[:, None, :] + self.s[None, :, None] * (b - a)[:, None, :]).reshape(-1, 3)


def exact_joint_names(exact: ExactChecker) -> list:
    model = exact.model
    by_q = {model.joints[j].idx_q: model.names[j] for j in range(1, model.njoints)}
    return [by_q[i] for i in exact.index]


def place_obstacle(arm: Arm, chain, pairs: list, exact_floor: ExactChecker, goals: np.ndarray,
                   radius: float, rng, link_radius: float = 0.05) -> np.ndarray:
    """
    Return the centre (3,) [m] of a sphere that many straight goal-to-goal paths pass.

    A heuristic on the arm's skeleton (segments between joint origins, ``link_radius``
    thick): candidates are skeleton points half-way along the straight joint paths; the one
    crossed by the most paths, less twice the goals it would touch, wins, never one the start
    pose touches (exactly) or that sits on the floor or at the base. The goals are drawn again
    afterwards with the exact check against it, so none touches it.
    """
    from ik_node import HalfSpace, Sphere
    skeleton = Skeleton(exact_floor, arm.tip_link)
    ends = np.vstack([arm.start[None], goals])
    fractions = np.linspace(0.0, 1.0, 17)
    paths = np.array([[skeleton.points(a + f * (b - a)) for f in fractions]
                      for a, b in zip(ends[:-1], ends[1:])])          # (k, 17, p, 3)
    goal_points = paths[:, -1]
    middle = paths[:, 5:12].reshape(-1, 3)
    off_base = np.hypot(middle[:, 0], middle[:, 1]) >= radius + 0.15
    ok = (middle[:, 2] >= radius + 0.05) & off_base
    candidates = middle[ok][rng.choice(int(ok.sum()), size=min(400, int(ok.sum())),
                                       replace=False)]
    reach = radius + link_radius
    flat = paths.reshape(len(paths), -1, 3)
    scores = []
    for c in candidates:
        blocked = int(np.sum(np.min(np.linalg.norm(flat - c, axis=2), axis=1) < reach))
        touched = int(np.sum(np.min(np.linalg.norm(goal_points - c, axis=2), axis=1)
                             < reach + 0.03))
        scores.append(blocked - 2 * touched)
    floor = HalfSpace((0.0, 0.0, 1.0), 0.0, name='floor')
    for k in np.argsort(scores)[::-1]:
        trial = ExactChecker(chain, arm.urdf, arm.package_dirs,
                             [floor, Sphere(tuple(candidates[k]), radius, name='obstacle')],
                             pairs=pairs)
        if not trial.collides(arm.start):
            return candidates[k]
    raise RuntimeError('no obstacle place leaves the start pose free')


def path_contacts(exact: ExactChecker, a: np.ndarray, b: np.ndarray, step: float = 0.05
                  ) -> bool:
    """Return True when the straight joint path a -> b touches (samples <= step rad apart)."""
    k = max(2, int(math.ceil(np.max(np.abs(b - a)) / step)) + 1)
    return any(exact.collides(a + f * (b - a)) for f in np.linspace(0.0, 1.0, k))


def make_checker(arm: Arm, chain, obstacles, pairs) -> ExactChecker:
    return ExactChecker(chain, arm.urdf, arm.package_dirs, obstacles, pairs=pairs)


# --- Processes -----------------------------------------------------------------------------

def console_script(name: str) -> list:
    """Return the command of console script ``name`` beside this interpreter."""
    from ik_node.ros.processes import NODE_MODULES
    modules = {**NODE_MODULES, 'ik-compile': 'ik_node.compile'}
    path = Path(sys.executable).parent / name
    return [str(path)] if path.exists() else [sys.executable, '-m', modules[name]]


def start_process(name: str, params_file: Path, params: list, env: dict, log: Path
                  ) -> subprocess.Popen:
    """Start console script ``name`` with a params file and ``-p`` overrides."""
    args = console_script(name) + ['--ros-args', '--params-file', str(params_file)]
    for p in params:
        args += ['-p', p]
    with open(log, 'w') as out:
        proc = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT)
    proc.log_path = log
    return proc


def ros_list(values) -> str:
    return '[' + ', '.join(repr(float(v)) for v in values) + ']'   # doubles, never ints


# --- The probe: targets out, commands / readings / statuses in -------------------------------

def stamp_ns(stamp) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def stamp_text_ns(ns: int) -> str:
    return f'{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}'


class Probe:
    """An rclpy node in this process: sends targets, records what the node and arm do."""

    def __init__(self, domain: int, joint_names, name: str = 'bench_goal_motion'):
        import rclpy
        from diagnostic_msgs.msg import DiagnosticArray
        from geometry_msgs.msg import PoseStamped
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import QoSProfile
        from sensor_msgs.msg import JointState
        self.rclpy = rclpy
        self.ctx = Context()
        rclpy.init(context=self.ctx, domain_id=domain)
        self.node = rclpy.create_node(name, context=self.ctx)
        self.executor = SingleThreadedExecutor(context=self.ctx)
        self.executor.add_node(self.node)
        self.names = list(joint_names)
        self.commands: list = []      # (stamp ns, q (n,))
        self.readings: list = []      # (stamp ns, q (n,))
        self.statuses: list = []      # dicts
        deep = QoSProfile(depth=10_000)
        self.node.create_subscription(JointState, 'joint_commands', self._on_command, deep)
        self.node.create_subscription(JointState, 'joint_states', self._on_reading, deep)
        self.node.create_subscription(DiagnosticArray, 'ik_status', self._on_status, deep)
        self.targets = self.node.create_publisher(PoseStamped, 'target_pose', 10)
        self.PoseStamped = PoseStamped

    def _q(self, msg) -> Optional[np.ndarray]:
        index = {name: i for i, name in enumerate(msg.name)}
        if len(msg.position) != len(msg.name) or any(n not in index for n in self.names):
            return None
        return np.array([msg.position[index[n]] for n in self.names])

    def _on_command(self, msg) -> None:
        q = self._q(msg)
        if q is not None:
            self.commands.append((stamp_ns(msg.header.stamp), q))

    def _on_reading(self, msg) -> None:
        q = self._q(msg)
        if q is not None:
            self.readings.append((stamp_ns(msg.header.stamp), q))

    def _on_status(self, msg) -> None:
        for s in msg.status:
            if s.name.endswith(': state'):      # the node's periodic state, not an answer
                continue
            self.statuses.append({'stamp': stamp_ns(msg.header.stamp), 'recv': time.monotonic(),
                                  'level': int.from_bytes(s.level, 'little')
                                  if isinstance(s.level, bytes) else int(s.level),
                                  'message': s.message,
                                  'values': {kv.key: kv.value for kv in s.values}})

    def now_ns(self) -> int:
        return self.node.get_clock().now().nanoseconds

    def spin(self, seconds: float = 0.005) -> None:
        self.executor.spin_once(timeout_sec=seconds)

    def spin_until(self, predicate, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            self.spin(0.01)
        return bool(predicate())

    def publish_target(self, T: np.ndarray, frame: str) -> int:
        """Publish pose T in ``frame`` stamped now; return the stamp [ns]."""
        from scipy.spatial.transform import Rotation
        msg = self.PoseStamped()
        ns = self.now_ns()
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)
        msg.header.frame_id = frame
        p, o = msg.pose.position, msg.pose.orientation
        p.x, p.y, p.z = (float(v) for v in T[:3, 3])
        o.x, o.y, o.z, o.w = (float(v) for v in Rotation.from_matrix(T[:3, :3]).as_quat())
        self.targets.publish(msg)
        return ns

    def node_parameters(self, names: list, timeout: float = 30.0) -> dict:
        """Return {name: value} of the node's parameters among ``names`` that it has."""
        from rcl_interfaces.srv import GetParameters, ListParameters
        from rclpy.parameter import parameter_value_to_python
        listed = self._call(ListParameters, 'list_parameters', ListParameters.Request(),
                            timeout)
        present = [n for n in names if n in set(listed.result.names)]
        if not present:
            return {}
        got = self._call(GetParameters, 'get_parameters', GetParameters.Request(names=present),
                         timeout)
        return {n: parameter_value_to_python(v) for n, v in zip(present, got.values)}

    def _call(self, srv_type, service: str, request, timeout: float):
        client = self.node.create_client(srv_type, f'/{NODE_NAME}/{service}')
        if not client.wait_for_service(timeout_sec=timeout):
            raise RuntimeError(f'/{NODE_NAME}/{service} not offered')
        future = client.call_async(request)
        self.executor.spin_until_future_complete(future, timeout_sec=timeout)
        if future.result() is None:
            raise RuntimeError(f'/{NODE_NAME}/{service} gave no answer')
        return future.result()

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.shutdown(context=self.ctx)


# --- One target ----------------------------------------------------------------------------

@dataclass
class Judge:
    """Settings of the verdicts."""

    deadline: float = 20.0
    settle: float = 0.3
    still: float = 3.0


def _is_stall(status: dict) -> bool:
    text = status['message'].lower()
    return (status['level'] == 2 and any(w in text for w in STALL_WORDS)) or \
        status['values'].get('stalled') == 'True'


class TargetWatch:
    """
    One target: what the arm, the commands and the statuses did since it was sent.

    :meth:`update` takes the new messages, :meth:`verdict` says 'reached', 'refused',
    'stopped' or None (not yet) by the rules in the module docstring.
    """

    def __init__(self, probe: Probe, chain, T: np.ndarray, frame: str, judge: Judge):
        self.probe, self.chain, self.T, self.judge = probe, chain, T, judge
        self.n_read = len(probe.readings)
        self.read_i, self.cmd_i, self.status_i = (self.n_read, len(probe.commands),
                                                  len(probe.statuses))
        self.q_arm0 = probe.readings[-1][1].copy()
        self.prev_reading = self.q_arm0
        self.last_cmd = probe.commands[-1][1].copy() if probe.commands else None
        self.t_pub = probe.publish_target(T, frame)
        self.key = stamp_text_ns(self.t_pub)
        self.moved = False
        self.answers: list = []
        self.refusal: Optional[dict] = None
        self.stall: Optional[dict] = None
        self.run_start: Optional[int] = None     # [ns] first reading of the run within tolerance
        self.errors = (math.inf, math.inf)
        self.last_change = self.t_pub            # [ns] last arm or command change

    def update(self) -> None:
        """Take the readings, commands and statuses that came since the last call."""
        probe = self.probe
        for stamp, q in probe.readings[self.read_i:]:
            if np.max(np.abs(q - self.q_arm0)) > MOTION_EPS:
                self.moved = True
            if np.max(np.abs(q - self.prev_reading)) > 1e-6:
                self.last_change = max(self.last_change, stamp)
            self.prev_reading = q
            self.errors = pose_error(self.T, self.chain.fk(q))
            inside = (self.errors[0] <= POSITION_TOLERANCE
                      and self.errors[1] <= ORIENTATION_TOLERANCE)
            self.run_start = (stamp if self.run_start is None else self.run_start) \
                if inside else None
        self.read_i = len(probe.readings)
        for stamp, q in probe.commands[self.cmd_i:]:
            if stamp > self.t_pub and (self.last_cmd is None
                                       or np.max(np.abs(q - self.last_cmd)) > COMMAND_EPS):
                self.moved = True
                self.last_change = max(self.last_change, stamp)
            self.last_cmd = q
        self.cmd_i = len(probe.commands)
        for s in probe.statuses[self.status_i:]:
            if s['values'].get('target_stamp') == self.key:
                self.answers.append(s)
                if self.refusal is None and s['level'] >= 1:
                    self.refusal = s
            if self.stall is None and s['stamp'] >= self.t_pub and _is_stall(s):
                self.stall = s
        self.status_i = len(probe.statuses)

    def verdict(self) -> tuple[Optional[str], str]:
        """Return (outcome or None, reason)."""
        judge, readings = self.judge, self.probe.readings
        latest = readings[-1][0]
        now = self.probe.now_ns()
        if self.run_start is not None and latest - self.run_start >= judge.settle * 1e9:
            window = np.array([q for s, q in readings[self.n_read:]
                               if s >= latest - judge.settle * 1e9])
            if np.max(np.ptp(window, axis=0)) < MOTION_EPS:
                return 'reached', ''
            return None, ''
        if (self.refusal is not None and not self.moved
                and time.monotonic() - self.refusal['recv'] >= REFUSAL_GRACE):
            return 'refused', self.refusal['message']
        if self.stall is not None:
            return 'stopped', self.stall['message']
        if self.moved and now - self.last_change >= judge.still * 1e9:
            return 'stopped', (f'came to rest {1e3 * self.errors[0]:.1f} mm, '
                               f'{self.errors[1]:.3f} rad from the target')
        if now - self.t_pub >= judge.deadline * 1e9:
            still = '' if self.moved else ', no motion'
            return 'stopped', f'deadline {judge.deadline:g} s{still}'
        return None, ''


def run_target(probe: Probe, chain, T: np.ndarray, frame: str, judge: Judge) -> dict:
    """Send target T, wait for its verdict; return the record (stamps in ns)."""
    watch = TargetWatch(probe, chain, T, frame, judge)
    outcome, reason = None, ''
    while outcome is None:
        probe.spin()
        watch.update()
        outcome, reason = watch.verdict()
    # The node may say why it stopped (a stall) before it answers the target: collect it.
    end = time.monotonic() + ANSWER_WAIT
    while not watch.answers and time.monotonic() < end:
        probe.spin()
        watch.update()
    return {'outcome': outcome, 'reason': reason, 't_pub': watch.t_pub,
            'reach_stamp': watch.run_start if outcome == 'reached' else None,
            'moved': watch.moved, 'position_error_m': watch.errors[0],
            'orientation_error_rad': watch.errors[1], 'q_arm_start': watch.q_arm0.tolist(),
            'q_arm_end': probe.readings[-1][1].tolist(),
            'answers': [{k: a[k] for k in ('level', 'message', 'values')}
                        for a in watch.answers],
            'answer_values': merged_values(watch.answers),
            'stall': None if watch.stall is None else watch.stall['message']}


def merged_values(statuses: list) -> dict:
    """Return the status values of ``statuses``, the first value of each key."""
    merged: dict[str, str] = {}
    for s in statuses:
        for k, v in s['values'].items():
            merged.setdefault(k, v)
    return merged


def wait_ready(probe: Probe, chain, frame: str, timeout: float = 90.0) -> None:
    """Wait for arm readings, then for an answer to a target at the arm's own pose."""
    if not probe.spin_until(lambda: probe.readings, timeout):
        raise RuntimeError('no joint_states from sim_arm')
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        key = stamp_text_ns(probe.publish_target(chain.fk(probe.readings[-1][1]), frame))

        def answered():
            return any(s['values'].get('target_stamp') == key and s['level'] == 0
                       for s in probe.statuses)
        if probe.spin_until(answered, 0.5):
            return
    raise RuntimeError('the IK node did not answer a target at the arm pose')


# --- The command stream --------------------------------------------------------------------

def divided_differences(t: np.ndarray, q: np.ndarray) -> tuple:
    """Return (velocity, acceleration, jerk) estimates by Newton divided differences."""
    d1 = np.diff(q, axis=0) / np.diff(t)[:, None]
    d2 = np.diff(d1, axis=0) / (t[2:] - t[:-2])[:, None]
    d3 = np.diff(d2, axis=0) / (t[3:] - t[:-3])[:, None]
    return d1, 2.0 * d2, 6.0 * d3


def with_holds(t: np.ndarray, q: np.ndarray, period: float, hold_gap: float = HOLD_GAP
               ) -> tuple:
    """Insert the held command one period before each command after a gap > hold_gap periods."""
    ts, qs = [t[0]], [q[0]]
    for k in range(1, len(t)):
        if t[k] - t[k - 1] > hold_gap * period:
            ts.append(t[k] - period)
            qs.append(q[k - 1])
        ts.append(t[k])
        qs.append(q[k])
    return np.array(ts), np.array(qs)


def moving_intervals(t: np.ndarray, q: np.ndarray, period: float, hold_gap: float = HOLD_GAP
                     ) -> dict:
    """Return the command intervals [ms] while the command moved on both sides of them."""
    moved = np.any(np.abs(np.diff(q, axis=0)) > COMMAND_EPS, axis=1)
    inside = moved[1:] & moved[:-1]          # interval k-1 -> k with motion before and after
    dt = np.diff(t)[1:][inside] * 1e3 if len(t) > 2 else np.zeros(0)
    if not len(dt):
        return {'count': 0}
    late = dt > hold_gap * period * 1e3
    return {'count': int(len(dt)), 'median_ms': float(np.median(dt)),
            'p99_ms': float(np.percentile(dt, 99)), 'max_ms': float(np.max(dt)),
            'longer_than_hold_gap': int(np.sum(late)),
            'longest_at_s': float(t[1:-1][inside][int(np.argmax(dt))])}


def stream_figures(t: np.ndarray, q: np.ndarray, period: float, limits: dict,
                   hold_gap: float = HOLD_GAP) -> dict:
    """
    Return the largest |v|, |a|, |j| per joint and their ratios to ``limits`` (or None).

    hold_gap [periods]: a longer gap between commands is read as the last one held.
    """
    th, qh = with_holds(t, q, period, hold_gap)
    out: dict[str, Any] = {'commands': int(len(t)), 'period_s': period,
                           'moving_intervals': moving_intervals(t, q, period, hold_gap)}
    for label, (tt, qq) in (('held', (th, qh)), ('raw', (t, q))):
        v, a, j = divided_differences(tt, qq)
        fig: dict[str, Any] = {}
        for name, d in (('velocity', v), ('acceleration', a), ('jerk', j)):
            peak = np.max(np.abs(d), axis=0) if len(d) else np.zeros(q.shape[1])
            fig[f'max_{name}'] = peak.tolist()
            lim = limits.get(name)
            if lim is not None:
                ratio = peak / np.asarray(lim)
                k = int(np.argmax(ratio))
                fig[f'{name}_ratio'] = float(ratio[k])
                fig[f'{name}_ratio_joint'] = k
                # Where: the command intervals around the peak (a gap shows as a long one).
                i = int(np.argmax(np.abs(d[:, k]))) if len(d) else 0
                fig[f'{name}_peak_intervals_ms'] = (np.diff(tt[max(i - 2, 0):i + 5]) * 1e3
                                                    ).round(2).tolist()
            else:
                fig[f'{name}_ratio'] = None
        out[label] = fig
    return out


def _or_none(values: np.ndarray) -> Optional[np.ndarray]:
    return None if np.all(np.isnan(values)) else values


def declared_limits(urdf_v: np.ndarray, params: dict, names, yaml_path: str = '') -> dict:
    """Return {'velocity', 'acceleration', 'jerk': (n,) or None, 'source': text}."""
    v_scale = float(params.get('velocity_scale', 1.0))
    a_scale = float(params.get('acceleration_scale', 1.0))
    n = len(names)
    # The node's defaults are the declared limits of joints no YAML limits.
    a_default = float(params.get('default_acceleration_limit', math.nan)) * a_scale
    j_default = float(params.get('default_jerk_limit', math.nan)) * a_scale
    limits: dict[str, Any] = {
        'velocity': urdf_v * v_scale, 'acceleration': _or_none(np.full(n, a_default)),
        'jerk': _or_none(np.full(n, j_default)),
        'source': f'URDF velocity x velocity_scale {v_scale:g}; the node defaults '
                  f'{a_default:g} rad/s^2, {j_default:g} rad/s^3 (x acceleration_scale)'}
    path = params.get('joint_limits_file') or yaml_path
    if not path:
        return limits
    if not Path(path).is_absolute() and not Path(path).exists():
        path = str(ROOT / path)       # relative to the package, as its config files are
    import yaml
    data = yaml.safe_load(Path(path).read_text()) or {}
    table = data.get('joint_limits', data)
    v, a, j = limits['velocity'].copy(), [], []
    for i, name in enumerate(names):
        entry = table.get(name, {})
        if entry.get('has_velocity_limits') and 'max_velocity' in entry:
            v[i] = float(entry['max_velocity']) * v_scale
        a.append(float(entry['max_acceleration']) * a_scale
                 if entry.get('has_acceleration_limits') else a_default)
        j.append(float(entry['max_jerk']) * a_scale if entry.get('has_jerk_limits')
                 else j_default)
    limits['velocity'] = v
    limits['acceleration'] = _or_none(np.array(a))
    limits['jerk'] = _or_none(np.array(j))
    limits['source'] = (f'{path} (velocity x velocity_scale {v_scale:g}, acceleration x '
                        f'acceleration_scale {a_scale:g})')
    return limits


# --- One arm -------------------------------------------------------------------------------

def motion_limits(limits: dict, params: dict, n: int):
    """Return the KinematicLimits the node moves with: declared, else its defaults."""
    from ik_node.motion.trajectory import KinematicLimits
    a = limits['acceleration'] if limits['acceleration'] is not None else np.full(n, math.nan)
    j = limits['jerk'] if limits['jerk'] is not None else np.full(n, math.nan)
    a = np.where(np.isnan(a), float(params.get('default_acceleration_limit', 5.0))
                 * float(params.get('acceleration_scale', 1.0)), a)
    j = np.where(np.isnan(j), float(params.get('default_jerk_limit', 1000.0)), j)
    return KinematicLimits.of(limits['velocity'], a, j)


def line_time(q0: np.ndarray, q1: np.ndarray, limits) -> float:
    """Return how long [s] one jerk-limited straight joint line q0 -> q1 takes at rest."""
    from ik_node.motion.trajectory import LineSegment
    return float(LineSegment(q0, q1, limits, 0.0).duration)


def _float(values: dict, key: str) -> Optional[float]:
    try:
        return float(values[key])
    except (KeyError, TypeError, ValueError):
        return None


@dataclass
class World:
    """One arm's world and targets: the exact checkers, the obstacle and the goal joints."""

    chain: Any
    pairs: list
    center: np.ndarray
    exact: ExactChecker
    goals: np.ndarray
    touching_obstacle: int
    touching_anything: int


def build_world(arm: Arm, args) -> World:
    """Choose the obstacle's place and draw the goals (seeded, exact checks)."""
    from ik_node import HalfSpace, Sphere
    chain = robots.ReferenceChain(arm.urdf, arm.base_link, arm.tip_link)
    rng = np.random.default_rng([args.seed, ARMS.index(arm.name)])
    pairs = reference_pairs(arm.urdf, arm.package_dirs, chain.joint_names, seed=args.seed)
    floor = HalfSpace((0.0, 0.0, 1.0), 0.0, name='floor')
    exact_floor = make_checker(arm, chain, [floor], pairs)
    if exact_floor.collides(arm.start):
        raise RuntimeError(f'{arm.name}: the start pose is in contact: '
                           f'{exact_floor.contacts(arm.start)}')
    # A pool of fixed size: the obstacle, and so the goals, do not depend on --targets (the
    # first 30 goals of a 100-target run are those of a 30-target run).
    pool = sample_goals(rng, chain, exact_floor, OBSTACLE_POOL, arm.start, args.min_distance)
    center = place_obstacle(arm, chain, pairs, exact_floor, pool, args.obstacle_radius, rng)
    sphere = Sphere(tuple(center), args.obstacle_radius, name='obstacle')
    exact = make_checker(arm, chain, [floor, sphere], pairs)
    only_sphere = make_checker(arm, chain, [sphere], [])
    goals = sample_goals(rng, chain, exact, args.targets, arm.start, args.min_distance)
    legs = list(zip(np.vstack([arm.start[None], goals[:-1]]), goals))
    return World(chain, pairs, center, exact, goals,
                 sum(path_contacts(only_sphere, a, b) for a, b in legs),
                 sum(path_contacts(exact, a, b) for a, b in legs))


def start_arm(arm: Arm, world: World, args, domain: int, logs: Path) -> list:
    """Start sim_arm and ik_node for ``arm`` in ``domain``; return the processes."""
    from ik_node.ros.processes import ros_environment
    env = ros_environment(domain, ros_home=logs / 'ros_home')
    if arm.package_dirs:
        # How a ROS install finds package:// meshes: the ament index of the robot's package.
        prefix = str(Path(arm.package_dirs[0]).parent)
        env['AMENT_PREFIX_PATH'] = os.pathsep.join(
            [prefix] + [p for p in env.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p])
    names = world.chain.joint_names
    sim = start_process('sim_arm', SIM_CONFIG, [
        f'urdf_file:={arm.urdf}', f'initial_positions:={ros_list(arm.start)}',
        f'initial_joint_names:=[{", ".join(names)}]'], env, logs / f'{arm.name}_sim_arm.log')
    sphere = list(world.center) + [args.obstacle_radius]
    node_params = [f'urdf_file:={arm.urdf}', f'base_link:={arm.base_link}',
                   f'tip_link:={arm.tip_link}', f'obstacle_spheres:={ros_list(sphere)}',
                   *args.node_param]
    ik = start_process('ik_node', NODE_CONFIG, node_params, env, logs / f'{arm.name}_ik_node.log')
    return [sim, ik]


def run_arm(arm: Arm, args, domain: int, logs: Path) -> dict:
    """Run the benchmark on one arm; return its raw record."""
    from ik_node.ros.processes import stop_processes
    world = build_world(arm, args)
    chain, goals = world.chain, world.goals
    print(f'{arm.name}: {len(goals)} goals; obstacle sphere r {args.obstacle_radius:g} m at '
          f'{np.round(world.center, 3).tolist()}; straight goal-to-goal joint paths touching '
          f'it: {world.touching_obstacle}, touching anything: {world.touching_anything}',
          flush=True)
    procs = start_arm(arm, world, args, domain, logs)
    probe = Probe(domain, chain.joint_names)
    records, aborted = [], ''
    t_start = time.monotonic()
    try:
        wait_ready(probe, chain, arm.base_link)
        params = probe.node_parameters(['velocity_scale', 'output_rate', 'joint_limits_file',
                                        'acceleration_scale', 'output_mode',
                                        'default_acceleration_limit', 'default_jerk_limit'])
        limits = declared_limits(velocity_limits(arm.urdf, chain.joint_names), params,
                                 chain.joint_names, args.joint_limits)
        line_limits = motion_limits(limits, params, chain.n)
        judge = Judge(args.deadline, args.settle, args.still)
        for k, q_goal in enumerate(goals):
            dead = [p for p in procs if p.poll() is not None]
            if dead:
                aborted = (f'{dead[0].log_path.name} exited ({dead[0].returncode}) before '
                           f'target {k + 1}: see {dead[0].log_path}')
                break
            if args.max_minutes and time.monotonic() - t_start > 60.0 * args.max_minutes:
                aborted = f'time limit {args.max_minutes:g} min reached before target {k + 1}'
                break
            rec = run_target(probe, chain, chain.fk(q_goal), arm.base_link, judge)
            q0, q1 = np.array(rec['q_arm_start']), np.array(rec['q_arm_end'])
            rec.update(index=k, q_goal=q_goal.tolist(),
                       straight_line_s=line_time(q0, q1, line_limits),
                       straight_line_goal_s=line_time(q0, q_goal, line_limits),
                       time_to_reach_s=(None if rec['reach_stamp'] is None
                                        else 1e-9 * (rec['reach_stamp'] - rec['t_pub'])))
            records.append(rec)
            took = time.monotonic() - t_start
            left = took / (k + 1) * (len(goals) - k - 1)
            print(f'{progress_line(arm.name, k, len(goals), rec)}  [{took:.0f} s, about '
                  f'{left:.0f} s left]', flush=True)
        probe.spin_until(lambda: False, 0.3)      # the last commands in flight
    finally:
        stop_processes(procs)
        probe.close()
    if aborted:
        print(f'{arm.name}: {aborted}', flush=True)
    return analyse(arm, chain, world.exact, records, probe, params, limits, {
        'obstacle': {'center': world.center.tolist(), 'radius': args.obstacle_radius},
        'straight_paths_touching_obstacle': int(world.touching_obstacle),
        'straight_paths_touching_anything': int(world.touching_anything),
        'reference_pairs': len(world.pairs), 'domain': domain, 'aborted': aborted,
        'targets_requested': len(goals)}, logs)


def progress_line(arm: str, k: int, n: int, rec: dict) -> str:
    values = rec['answer_values']
    timing = ''.join(f' {key.split("_ms")[0]} {float(values[key]):.1f} ms'
                     for key in ('solve_time_ms', 'goal_search_ms', 'planning_ms')
                     if _float(values, key) is not None)
    if rec['outcome'] == 'reached':
        what = f'{rec["time_to_reach_s"]:.2f} s (line {rec["straight_line_s"]:.2f} s)'
    else:
        what = rec['reason'][:70]
    return f'{arm} {k + 1:3d}/{n} {rec["outcome"]:8s} {what}{timing}'


def analyse(arm: Arm, chain, exact: ExactChecker, records: list, probe: Probe, params: dict,
            limits: dict, world: dict, logs: Path | None = None) -> dict:
    """Add the click-to-motion times and the command-stream figures; return the arm record."""
    cmds = sorted(probe.commands, key=lambda c: c[0])
    t = np.array([c[0] for c in cmds], dtype=np.int64)
    Q = np.array([c[1] for c in cmds]).reshape(-1, chain.n)
    starts = [r['t_pub'] for r in records] + [np.iinfo(np.int64).max]
    for r, t_next in zip(records, starts[1:]):
        r['click_to_motion_s'] = None
        for i in range(int(np.searchsorted(t, r['t_pub'], side='right')), len(t)):
            if t[i] >= t_next:
                break
            if i > 0 and np.max(np.abs(Q[i] - Q[i - 1])) > COMMAND_EPS:
                r['click_to_motion_s'] = 1e-9 * (int(t[i]) - r['t_pub'])
                break
    ts = 1e-9 * (t - t[0]) if len(t) else np.zeros(0)
    period = 1.0 / float(params['output_rate']) if 'output_rate' in params else \
        float(np.median(np.diff(ts))) if len(ts) > 1 else 0.01
    stream = stream_figures(ts, Q, period, limits) if len(t) > 3 else {'commands': len(t)}
    if logs is not None:
        reads = sorted(probe.readings, key=lambda c: c[0])
        np.savez(logs / f'{arm.name}_stream.npz', command_t=t, command_q=Q,
                 reading_t=np.array([c[0] for c in reads], dtype=np.int64),
                 reading_q=np.array([c[1] for c in reads]).reshape(-1, chain.n),
                 target_t=np.array([r['t_pub'] for r in records], dtype=np.int64))
    contacts, distinct = [], 0
    for i in range(len(t)):
        if i > 0 and np.array_equal(Q[i], Q[i - 1]):
            continue
        distinct += 1
        pairs = exact.contacts(Q[i])
        if pairs:
            target = int(np.searchsorted([r['t_pub'] for r in records], t[i], side='right')) - 1
            contacts.append({'stamp': int(t[i]), 'target': target, 'pairs': pairs})
    stream['distinct_commands'] = distinct
    stream['commands_in_contact'] = len(contacts)
    stream['contacts_first'] = contacts[:20]
    stream['targets_with_contact'] = sorted({c['target'] for c in contacts})
    return {'arm': arm.name, 'urdf': arm.urdf, 'base_link': arm.base_link,
            'tip_link': arm.tip_link, 'start': arm.start.tolist(),
            'joint_names': list(chain.joint_names), 'node_parameters': params,
            'limits': {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                       for k, v in limits.items()},
            'world': world, 'stream': stream, 'targets': records,
            'summary': summarise(records, stream)}


def _pct(values: list, q: float) -> Optional[float]:
    values = [v for v in values if v is not None]
    return float(np.percentile(values, q)) if values else None


def summarise(records: list, stream: dict) -> dict:
    n = len(records)
    count = {o: sum(r['outcome'] == o for r in records) for o in ('reached', 'refused',
                                                                  'stopped')}
    reached = [r for r in records if r['outcome'] == 'reached']
    values = [r['answer_values'] for r in records]
    search = [(_float(v, 'goal_search_ms') or 0.0) + (_float(v, 'planning_ms') or 0.0)
              for v in values if _float(v, 'goal_search_ms') is not None
              or _float(v, 'planning_ms') is not None]
    solve = [_float(v, 'solve_time_ms') for v in values]
    held = stream.get('held', {})
    return {
        'targets': n, **{f'{o}_pct': 100.0 * c / n if n else 0.0 for o, c in count.items()},
        **count,
        'stopped_reasons': sorted({r['reason'].split(':')[0] for r in records
                                   if r['outcome'] == 'stopped'}),
        'stopped_without_motion': sum(r['outcome'] == 'stopped' and not r['moved']
                                      for r in records),
        'commands_in_contact': stream.get('commands_in_contact'),
        'distinct_commands': stream.get('distinct_commands'),
        'targets_with_contact': len(stream.get('targets_with_contact', [])),
        'velocity_ratio': held.get('velocity_ratio'),
        'acceleration_ratio': held.get('acceleration_ratio'),
        'jerk_ratio': held.get('jerk_ratio'),
        'max_acceleration': max(held.get('max_acceleration', [math.nan])),
        'max_jerk': max(held.get('max_jerk', [math.nan])),
        'click_to_motion_median_ms': _ms(_pct([r['click_to_motion_s'] for r in records], 50)),
        'click_to_motion_p95_ms': _ms(_pct([r['click_to_motion_s'] for r in records], 95)),
        'time_to_reach_median_s': _pct([r['time_to_reach_s'] for r in reached], 50),
        'straight_line_median_s': _pct([r['straight_line_s'] for r in reached], 50),
        'reach_over_line_median': _pct([r['time_to_reach_s'] / r['straight_line_s']
                                        for r in reached if r['straight_line_s'] > 0], 50),
        'search_plan_median_ms': _pct(search, 50), 'search_plan_p95_ms': _pct(search, 95),
        'solve_time_median_ms': _pct(solve, 50), 'solve_time_p95_ms': _pct(solve, 95),
        'motion_values': _counts(v.get('motion') for v in values),
        'path_values': _counts(v.get('path') for v in values),
    }


def _ms(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else 1e3 * seconds


def _counts(items) -> dict:
    out: dict[str, int] = {}
    for item in items:
        if item is not None:
            out[item] = out.get(item, 0) + 1
    return out


# --- Report --------------------------------------------------------------------------------

def _f(value, fmt: str, none: str = 'n/a') -> str:
    return none if value is None or (isinstance(value, float) and math.isnan(value)) \
        else format(value, fmt)


def markdown_table(arms: list) -> str:
    head = ('| arm | targets | reached | refused | stopped | commands in contact | '
            'max v / a / j (ratio to limits, or raw rad/s^2, rad/s^3) | '
            'click-to-motion median / p95 ms | time to reach median s (straight line s) | '
            'search+plan median / p95 ms |')
    lines = [head, '|' + '---|' * 10]
    for a in arms:
        s = a['summary']
        acc = (f'{_f(s["acceleration_ratio"], ".2f")}x' if s['acceleration_ratio'] is not None
               else f'{_f(s["max_acceleration"], ".0f")} raw')
        jerk = (f'{_f(s["jerk_ratio"], ".2f")}x' if s['jerk_ratio'] is not None
                else f'{_f(s["max_jerk"], ".3g")} raw')
        search = (f'{_f(s["search_plan_median_ms"], ".1f")} / {_f(s["search_plan_p95_ms"], ".1f")}'
                  if s['search_plan_median_ms'] is not None else
                  f'n/a (solve {_f(s["solve_time_median_ms"], ".1f")} / '
                  f'{_f(s["solve_time_p95_ms"], ".1f")})')
        lines.append(
            f'| {a["arm"]} | {s["targets"]} | {s["reached_pct"]:.0f} % | '
            f'{s["refused_pct"]:.0f} % | {s["stopped_pct"]:.0f} % | '
            f'{s["commands_in_contact"]} of {s["distinct_commands"]} '
            f'({s["targets_with_contact"]} targets) | '
            f'{_f(s["velocity_ratio"], ".2f")}x / {acc} / {jerk} | '
            f'{_f(s["click_to_motion_median_ms"], ".0f")} / '
            f'{_f(s["click_to_motion_p95_ms"], ".0f")} | '
            f'{_f(s["time_to_reach_median_s"], ".2f")} '
            f'({_f(s["straight_line_median_s"], ".2f")}) | {search} |')
    return '\n'.join(lines)


def _reason_key(record: dict) -> str:
    if record['reason'].startswith('came to rest'):
        return 'came to rest away from the target'
    return record['reason'].split(':')[0][:90]


def arm_notes(a: dict) -> str:
    """Return the notes under the table for one arm: world, limits, why targets failed."""
    s, w = a['summary'], a['world']
    groups: dict[tuple, list] = {}
    for r in a['targets']:
        if r['outcome'] != 'reached':
            groups.setdefault((r['outcome'], _reason_key(r)), []).append(r)
    lines = [f'**{a["arm"]}** ({a["base_link"]} -> {a["tip_link"]}): obstacle sphere r '
             f'{w["obstacle"]["radius"]:g} m at {np.round(w["obstacle"]["center"], 3).tolist()}; '
             'straight goal-to-goal joint paths touching it '
             f'{w["straight_paths_touching_obstacle"]}, touching anything '
             f'{w["straight_paths_touching_anything"]} of {s["targets"]}; '
             f'limits: {a["limits"]["source"]}; reach / straight line median '
             f'{_f(s["reach_over_line_median"], ".2f")}; '
             f'stopped without any motion {s["stopped_without_motion"]}.']
    if w['aborted']:
        lines.append(f'  {s["targets"]} of {w["targets_requested"]} targets run: {w["aborted"]}.')
    gaps = a['stream'].get('moving_intervals', {})
    if gaps.get('count'):
        lines.append(f'  command intervals while moving: median {gaps["median_ms"]:.1f} ms, '
                     f'p99 {gaps["p99_ms"]:.1f} ms, max {gaps["max_ms"]:.1f} ms; '
                     f'{gaps["longer_than_hold_gap"]} of {gaps["count"]} longer than '
                     f'{HOLD_GAP:g} periods.')
    if s['motion_values'] or s['path_values']:
        lines.append(f'  motion values {s["motion_values"]}, path values {s["path_values"]}.')
    pairs: dict[str, int] = {}
    for c in a['stream']['contacts_first']:
        for pair in c['pairs']:
            pairs[' / '.join(pair)] = pairs.get(' / '.join(pair), 0) + 1
    if pairs:
        lines.append(f'  contacts (first {len(a["stream"]["contacts_first"])} commands in '
                     f'contact): {pairs}.')
    for (outcome, key), group in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        extra = ''
        if key.startswith('came to rest'):
            mm = [1e3 * r['position_error_m'] for r in group]
            extra = (f' (tool {min(mm):.0f}-{max(mm):.0f} mm off the target, median '
                     f'{np.median(mm):.0f} mm)')
        lines.append(f'  - {len(group)} x {outcome}: {key}{extra}')
    return '\n'.join(lines)


def report_text(doc: dict) -> str:
    """Return the markdown report of a run (``doc``: the raw JSON record)."""
    settings = doc['settings']
    return '\n'.join([
        f'# Goal motion benchmark, {doc["date"]}', '',
        f'- commit: {doc["commit"]} ({doc["package"]})',
        f'- command: `{doc["command"]}`',
        f'- machine: {doc["machine"]}; load before: `{doc["uptime_before"]}`; after: '
        f'`{doc["uptime_after"]}`; wall {doc["wall_s"]:.0f} s',
        f'- targets per arm {settings["targets"]}, seed {settings["seed"]}, >= '
        f'{settings["min_distance"]:g} rad apart; reached = 1 mm / 0.01 rad, settled '
        f'{settings["settle"]:g} s; deadline {settings["deadline"]:g} s',
        '', markdown_table(doc['arms']), '', *[arm_notes(a) for a in doc['arms']],
        *doc['errors'], ''])


def new_out_path(stem: str, ext: str, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f'{stem}.{ext}'
    k = 2
    while path.exists() or path.with_suffix('.json').exists():
        path = out_dir / f'{stem}_{k}.{ext}'
        k += 1
    return path


def commit_of(path: Path) -> str:
    """Return the git commit of ``path``'s tree ('+dirty': local changes) and of its code."""
    def git(*a):
        return subprocess.run(['git', '-C', str(path), *a], capture_output=True,
                              text=True).stdout.strip()
    head = git('rev-parse', '--short', 'HEAD') or 'unknown'
    dirty = '+dirty' if git('status', '--porcelain', '--untracked-files=no') else ''
    code = git('log', '-1', '--format=%h', '--', 'ik_node', 'config', 'setup.py')
    return f'{head}{dirty} (last change of ik_node/, config/, setup.py: {code or "unknown"})'


def uptime() -> str:
    return subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--arms', nargs='+', choices=ARMS, default=list(ARMS))
    parser.add_argument('--targets', type=int, default=100, help='targets per arm')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--min-distance', type=float, default=1.0,
                        help='least joint distance [rad] of a goal from the previous one')
    parser.add_argument('--obstacle-radius', type=float, default=0.1, help='[m]')
    parser.add_argument('--deadline', type=float, default=20.0, help='[s] per target')
    parser.add_argument('--max-minutes', type=float, default=0.0,
                        help='stop sending targets to an arm after this long (0: no limit)')
    parser.add_argument('--settle', type=float, default=0.3,
                        help='[s] the arm within tolerance and still this long: reached')
    parser.add_argument('--still', type=float, default=3.0,
                        help='[s] the arm at rest this long after moving, off target: stopped')
    parser.add_argument('--node-param', action='append', default=[],
                        help='more ik_node parameters, NAME:=VALUE (repeatable)')
    parser.add_argument('--joint-limits', default='',
                        help='joint_limits YAML for the ratios when the node names none')
    parser.add_argument('--domain-id', type=int, default=None,
                        help='first ROS domain, one more per arm (default $ROS_DOMAIN_ID)')
    parser.add_argument('--out-dir', default=str(OUT))
    parser.add_argument('--allow-pure-python', action='store_true',
                        help='run even without compiled kernels')
    parser.add_argument('--publish', action='store_true',
                        help='also rewrite the curated page bench/results/goal_motion.md')
    parser.add_argument('--from-json', default='',
                        help='rewrite the markdown report of a run from its JSON, run nothing')
    args = parser.parse_args(argv)
    note_load()
    if args.from_json:
        json_path = Path(args.from_json)
        text = report_text(json.loads(json_path.read_text()))
        print(text)
        json_path.with_suffix('.md').write_text(text)
        return 0
    check_kernels(args)
    from ik_node import _jit
    if _jit.JIT_ENABLED and not _jit.compiled():
        print('compiling the solver kernels first (ik-compile, 1.5-3 minutes)', flush=True)
        subprocess.run(console_script('ik-compile'), check=True)

    out_dir = Path(args.out_dir)
    stem = f'goal_motion_{datetime.date.today().isoformat()}'
    md_path = new_out_path(stem, 'md', out_dir)
    logs = out_dir / 'scratch' / md_path.stem
    logs.mkdir(parents=True, exist_ok=True)
    domain = args.domain_id if args.domain_id is not None else int(
        os.environ.get('ROS_DOMAIN_ID', '43'))
    # This process's own probe node too: DDS discovery stays on this machine.
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    import ik_node
    package = Path(ik_node.__file__).resolve().parent.parent
    command = ' '.join([sys.executable, *(sys.argv if argv is None else [__file__, *argv])])
    header = {'date': datetime.datetime.now().isoformat(timespec='seconds'),
              'commit': commit_of(package), 'package': str(package),
              'command': command, 'uptime_before': uptime(),
              'machine': f'{os.cpu_count()} cores {platform.machine()}',
              'settings': dict(vars(args))}
    t0 = time.monotonic()
    results, errors = [], []
    for i, name in enumerate(args.arms):
        try:
            results.append(run_arm(load_arm(name), args, domain + i, logs))
        except RuntimeError as exc:      # a node that never came up: the next arm still runs
            print(f'{name}: not measured: {exc}', flush=True)
            errors.append(f'{name}: not measured: {exc}')
    header['uptime_after'] = uptime()
    header['wall_s'] = time.monotonic() - t0
    doc = {**header, 'arms': results, 'errors': errors}
    text = report_text(doc)
    print('\n' + text)
    md_path.write_text(text)
    json_path = md_path.with_suffix('.json')
    json_path.write_text(json.dumps(doc, indent=1, default=_json) + '\n')
    print(f'written: {md_path} and {json_path}')
    if args.publish:
        print(f'published: {publish("goal_motion", text, commit=header["commit"])}')
    return 0


def _json(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    raise TypeError(f'not JSON: {type(value).__name__}')


if __name__ == '__main__':
    sys.exit(main())
