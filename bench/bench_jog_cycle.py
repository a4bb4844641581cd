# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
Where a jog cycle's CPU goes in the node (issue 30): its callbacks timed one by one.

An ``IKNode`` in this process, on the demo arm at ``--rate`` (the output rate), is handed each
period what its control loop would take: a joint_states reading (as CDR bytes, the arm where
the last command put it: an arm that follows at once), a jog twist (a sweep in the base
frame), then the command timer's tick, which steps the jog and publishes the command (to a
subscription of the same node, which it never takes). The thread CPU time of each callback
is read around it (``time.thread_time_ns``); no DDS wait and no other process, so the sum is
the node's own work per cycle without the middleware's (which ``bench_jog_ros.py --floor``
measures). Reported: median and p95 per callback over the last
three quarters of the run, and the sum of the medians. ``--profile FILE`` writes a cProfile
of the callbacks (its own overhead inflates them about 2x; read it for call counts and
shares). Raw results: bench/out/jog_cycle_<date>_<machine>.json. Usage::

    .venv-bench/bin/python bench/bench_jog_cycle.py [--seconds 5] [--rate 1000]
"""

import argparse
import cProfile
import json
import math
import os
import sys
import time

from common import (git_state, load_text, machine_description, new_result_path, note_load,
                    ros_domain)
import numpy as np

CALLBACKS = ('reading', 'twist', 'tick')


def run(seconds: float, rate: float, profile: str | None) -> dict:
    """Run the node's cycle for ``seconds`` at ``rate``; return the CPU [us] per callback."""
    import rclpy
    from rclpy.context import Context
    from rclpy.parameter import Parameter
    from rclpy.serialization import serialize_message
    from geometry_msgs.msg import TwistStamped
    from ik_node import share_path
    from ik_node.ros import node as node_module
    from sensor_msgs.msg import JointState

    ctx = Context()
    rclpy.init(context=ctx, domain_id=ros_domain())
    node = node_module.IKNode(context=ctx, parameter_overrides=[
        Parameter('robot_description', value=share_path().read_text()),
        Parameter('output_rate', value=float(rate))])
    try:
        subs = {s.topic_name.rsplit('/', 1)[-1]: s for s in node.subscriptions}
        # Someone listens to the commands (the node steps no jog nobody hears).
        node.create_subscription(JointState, 'joint_commands', lambda msg: None, 10)
        reading, twist, timer = subs['joint_states'], subs['jog_twist'], node._timer
        tracker = node._state.tracker
        js = JointState(name=list(tracker.names))
        tw = TwistStamped()
        tw.header.frame_id = tracker.chain.base_link
        q = [float(v) for v in tracker.chain.mid]
        cpu: dict = {name: [] for name in CALLBACKS}
        prof = cProfile.Profile() if profile else None
        period = 1.0 / rate
        t0 = time.monotonic()
        k = 0
        while time.monotonic() - t0 < seconds:
            k += 1
            stamp = node.get_clock().now().to_msg()
            js.header.stamp = tw.header.stamp = stamp
            js.position = q
            s = 0.05 * math.sin(2.0 * math.pi * 0.25 * (time.monotonic() - t0))
            tw.twist.linear.x, tw.twist.linear.y, tw.twist.angular.z = 0.05, s, 0.1
            calls = ((reading, serialize_message(js)), (twist, serialize_message(tw)),
                     (timer, None))
            if prof is not None and k == int(rate):
                prof.enable()       # after a second: the jog started, the kernels loaded
            for name, (entity, data) in zip(CALLBACKS, calls):
                start = time.thread_time_ns()
                entity.callback() if data is None else entity.callback(data)
                cpu[name].append(time.thread_time_ns() - start)
            tracker = node._state.tracker       # (the node may install another one)
            if tracker._q_cmd is not None:
                q = [float(v) for v in tracker._q_cmd]      # an arm that follows at once
            wait = t0 + k * period - time.monotonic()
            if wait > 0.0:
                time.sleep(wait)
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
    finally:
        node.destroy_node()
        rclpy.shutdown(context=ctx)
    skip = k // 4
    out = {}
    for name, values in cpu.items():
        us = np.array(values[skip:]) * 1e-3
        out[name] = {'median': float(np.median(us)), 'p95': float(np.percentile(us, 95))}
    out['sum_of_medians'] = sum(out[name]['median'] for name in CALLBACKS)
    out['cycles'] = k - skip
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=5.0)
    parser.add_argument('--rate', type=float, default=1000.0, help='output rate [Hz]')
    parser.add_argument('--profile', help='write a cProfile of the callbacks to this file')
    args = parser.parse_args(argv)
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    note_load()
    figures = run(args.seconds, args.rate, args.profile)
    for name in CALLBACKS:
        f = figures[name]
        print(f"{name}: median {f['median']:.1f} us, p95 {f['p95']:.1f} us")
    print(f"sum of the medians: {figures['sum_of_medians']:.1f} us per cycle "
          f"({figures['cycles']} cycles at {args.rate:g} Hz; {load_text()})")
    path = new_result_path('jog_cycle', 'json')
    path.write_text(json.dumps({'machine': machine_description(), 'commit': git_state(),
                                'load': load_text(),
                                'settings': vars(args), 'figures': figures}, indent=1))
    print(f'raw results: {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
