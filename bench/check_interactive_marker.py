# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Drag ik_node's interactive marker as rviz2 does, through the upstream interactive_markers server.

Optional: needs the upstream Python package's source (not installable from the ROS wheels),
for instance the ``interactive_markers`` folder of github.com/ros-visualization/
interactive_markers (branch ``rolling``), kept outside this repository. The node runs with that
folder's parent on its PYTHONPATH, so it offers the marker through the upstream server; this
process sends the feedback rviz2 sends (``ik_node.ros.rviz_feedback``: POSE_UPDATE stream, then
POSE_UPDATE and MOUSE_UP back to back) and checks, trial by trial, that the arm's commands end
at the released pose (1 mm, 0.01 rad). A lost release leaves the arm at the last frame's pose,
1 cm or more short.

    <venv>/bin/python bench/check_interactive_marker.py --server-path DIR [--trials 20]

DIR (a placeholder: yours) holds ``interactive_markers/__init__.py``. ``--depth N`` runs the
upstream server with an N-deep feedback queue instead of the node's (1 is the upstream
default), and ``--ignore-mouse-up`` makes the node skip MOUSE_UP: together they show what the
check catches. Results go to a new file ``<out-dir>/interactive_marker_<date>_<machine>.md``;
node logs to ``<out-dir>/scratch/``. Exit code 0 when no release was lost.
"""

import argparse
import os
from pathlib import Path
import sys
import time

from common import (add_common_arguments, check_kernels, new_result_path, publish, ros_domain,
                    scratch_dir)
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / 'config' / 'urdf' / 'demo_arm.urdf'
Q0 = [0.0, -1.5708, 1.5708, -1.5708, -1.5708, 0.0]

# Run inside the node process (python -c) for --depth / --ignore-mouse-up: the node's module
# with one of its two defences changed, nothing else.
_PATCHED_NODE = """
import sys
from rclpy.qos import QoSProfile
import interactive_markers
import ik_node.ros.interactive as im
depth, ignore_mouse_up = int(sys.argv[1]), sys.argv[2] == '1'
Server = interactive_markers.InteractiveMarkerServer
if depth > 0:
    im_server = lambda node, name, **kw: Server(node, name,
                                                 feedback_sub_qos=QoSProfile(depth=depth))
    interactive_markers.InteractiveMarkerServer = im_server
if ignore_mouse_up:
    from visualization_msgs.msg import InteractiveMarkerFeedback as F
    feedback = im.MarkerTarget._feedback
    im.MarkerTarget._feedback = lambda self, fb: (None if fb.event_type == F.MOUSE_UP
                                                  else feedback(self, fb))
from ik_node.ros.node import main
sys.argv = sys.argv[:1] + sys.argv[3:]
sys.exit(main())
"""


def run(args: argparse.Namespace) -> int:
    """Run the trials; return the exit code."""
    server_path = Path(args.server_path).resolve()
    init = server_path / 'interactive_markers' / '__init__.py'
    if not init.is_file():
        sys.exit(f'{init} not found: --server-path must be the folder that holds the '
                 'interactive_markers package (see --help)')
    check_kernels(args)
    scratch = scratch_dir('interactive_marker', args.out_dir)
    from ik_node.ros.processes import ros_environment, start_node, stop_processes
    domain = ros_domain()
    env = ros_environment(domain, ros_home=scratch)
    env['PYTHONPATH'] = os.pathsep.join([str(server_path), env.get('PYTHONPATH', '')])
    os.environ.update({k: env[k] for k in ('ROS_AUTOMATIC_DISCOVERY_RANGE', 'ROS_DOMAIN_ID',
                                           'ROS_HOME')})
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState

    from ik_node import Chain, pose_error
    from ik_node.ros.conversions import matrix_to_pose, pose_to_matrix
    from ik_node.ros.interactive import MARKER_NAME
    from ik_node.ros.rviz_feedback import RvizMarkerClient

    chain = Chain.from_urdf(URDF, 'base_link', 'tool0')
    node_params = [f'urdf_file:={URDF}', 'interactive_marker:=true']
    procs = [start_node('sim_arm', [f'urdf_file:={URDF}', f'initial_positions:={Q0}',
                                    'follow:=instant'], env, scratch / 'sim_arm.log')]
    if args.depth or args.ignore_mouse_up:
        import subprocess
        cmd = [sys.executable, '-c', _PATCHED_NODE, str(args.depth),
               '1' if args.ignore_mouse_up else '0', '--ros-args']
        for p in node_params:
            cmd += ['-p', p]
        with open(scratch / 'ik_node.log', 'w') as log:
            procs.append(subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT))
    else:
        procs.append(start_node('ik_node', node_params, env, scratch / 'ik_node.log'))
    rclpy.init()
    node = rclpy.create_node('rviz_stand_in')
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    commands: list = []
    node.create_subscription(JointState, 'joint_commands', commands.append, 1000)
    client = RvizMarkerClient(node, '/ik_node_target')

    def spin_until(predicate, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end and not predicate():
            executor.spin_once(timeout_sec=0.005)
        return bool(predicate())

    def spin_for(seconds: float) -> None:
        spin_until(lambda: False, seconds)

    def commanded_pose() -> np.ndarray | None:
        if not commands:
            return None
        msg = max(commands, key=lambda m: (m.header.stamp.sec, m.header.stamp.nanosec))
        q = dict(zip(msg.name, msg.position))
        return chain.fk([q[n] for n in chain.joint_names])

    rows, lost = [], 0
    try:
        print(f'check_interactive_marker: server from {init}, ROS_DOMAIN_ID={domain}; '
              'waiting for ik_node to offer its marker (up to 3 min) ...', flush=True)
        if not spin_until(lambda: client.connected() and client.markers(MARKER_NAME), 180.0):
            print(f'no marker offered; logs in {scratch}')
            return 1
        log = (scratch / 'ik_node.log').read_text()
        offered = next((ln for ln in log.splitlines() if 'interactive marker' in ln), '')
        print(f'  {offered}')
        # The node refuses targets until it has the arm's position: wait for an answer.
        from geometry_msgs.msg import PoseStamped
        target = node.create_publisher(PoseStamped, 'target_pose', 10)
        home = PoseStamped(pose=matrix_to_pose(chain.fk(np.array(Q0))))
        home.header.frame_id = 'base_link'
        end = time.monotonic() + 60.0
        while not commands and time.monotonic() < end:
            target.publish(home)
            spin_for(0.2)
        # The upstream server drops feedback from a client other than the last one for 1 s
        # after the marker's creation or last feedback (two users dragging one marker):
        # rviz2's first drag comes later than that, so does this one.
        spin_for(1.5)
        rng = np.random.default_rng(2026)
        T_home = chain.fk(np.array(Q0))
        T_prev = pose_to_matrix(client.markers(MARKER_NAME)[-1].pose)
        for trial in range(args.trials):
            T_goal = T_home.copy()
            T_goal[:3, 3] += rng.uniform(-0.08, 0.08, 3)
            # The frames before the release end 1 cm short of the released pose, which only
            # the release carries (mouse moved and released between two frames).
            step = T_goal[:3, 3] - T_prev[:3, 3]
            end = T_goal[:3, 3] - 0.01 * step / np.linalg.norm(step)
            poses = []
            for s in np.linspace(0.0, 1.0, args.frames - 1):
                T = T_goal.copy()
                T[:3, 3] = (1.0 - s) * T_prev[:3, 3] + s * end
                poses.append(matrix_to_pose(T))
            poses.append(matrix_to_pose(T_goal))
            short = np.linalg.norm(pose_to_matrix(poses[-2])[:3, 3] - T_goal[:3, 3])
            t0 = time.monotonic()
            client.drag(MARKER_NAME, 'base_link', poses, spin_for)

            def there() -> bool:
                T = commanded_pose()
                return T is not None and all(
                    e < tol for e, tol in zip(pose_error(T_goal, T), (1e-3, 1e-2)))

            ok = spin_until(there, args.settle)
            T_end = commanded_pose()
            miss = pose_error(T_goal, T_end)[0] if T_end is not None else float('nan')
            lost += not ok
            rows.append((trial + 1, 1e3 * short, 'kept' if ok else 'LOST', 1e3 * miss,
                         time.monotonic() - t0))
            print(f'  trial {trial + 1:2d}: last frame {1e3 * short:4.1f} mm short of the '
                  f'release; {"kept" if ok else "LOST"} (arm command {1e3 * miss:.2f} mm '
                  f'from the released pose)', flush=True)
            T_prev = T_goal
    finally:
        stop_processes(procs)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    variant = ('as shipped (node: deep feedback queue, MOUSE_UP is a target)'
               if not (args.depth or args.ignore_mouse_up) else
               f'control: feedback depth {args.depth or "node default"}, '
               f'MOUSE_UP {"ignored" if args.ignore_mouse_up else "used"}')
    out = new_result_path('interactive_marker', 'md', args.out_dir)
    lines = [f'# Interactive marker releases through the upstream server ({variant})', '',
             f'Server: `{init}`' + (f' (commit {(server_path / "COMMIT").read_text().strip()})'
                                    if (server_path / 'COMMIT').is_file() else ''),
             f'Command: `{" ".join([Path(sys.argv[0]).name] + sys.argv[1:])}`', '',
             f'**{lost} of {len(rows)} releases lost.**', '',
             '| trial | last frame short of release [mm] | release | final command error [mm] '
             '| time [s] |', '|---|---|---|---|---|']
    lines += [f'| {r[0]} | {r[1]:.1f} | {r[2]} | {r[3]:.3f} | {r[4]:.2f} |' for r in rows]
    out.write_text('\n'.join(lines) + '\n')
    print(f'{lost} of {len(rows)} releases lost; results in {out}')
    if args.publish:
        print(f"published: {publish('interactive_marker', out.read_text())}")
    return 0 if lost == 0 and rows else 1


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the check."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split('\n\n', 1)[1])
    parser.add_argument('--server-path', required=True, metavar='DIR',
                        help='folder holding the upstream interactive_markers package')
    parser.add_argument('--trials', type=int, default=20, help='drags (default 20)')
    parser.add_argument('--frames', type=int, default=12,
                        help='feedback frames per drag at 60 Hz (default 12)')
    parser.add_argument('--settle', type=float, default=10.0,
                        help='seconds the arm gets to reach a released pose (default 10)')
    parser.add_argument('--depth', type=int, default=0,
                        help="control: the server's feedback queue depth (0: the node's own)")
    parser.add_argument('--ignore-mouse-up', action='store_true',
                        help='control: the node ignores MOUSE_UP')
    add_common_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == '__main__':
    sys.exit(main())
