# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""command_judge: a stop the machine caused (and the node told) is excused, nothing else."""

import time

from command_judge import judge_commands, late_tick, machine_stalls, MachineStall
from ik_node import Chain, share_path
from ik_node.motion.limits import JointLimits
from ik_node.ros.cycle_watch import CycleWatch
import numpy as np
import pytest

pytest.importorskip('rclpy')

from sensor_msgs.msg import JointState  # noqa: E402, I100

# A late tick as a node told it on this machine (6 December, test_jog_ros's gamepad test):
# 50 ms of a tick's wall time with 1 ms on the CPU, no wait but the tick's, no preemption.
TOLD = ('[WARN] [1796583873.423084530] [ik_node.late_cycle]: control cycle late: no command '
        'tick for 51 ms while the arm moved (one every 10 ms asked); the arm held its last '
        'command meanwhile; the tick before ran 50 ms; between the two ticks the thread was 1 '
        'ms on the CPU, waited 1 times (its wait for this tick is one), was preempted 0 times, '
        'had 0 page faults (0 from disk) and loaded kernels for 0 ms; other callbacks in the '
        'control thread 0 ms (the longest 0 ms); no garbage collection meanwhile (1 late so far)')
END_NS = 1796583873423084530


def stalls_of(tmp_path, *lines: str) -> list:
    log = tmp_path / 'ik_node.log'
    log.write_text('[INFO] [1796583872.0] [ik_node]: ready\n' + '\n'.join(lines) + '\n')
    return machine_stalls([log])


def test_a_late_tick_the_thread_did_not_run_is_the_machines(tmp_path):
    (stall,) = stalls_of(tmp_path, TOLD)
    assert (stall.start_ns, stall.end_ns) == (END_NS - 51_000_000, END_NS)


@pytest.mark.parametrize('own', [
    ('the tick before ran 50 ms', 'the tick before ran 2 ms'),  # a late wake: the node's timer?
    ('was 1 ms on the CPU', 'was 40 ms on the CPU'),            # the tick's own work
    ('waited 1 times', 'waited 4 times'),                       # the GIL, a lock, a disk
    ('(0 from disk)', '(2 from disk)'),
    ('loaded kernels for 0 ms', 'loaded kernels for 35 ms'),
    ('control thread 0 ms', 'control thread 30 ms'),            # another callback ran
    ('no garbage collection meanwhile', 'garbage collection (generation 2) took 30 ms of it'),
])
def test_a_late_tick_of_the_nodes_own_making_is_not(tmp_path, own):
    assert TOLD.count(own[0]) == 1
    assert stalls_of(tmp_path, TOLD.replace(*own)) == []


def test_the_nodes_own_text_is_read(tmp_path):
    # Made by the node's CycleWatch: a tick that computes for 60 ms of CPU (the node's own
    # making; on a busy machine its wall time is longer).
    watch = CycleWatch()
    try:
        watch.tick(0.01, True, time.monotonic())
        end = time.process_time() + 0.06
        while time.process_time() < end:
            pass
        watch.done()
        text = watch.tick(0.01, True, time.monotonic())
    finally:
        watch.close()
    line = f'[WARN] [1796583873.423084530] [ik_node.late_cycle]: {text}'
    told = late_tick(line)
    assert told is not None, text
    assert told['stamp_ns'] == END_NS and told['period'] == 10 and not told['gc']
    assert told['cpu'] >= 55 and told['ran'] >= 55 and told['gap'] >= told['ran']
    assert told['loading'] == told['disk'] == told['calls'] == 0
    assert stalls_of(tmp_path, line) == []
    assert late_tick(TOLD) == {'stamp_ns': END_NS, 'gap': 51, 'period': 10, 'ran': 50, 'cpu': 1,
                               'waits': 1, 'disk': 0, 'loading': 0, 'calls': 0, 'gc': False}


class _Probe:
    """What judge_commands reads of a probe: the commands heard (receive time, message)."""

    def __init__(self, names, stream):
        self.procs = None
        self.commands = []
        for t_ns, q in stream:
            m = JointState(name=list(names), position=[float(v) for v in q])
            m.header.stamp.sec, m.header.stamp.nanosec = divmod(t_ns, 1_000_000_000)
            self.commands.append((0.0, m))


def stopped_stream(chain):
    """Return a joint at 0.2 rad/s, no command for 51 ms (the arm held), then from rest."""
    q = np.array(chain.mid, dtype=float)
    t0 = END_NS - 51_000_000 - 30 * 10_000_000
    stream = [(t0 + k * 10_000_000, q + [0, 0.002 * k, 0, 0, 0, 0]) for k in range(31)]
    held = stream[-1][1]
    stream.append((END_NS, held))           # the late tick: the arm where it was held
    stream += [(END_NS + k * 10_000_000, held + [0, 0.5 * (0.01 * k) ** 2, 0, 0, 0, 0])
               for k in range(1, 30)]       # from rest at 1 rad/s^2
    return stream


def test_the_abrupt_stop_of_a_told_machine_stall_is_excused_and_warned():
    chain = Chain.from_urdf(share_path(), 'base_link', 'tool0')
    limits = JointLimits(chain.joint_names, np.ones(6), np.full(6, 5.0), np.full(6, 1000.0))
    probe = _Probe(chain.joint_names, stopped_stream(chain))
    with pytest.raises(AssertionError, match='acceleration'):
        judge_commands(chain, probe, 0, limits, 0.01, stalls=[])
    elsewhere = MachineStall(END_NS + 10**9, END_NS + 10**9 + 51_000_000, 'later')
    with pytest.raises(AssertionError, match='acceleration'):
        judge_commands(chain, probe, 0, limits, 0.01, stalls=[elsewhere])
    stall = MachineStall(END_NS - 51_000_000, END_NS, TOLD)
    with pytest.warns(UserWarning, match='the machine held the node'):
        w = judge_commands(chain, probe, 0, limits, 0.01, stalls=[stall])
    assert w.violations and {v.kind for v in w.violations} <= {'acceleration', 'jerk'}
    # A jump is never excused.
    jumped = [(t, q + [0, 0.3 * (t >= END_NS), 0, 0, 0, 0]) for t, q in stopped_stream(chain)]
    with pytest.raises(AssertionError, match='step'):
        judge_commands(chain, _Probe(chain.joint_names, jumped), 0, limits, 0.01,
                       stalls=[stall])
