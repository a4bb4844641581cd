# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""What the web view's ROS-mode tests share: the arm's processes and a RosView on a server."""

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from ros_harness import fresh_domain, Procs
from web_helpers import free_port

URDF = Path(__file__).resolve().parent.parent / 'config' / 'urdf' / 'demo_arm.urdf'
Q0 = [0.0, -1.2, 1.3, -1.6, -1.57, 0.0]
# The torso with two arms of the tree tests: the node drives both hands (tip_links).
TREE_URDF = Path(__file__).resolve().parent / 'urdf' / 'torso_two_arms.urdf'
TIPS = ['left_hand', 'right_hand']
TIP_TOPICS = ['left_target', 'right_target']
# torso lift, yaw; left shoulder yaw, pitch, elbow, wrist; the same on the right.
TREE_Q0 = [0.1, 0.0, 0.3, 0.5, -0.8, 0.2, -0.3, 0.5, -0.8, -0.2]


@contextmanager
def ros_world(tmp_path: Path) -> Iterator[tuple[int, Procs]]:
    """
    Yield (domain, procs): sim_arm at Q0 and ik_node in a fresh domain of this run.

    ik_node runs in the URDF's folder with a relative urdf_file, so the view (in the test's
    folder) reads the model through the absolute path the node makes of it.
    """
    domain = fresh_domain()
    procs = Procs(domain, tmp_path)
    try:
        procs.start('sim_arm', f'urdf_file:={URDF}',
                    'initial_positions:=[' + ','.join(map(str, Q0)) + ']')
        procs.start('ik_node', f'urdf_file:={URDF.name}', cwd=URDF.parent)
        yield domain, procs
    finally:
        procs.close()


@contextmanager
def ros_tree_world(tmp_path: Path, *params: str) -> Iterator[tuple[int, Procs]]:
    """Yield (domain, procs): sim_arm at TREE_Q0 and ik_node driving TIPS on TIP_TOPICS."""
    from ik_node.tree import TreeChain
    names = list(TreeChain.from_urdf(TREE_URDF, 'base_link', TIPS).joint_names)
    domain = fresh_domain()
    procs = Procs(domain, tmp_path)
    try:
        procs.start('sim_arm', f'urdf_file:={TREE_URDF}', f'initial_joint_names:={names}',
                    'initial_positions:=[' + ','.join(map(str, TREE_Q0)) + ']')
        procs.start('ik_node', f'urdf_file:={TREE_URDF}', f'tip_links:={TIPS}',
                    f'tip_target_topics:={TIP_TOPICS}', 'avoid_collisions:=false',
                    # a goal search that a loaded machine does not cut short (as the tree
                    # node tests)
                    'goal_search_timeout:=0.5', *params)
        yield domain, procs
    finally:
        procs.close()


@contextmanager
def ros_view(domain: int) -> Iterator[tuple[Any, Any, dict]]:
    """
    Yield (view, robot, topics): a RosView of the node's model on a local viser server.

    Its WebViewNode spins in a thread of its own; everything is closed afterwards, the ROS
    side first (its timer draws on the server until the executor stops).
    """
    import rclpy
    import viser
    from ik_node.ros.runtime import BackgroundSpinner
    from ik_node.ros.web_view import load_model, RosView, WebViewNode
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    ctx = Context()
    rclpy.init(context=ctx, domain_id=domain)
    node = WebViewNode(context=ctx, parameter_overrides=[
        rclpy.parameter.Parameter('model_timeout', value=30.0)])
    executor = SingleThreadedExecutor(context=ctx)
    executor.add_node(node)
    spinner = BackgroundSpinner(executor)
    server = viser.ViserServer(host='127.0.0.1', port=free_port(), verbose=False)
    view = None
    try:
        robot, topics = load_model(node)
        view = RosView(server, robot, node, topics)
        yield view, robot, topics
    finally:
        if view is not None:
            view.close()
        spinner.stop()
        node.destroy_node()
        rclpy.try_shutdown(context=ctx)
        server.stop()
