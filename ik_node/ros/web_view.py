# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
``web_view``: the browser view driving a running ik_node node, without RViz.

``ros2 run ik_node web_view`` (or ``python -m ik_node.ros.web_view``) asks the IK node
(parameter ``node_name``, default ``ik_node``, relative to this node's namespace) for its
robot model and topic names through its parameter services, then serves a page that

- draws the arm from ``joint_states`` with the URDF's visual geometry;
- publishes ``target_pose`` (geometry_msgs/PoseStamped in the base link frame) when the gizmo
  is dragged, and the IK node's ``jog_twist_topic`` (TwistStamped) while a jog button's
  nudge holds (:mod:`ik_node.web.jog_buttons`);
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

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PoseStamped, TwistStamped
from ik_node.errors import IKError
from ik_node.ros.jog_keyboard import twist_message
from ik_node.ros.runtime import BackgroundSpinner
from ik_node.solve_ik import methods
from ik_node.web.app import show_error
from ik_node.web.arm_display import ArmDisplay
from ik_node.web.jog_buttons import JogButtons
from ik_node.web.robot import load_robot, RobotModel
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
import viser.transforms as vtf

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


def _value(pv: ParameterValue):
    return {ParameterType.PARAMETER_BOOL: pv.bool_value,
            ParameterType.PARAMETER_INTEGER: pv.integer_value,
            ParameterType.PARAMETER_DOUBLE: pv.double_value,
            ParameterType.PARAMETER_STRING: pv.string_value}.get(pv.type)


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
    robot = load_robot(path, values['base_link'] or None, values['tip_link'] or None)
    return robot, values


class RosView:
    """The page of the ROS mode on a viser server."""

    def __init__(self, server: viser.ViserServer, robot: RobotModel, node: WebViewNode,
                 topics: Dict[str, Any]):
        """Build the scene and panel; subscribe and publish through ``node``."""
        self.server, self.robot, self.node = server, robot, node
        chain = self.chain = robot.chain
        self.q = np.array(chain.mid)
        self._index = {name: i for i, name in enumerate(chain.joint_names)}
        self._sent: Dict[str, float] = {}   # stamp text of a published target: when [s]
        self.latencies: Deque[float] = deque(maxlen=200)   # target -> status [ms], nan: unmatched
        self.statuses: Deque[Dict[str, str]] = deque(maxlen=200)
        self.arm_updates = 0
        self._dirty = False
        self._lock = threading.Lock()
        server.scene.add_grid('/grid', width=2.0, height=2.0, cell_size=0.1, section_size=0.5)
        self.display = ArmDisplay(server, robot)
        T_base = robot.urdf.get_transform(chain.base_link, robot.urdf.base_link)
        server.scene.add_frame('/base', show_axes=False, position=T_base[:3, 3],
                               wxyz=vtf.SO3.from_matrix(T_base[:3, :3]).wxyz)
        T_tip = chain.fk(self.q)
        self.gizmo = server.scene.add_transform_controls('/base/target', scale=0.25,
                                                         position=T_tip[:3, 3])
        self.display.update(robot.display_cfg(self.q))
        gui = server.gui
        gui.configure_theme(control_width='large')
        gui.add_markdown(f'**ik_node (ROS)** — node `{node.get_parameter("node_name").value}`'
                         f', `{chain.base_link}` → `{chain.tip_link}`')
        self.readout = gui.add_markdown('_waiting for ik_status_')
        self.arm_state = gui.add_markdown('_waiting for joint_states_')
        self.error = gui.add_markdown('', visible=False)
        self.inputs: Dict[str, _ParamInput] = {}
        with gui.add_folder('Node parameters'):
            current = node.get_ik_parameters([c[0] for c in CONTROLLED], 5.0) or {}
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
        self.plot = gui.add_uplot(
            (np.zeros(0), np.zeros(0), np.zeros(0)),
            (viser.uplot.Series(label='status'),
             viser.uplot.Series(label='solve time [ms]', stroke='blue'),
             viser.uplot.Series(label='target->status [ms]', stroke='red')),
            title='ik_status', aspect=2.0)
        self.pub = node.create_publisher(PoseStamped, topics['target_topic'] or 'target_pose',
                                         10)
        node.create_subscription(JointState, topics['joint_states_topic'] or 'joint_states',
                                 self._joint_states, 10)
        node.create_subscription(DiagnosticArray, topics['status_topic'] or 'ik_status',
                                 self._status, 10)
        self.jog_pub = node.create_publisher(TwistStamped,
                                             topics.get('jog_twist_topic') or 'jog_twist', 10)
        self.jog_buttons = JogButtons(gui, (chain.base_link, chain.tip_link), self.send_jog)
        self.gizmo.on_update(self._gizmo_moved)
        self._timer = node.create_timer(1.0 / 30.0, self._draw)

    def send_jog(self, twist: Optional[np.ndarray], frame: str, now: float) -> bool:
        """Publish a jog button's twist (the IK node's jog_timeout stops the arm after)."""
        if twist is not None:
            self.jog_pub.publish(twist_message(twist, frame,
                                               self.node.get_clock().now().to_msg()))
        return False

    def _gizmo_moved(self, _event: viser.TransformControlsEvent) -> None:
        self.publish_target(self.gizmo.position, self.gizmo.wxyz)

    def publish_target(self, position, wxyz) -> str:
        """Publish a PoseStamped target in the base frame; return its stamp text."""
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
        self.pub.publish(msg)
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
        self.display.update(self.robot.display_cfg(q))
        self.arm_updates += 1
        self.arm_state.content = 'joints ' + ', '.join(f'{v:.3f}' for v in q)

    def _status(self, msg: DiagnosticArray) -> None:
        now = time.perf_counter()
        for st in msg.status:
            if st.name.endswith(': state'):     # the node's periodic state, not an answer
                continue
            kv = {v.key: v.value for v in st.values}
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
                f'**{"SOLVED" if ok else "NOT REACHABLE"}**: {st.message}  \n'
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
