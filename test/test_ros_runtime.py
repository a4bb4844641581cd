# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The node runtime: a heap frozen after start-up is never walked by the garbage collector."""

import subprocess
import sys
import textwrap


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
