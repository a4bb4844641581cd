# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The node runtime: a frozen heap, and a spinning node's end.

A heap frozen after start-up is never walked by the garbage collector; a spinning node ends
when rclpy is shut down however the shutdown comes.
"""

import subprocess
import sys
import textwrap

from ros_harness import fresh_domain, node_environment


def test_freeze_heap_takes_the_start_up_objects_out_of_later_collections():
    # In a fresh interpreter: freezing there must not leak into this test process.
    code = textwrap.dedent("""
        import gc
        from ik_node import Chain, share_path
        from ik_node.ros.runtime import freeze_heap
        chain = Chain.from_urdf(share_path(), 'base_link', 'tool0')
        before = len(gc.get_objects())
        freeze_heap()
        after = len(gc.get_objects())
        garbage = [[i] for i in range(1000)]      # later objects are still tracked
        print(before, after, gc.get_freeze_count(), len(gc.get_objects()) - after)
    """)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    before, after, frozen, new = (int(x) for x in out)
    assert before > 10_000 and after < 0.05 * before
    assert frozen >= 0.9 * before
    assert new >= 1000


def test_a_node_ends_when_rclpy_is_shut_down_without_waking_its_executor(tmp_path):
    # On Ctrl-C rclpy's signal thread triggers the executors' guard conditions and only then
    # shuts the context down: an executor woken by the trigger may have gone back to waiting
    # before the shutdown, and nothing wakes it again. Here the context is shut down as that
    # thread does it (the C context alone, no on_shutdown callback, no trigger), with no timer
    # outside the control loop to wake the executor: the node must still end, and at once.
    code = textwrap.dedent("""
        import threading, time
        import rclpy
        from rclpy.node import Node
        from ik_node.ros.control_loop import CycleGroup
        from ik_node.ros.runtime import SHUTDOWN_CHECK, spin_until_shutdown
        rclpy.init()
        node = Node('spin_probe')
        node.cycle_group = CycleGroup()
        ticks = []
        node.create_timer(0.01, lambda: ticks.append(1), callback_group=node.cycle_group)
        def shut_down():
            while len(ticks) < 20:      # the loop runs and the executor waits
                time.sleep(0.01)
            shut.append(time.monotonic())
            rclpy.get_default_context().handle.shutdown()
        shut = []
        threading.Thread(target=shut_down, daemon=True).start()
        spin_until_shutdown(node)
        print(time.monotonic() - shut[0], SHUTDOWN_CHECK)
    """)
    env = node_environment(fresh_domain(), tmp_path)
    run = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=30, env=env)
    assert run.returncode == 0, run.stderr
    took, check = (float(x) for x in run.stdout.split())
    # One bounded wait's timeout, and the control loop's idle wake (0.1 s) to notice it too.
    assert took < check + 1.0, (took, run.stderr)
