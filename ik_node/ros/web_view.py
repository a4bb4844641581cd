# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
``web_view``: the browser view driving a running ik_node node, without RViz.

``ros2 run ik_node web_view`` (or ``python -m ik_node.ros.web_view``) asks the IK node
(parameter ``node_name``, default ``ik_node``, relative to this node's namespace) for its
robot model and topic names through its parameter services, then serves a page that

- draws the arm from ``joint_states`` with the URDF's visual geometry, and each tip's
  measured pose as a frame;
- publishes ``target_pose`` (geometry_msgs/PoseStamped in the base link frame) when the gizmo
  is dragged, and the IK node's ``jog_twist_topic`` (TwistStamped) while a jog button's
  nudge holds (:mod:`ik_node.web.jog_buttons`);
- for a node with ``tip_links`` (a tree of several tips): a gizmo and a target xyz input per
  tip, each publishing on its tip's topic (``tip_target_topics``), and each tip's state
  from the node's per-tip status: reached, refused or stretched
  (:class:`ik_node.web.tip_status.TipStates`); no jog buttons (the node jogs no tree);
- sets the node's solver parameters through its ``set_parameters`` service, so they are
  validated as by ``ros2 param set``; a refusal and its reason are shown on the page;
- shows and plots ``ik_status`` (success, errors, iterations, solve time) and the latency
  from a published target to the status that answers it (matched by stamp).

Parameters of this node: ``node_name``, ``host`` (default 127.0.0.1), ``port`` (8080),
``model_timeout`` [s]. The page is drawn with :mod:`ik_node.web` (viser, no rclpy), from
this node's topics and services.
"""

from collections import deque
from functools import partial
import math
import os
import sys
import tempfile
import threading
import time
from typing import Any, Deque, Dict, List, Optional, Sequence, Tuple, Union

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped, TwistStamped
from ik_node.errors import IKError
from ik_node.ros.jog_keyboard import twist_message
from ik_node.ros.runtime import BackgroundSpinner
from ik_node.ros.tree_setup import tip_topics
from ik_node.solve_ik import methods
from ik_node.web.app import show_error
from ik_node.web.jog_buttons import JogButtons
from ik_node.web.robot import load_robot, RobotModel
from ik_node.web.scene import arm_scene, TipGizmos
from ik_node.web.tip_status import TipStates
from ik_node.web.tree_view import tree_display_cfg
import numpy as np
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import GetParameters, SetParameters
import rclpy
from rclpy.client import Client
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import String
import viser

__all__ = ['WebViewNode', 'RosView', 'main', 'CONTROLLED']

# The IK node's parameters the page sets: (name, kind, label).
CONTROLLED = (
    ('solver', 'method', 'solver'),
    ('position_only', 'bool', 'position only'),
    ('position_tolerance', 'double', 'pos. tolerance [m]'),
    ('orientation_tolerance', 'double', 'orient. tolerance [rad]'),
    ('max_iterations', 'int', 'max iterations'),
    ('max_attempts', 'int', 'max attempts'),
    ('timeout', 'double', 'timeout [s]'),
    ('damping', 'double', 'damping λ₀'),
    ('nullspace_limit_avoidance', 'double', 'limit avoidance'),
    ('nullspace_rest_posture', 'double', 'rest posture'),
    ('nullspace_manipulability', 'double', 'manipulability'),
    ('velocity_scale', 'double', 'velocity scale'),
)
# A page input for one of CONTROLLED: a dropdown (method), a checkbox (bool) or a number.
_ParamInput = Union[viser.GuiDropdownHandle[str], viser.GuiCheckboxHandle,
                    viser.GuiNumberHandle[Any]]
_MODEL = ('robot_description', 'urdf_file', 'base_link', 'tip_link', 'robot_description_topic',
          'target_topic', 'joint_states_topic', 'status_topic', 'jog_twist_topic')
# Empty-list parameters of a tree, unset on a one-chain node: asked one by one (a node answers
# a get_parameters call naming an unset parameter with no values at all).
_TREE = ('tip_links', 'tip_target_topics')


def _value(pv: ParameterValue):
    return {ParameterType.PARAMETER_BOOL: pv.bool_value,
            ParameterType.PARAMETER_INTEGER: pv.integer_value,
            ParameterType.PARAMETER_DOUBLE: pv.double_value,
            ParameterType.PARAMETER_STRING: pv.string_value,
            ParameterType.PARAMETER_STRING_ARRAY: list(pv.string_array_value)}.get(pv.type)


def _xyz(text: str) -> Optional[np.ndarray]:
    """Return the (3,) position of 'x, y, z' (commas or spaces), None unless 3 finite numbers."""
    try:
        xyz = np.array([float(v) for v in text.replace(',', ' ').split()])
    except ValueError:
        return None
    return xyz if xyz.shape == (3,) and np.all(np.isfinite(xyz)) else None


def _parameter(name: str, kind: str, value) -> Parameter:
    pv = ParameterValue()
    if kind == 'bool':
        pv.type, pv.bool_value = ParameterType.PARAMETER_BOOL, bool(value)
    elif kind == 'int':
        pv.type, pv.integer_value = ParameterType.PARAMETER_INTEGER, int(value)
    elif kind == 'double':
        pv.type, pv.double_value = ParameterType.PARAMETER_DOUBLE, float(value)
    else:
        pv.type, pv.string_value = ParameterType.PARAMETER_STRING, str(value)
    return Parameter(name=name, value=pv)


class WebViewNode(Node):
    """The rclpy side: the IK node's parameter services, the topics."""

    def __init__(self, **kwargs):
        """Declare this node's parameters and make the service clients (kwargs: Node's)."""
        super().__init__('web_view', **kwargs)
        self.declare_parameter('node_name', 'ik_node')
        self.declare_parameter('host', '127.0.0.1')
        self.declare_parameter('port', 8080)
        self.declare_parameter('model_timeout', 10.0)
        target = self.get_parameter('node_name').value
        self.get_params_client: Client[GetParameters.Request, GetParameters.Response] = \
            self.create_client(GetParameters, f'{target}/get_parameters')
        self.set_params_client: Client[SetParameters.Request, SetParameters.Response] = \
            self.create_client(SetParameters, f'{target}/set_parameters')

    def call(self, client, request, timeout: float):
        """Call a service from a non-executor thread; return the response or None."""
        if not client.wait_for_service(timeout_sec=timeout):
            return None
        done = threading.Event()
        future = client.call_async(request)
        future.add_done_callback(lambda _: done.set())
        return future.result() if done.wait(timeout) else None

    def get_ik_parameters(self, names: Sequence[str],
                          timeout: float) -> Optional[Dict[str, Any]]:
        """Return {name: value} of the IK node's parameters, None when it does not answer."""
        response = self.call(self.get_params_client, GetParameters.Request(names=list(names)),
                             timeout)
        if response is None:
            return None
        return {n: _value(v) for n, v in zip(names, response.values)}

    def wait_for_topic_text(self, topic: str, timeout: float) -> str:
        """Return the first std_msgs/String on the TRANSIENT_LOCAL ``topic`` ('' on timeout)."""
        got: List[str] = []
        done = threading.Event()

        def take(msg: String) -> None:
            got.append(msg.data)
            done.set()
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        sub = self.create_subscription(String, topic, take, qos)
        done.wait(timeout)
        self.destroy_subscription(sub)
        return got[0] if got else ''


def load_model(node: WebViewNode) -> Tuple[RobotModel, Dict[str, Any]]:
    """Return (RobotModel, topic names) of the IK node; IKError saying what is missing."""
    timeout = float(node.get_parameter('model_timeout').value)
    target = node.get_parameter('node_name').value
    values = node.get_ik_parameters(_MODEL, timeout)
    if values is None:
        raise IKError(f'the IK node {target!r} did not answer on its get_parameters service '
                      f'within {timeout:g} s: is it running (ros2 run ik_node ik_node), in '
                      'this namespace and ROS domain?')
    for name in _TREE:
        values[name] = (node.get_ik_parameters([name], timeout) or {}).get(name) or []
    path = values['urdf_file']
    if values['robot_description'] or not path:
        text = values['robot_description'] or node.wait_for_topic_text(
            values['robot_description_topic'] or 'robot_description', timeout)
        if not text:
            raise IKError(f'the IK node {target!r} has no robot_description or urdf_file '
                          'parameter and nothing came on its robot_description topic')
        folder = tempfile.mkdtemp(prefix='ik_web_')
        path = os.path.join(folder, 'robot_description.urdf')
        with open(path, 'w') as f:
            f.write(text)
    tips = list(values['tip_links'])
    robot = load_robot(path, values['base_link'] or None,
                       None if tips else values['tip_link'] or None, tips)
    return robot, values


class RosView:
    """The page of the ROS mode on a viser server (one chain, or a tree of several tips)."""

    def __init__(self, server: viser.ViserServer, robot: RobotModel, node: WebViewNode,
                 topics: Dict[str, Any]):
        """Build the scene and panel; subscribe and publish through ``node``."""
        self.server, self.robot, self.node = server, robot, node
        chain = self.chain = robot.chain
        self.tips: Tuple[str, ...] = tuple(getattr(chain, 'tip_links', (chain.tip_link,)))
        self.is_tree = len(self.tips) > 1 or bool(topics.get('tip_links'))
        self.q = np.array(chain.mid)
        self._index = {name: i for i, name in enumerate(chain.joint_names)}
        self._sent: Dict[str, float] = {}   # stamp text of a published target: when [s]
        self.latencies: Deque[float] = deque(maxlen=200)   # target -> status [ms], nan: unmatched
        self.statuses: Deque[Dict[str, str]] = deque(maxlen=200)
        self.tip_states = TipStates(self.tips)
        self.arm_updates = 0
        self._dirty = False
        self._lock = threading.Lock()
        self.display, _ = arm_scene(server, robot)
        self.gizmos = TipGizmos(server, self.tips, self._tip_poses(self.q), self._gizmo_moved,
                                scale=0.15 if self.is_tree else 0.25)
        self.gizmo = self.gizmos.gizmos[0]
        self.display.update(self._display_cfg(self.q))
        gui = server.gui
        gui.configure_theme(control_width='large')
        gui.add_markdown(f'**ik_node (ROS)** — node `{node.get_parameter("node_name").value}`'
                         f', `{chain.base_link}` → ' + ', '.join(f'`{t}`' for t in self.tips))
        self.readout = gui.add_markdown('_waiting for ik_status_')
        self.tip_readout = gui.add_markdown(self.tip_states.text(), visible=self.is_tree)
        self.tip_xyz = [self._xyz_input(i) for i in range(len(self.tips))] if self.is_tree \
            else []
        self.arm_state = gui.add_markdown('_waiting for joint_states_')
        self.error = gui.add_markdown('', visible=False)
        self.inputs: Dict[str, _ParamInput] = {}
        self._parameter_panel()
        self.plot = gui.add_uplot(
            (np.zeros(0), np.zeros(0), np.zeros(0)),
            (viser.uplot.Series(label='status'),
             viser.uplot.Series(label='solve time [ms]', stroke='blue'),
             viser.uplot.Series(label='target->status [ms]', stroke='red')),
            title='ik_status', aspect=2.0)
        names = tip_topics(topics) if self.is_tree else [topics['target_topic'] or 'target_pose']
        self.pubs = [node.create_publisher(PoseStamped, name, 10) for name in names]
        self.pub = self.pubs[0]
        node.create_subscription(JointState, topics['joint_states_topic'] or 'joint_states',
                                 self._joint_states, 10)
        node.create_subscription(DiagnosticArray, topics['status_topic'] or 'ik_status',
                                 self._status, 10)
        self.jog_buttons: Optional[JogButtons] = None
        if not self.is_tree:      # the node jogs one tool frame, never a tree
            self.jog_pub = node.create_publisher(
                TwistStamped, topics.get('jog_twist_topic') or 'jog_twist', 10)
            self.jog_buttons = JogButtons(gui, (chain.base_link, chain.tip_link),
                                          self.send_jog)
        self._timer = node.create_timer(1.0 / 30.0, self._draw)

    def close(self) -> None:
        """Stop the jog buttons' thread (the ROS side is the node's owner's to stop)."""
        if self.jog_buttons is not None:
            self.jog_buttons.close()

    def _tip_poses(self, q: np.ndarray) -> np.ndarray:
        """Return the (t, 4, 4) tip poses at q (one for a chain)."""
        T = self.chain.fk(q)
        return T if T.ndim == 3 else T[None]

    def _display_cfg(self, q: np.ndarray) -> np.ndarray:
        return tree_display_cfg(self.robot, q) if self.is_tree else self.robot.display_cfg(q)

    def _xyz_input(self, tip: int) -> viser.GuiTextHandle:
        """
        Return tip ``tip``'s target input, 'x, y, z' [m] in the base frame, one field.

        One field, so that a typed position is one target (three fields would send a target
        per coordinate, the torso moving for each). The gizmo's orientation is kept.
        """
        h = self.server.gui.add_text(f'{self.tips[tip]} target xyz [m]', '',
                                     hint='x, y, z in the base frame; Enter sends it')

        def typed(event: viser.GuiEvent[Any]) -> None:
            if event.client is None:
                return
            xyz = _xyz(h.value)
            if xyz is None:
                self.error.content = (f'**Refused: {self.tips[tip]} target xyz '
                                      f'{h.value!r}: give three finite numbers x, y, z [m]**')
                self.error.visible = True
                return
            self.error.visible = False
            T = self.gizmos.pose(tip)
            T[:3, 3] = xyz
            self.set_target(tip, T)
        h.on_update(typed)
        return h

    def _parameter_panel(self) -> None:
        gui = self.server.gui
        with gui.add_folder('Node parameters'):
            current = self.node.get_ik_parameters([c[0] for c in CONTROLLED], 5.0) or {}
            for name, kind, label in CONTROLLED:
                v = current.get(name)
                h: _ParamInput
                if kind == 'method':
                    h = gui.add_dropdown(label, list(methods()), initial_value=v or 'dls')
                elif kind == 'bool':
                    h = gui.add_checkbox(label, bool(v))
                else:
                    h = gui.add_number(label, v if v is not None else 0,
                                       step=1 if kind == 'int' else 1e-4)
                h.on_update(partial(self._param_changed, name, kind))
                self.inputs[name] = h

    def send_jog(self, twist: Optional[np.ndarray], frame: str, now: float) -> bool:
        """Publish a jog button's twist (the IK node's jog_timeout stops the arm after)."""
        if twist is not None:
            self.jog_pub.publish(twist_message(twist, frame,
                                               self.node.get_clock().now().to_msg()))
        return False

    def _gizmo_moved(self, tip: int, T: np.ndarray) -> None:
        self.publish_target(T[:3, 3], self.gizmos.gizmos[tip].wxyz, tip)

    def set_target(self, tip: int, T: np.ndarray) -> str:
        """Move tip ``tip``'s gizmo to T (4, 4, base frame) and publish it; return its stamp."""
        self.gizmos.place(tip, T)
        return self.publish_target(T[:3, 3], self.gizmos.gizmos[tip].wxyz, tip)

    def publish_target(self, position, wxyz, tip: int = 0) -> str:
        """Publish a PoseStamped target in the base frame on tip ``tip``'s topic; its stamp."""
        msg = PoseStamped()
        msg.header.frame_id = self.chain.base_link
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = map(float, position)
        w, x, y, z = map(float, wxyz)
        msg.pose.orientation.x, msg.pose.orientation.y = x, y
        msg.pose.orientation.z, msg.pose.orientation.w = z, w
        stamp = f'{msg.header.stamp.sec}.{msg.header.stamp.nanosec:09d}'
        with self._lock:
            self._sent[stamp] = time.perf_counter()
            if len(self._sent) > 1000:
                self._sent.pop(next(iter(self._sent)))
            self.tip_states.sent(stamp, tip)
        self.pubs[tip].publish(msg)
        return stamp

    def set_parameter(self, name: str, kind: str, value) -> Optional[str]:
        """Set one IK node parameter; return the refusal reason, or None when accepted."""
        request = SetParameters.Request(parameters=[_parameter(name, kind, value)])
        response = self.node.call(self.node.set_params_client, request, 5.0)
        reason: Optional[str]
        if response is None:
            reason = 'the IK node did not answer the set_parameters call'
        else:
            result = response.results[0]
            reason = None if result.successful else (result.reason or 'refused')
        if reason is None:
            self.error.visible = False
        else:
            self.error.content = f'**Refused: {name} = {value!r}: {reason}**'
            self.error.visible = True
        return reason

    def _param_changed(self, name: str, kind: str, event: viser.GuiEvent[Any]) -> None:
        if event.client is not None:
            value = event.target.value
            if kind == 'int' and float(value).is_integer():
                value = int(value)
            self.set_parameter(name, 'string' if kind == 'method' else kind, value)

    def _joint_states(self, msg: JointState) -> None:
        with self._lock:
            for name, pos in zip(msg.name, msg.position):
                i = self._index.get(name)
                if i is not None and math.isfinite(pos):
                    self.q[i] = pos
            self._dirty = True

    def _draw(self) -> None:
        with self._lock:
            if not self._dirty:
                return
            self._dirty = False
            q = self.q.copy()
        T = self._tip_poses(q)
        with self.server.atomic():
            self.display.update(self._display_cfg(q))
            self.gizmos.show_reached(T)   # where the measured arm is
            if self.arm_updates == 0:
                # The gizmos start at the measured tips, where a target changes nothing.
                for i in range(len(self.tips)):
                    self.gizmos.place(i, T[i])
                for i, h in enumerate(self.tip_xyz):
                    text = ', '.join(f'{v:.4f}' for v in T[i][:3, 3])
                    # viser defines the value setter apart from its getter (mypy: read-only)
                    h.value = text  # type: ignore[misc]
        self.arm_updates += 1
        self.arm_state.content = 'joints ' + ', '.join(f'{v:.3f}' for v in q)

    def _status(self, msg: DiagnosticArray) -> None:
        now = time.perf_counter()
        for st in msg.status:
            if st.name.endswith(': state'):     # the node's periodic state, not an answer
                continue
            kv = {v.key: v.value for v in st.values}
            with self._lock:
                changed = self.tip_states.answer(st.level == DiagnosticStatus.ERROR,
                                                 st.message, kv)
            if self.is_tree:
                self.tip_readout.content = self.tip_states.text()
            if 'solve_time_ms' not in kv:
                self.readout.content = f'**{st.message}**'
                continue
            with self._lock:
                sent = self._sent.pop(kv.get('target_stamp', ''), None)
            latency = (now - sent) * 1e3 if sent is not None else math.nan
            self.statuses.append(kv)
            self.latencies.append(latency)
            ok = kv.get('success') == 'True'
            self.readout.content = (
                f'**{"SOLVED" if ok else "NOT REACHABLE"}**'
                + (f' (`{changed}`)' if changed and self.is_tree else '')
                + f': {st.message}  \n'
                f'solver `{kv.get("solver")}` · {kv.get("iterations")} iterations · '
                f'position error {float(kv.get("position_error", "nan")) * 1e3:.3f} mm  \n'
                f'solve {kv.get("solve_time_ms")} ms · target → status '
                + (f'{latency:.1f} ms' if math.isfinite(latency) else '—'))
            x = np.arange(len(self.statuses), dtype=float)
            self.plot.data = (x, np.array([float(s['solve_time_ms']) for s in self.statuses]),
                              np.array(self.latencies))


def main(argv: Optional[List[str]] = None) -> int:
    """Run the ROS web view until Ctrl-C."""
    rclpy.init(args=argv)
    node = WebViewNode()
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinner = BackgroundSpinner(executor)
    host = node.get_parameter('host').value
    server = viser.ViserServer(host=host, port=int(node.get_parameter('port').value),
                               label='ik_node', verbose=False)
    code = 0
    try:
        robot, topics = load_model(node)
        RosView(server, robot, node, topics)
        node.get_logger().info(f'web view at http://{host}:{server.get_port()}')
    except IKError as exc:
        node.get_logger().error(str(exc))
        show_error(server, 'Could not load the robot from the IK node', str(exc))
        print(f'web_view: error: {exc}', file=sys.stderr)
        code = 2
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        # The ROS side first: its timer draws on the server until the executor stops.
        spinner.stop()
        node.destroy_node()
        rclpy.try_shutdown()
        server.stop()
    return code


if __name__ == '__main__':
    sys.exit(main())
