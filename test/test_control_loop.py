# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The control loop: its own wait set for the cycle's entities, every callback in its thread."""

from contextlib import contextmanager
import threading
import time

import pytest
from ros_harness import fresh_domain

rclpy = pytest.importorskip('rclpy')

from ik_node.ros.control_loop import ControlLoop, CycleGroup, HandOffExecutor  # noqa: E402, I100
from ik_node.ros.runtime import BackgroundSpinner  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.serialization import serialize_message  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402


def wait_for(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


class Rig:
    """A node with a cycle timer, a raw cycle subscription, an ordinary one and a service."""

    def __init__(self):
        self.ctx = Context()
        rclpy.init(context=self.ctx, domain_id=fresh_domain())
        self.node = rclpy.create_node('control_loop_test', context=self.ctx)
        self.group = CycleGroup()
        self.seen: dict[str, list] = {'tick': [], 'cycle': [], 'other': [], 'service': [],
                                      'new tick': [], 'beside': []}
        node = self.node
        self.timer = node.create_timer(0.005, lambda: self._saw('tick', None), self.group)
        node.create_subscription(String, 'cycle_in', lambda m: self._saw('cycle', m), 10,
                                 raw=True, callback_group=self.group)
        node.create_subscription(String, 'other_in', lambda m: self._saw('other', m), 10)
        node.create_service(Trigger, 'poke', self._poke)
        self.cycle_pub = node.create_publisher(String, 'cycle_in', 10)
        self.other_pub = node.create_publisher(String, 'other_in', 10)
        self.errors: list[str] = []

    def _saw(self, what: str, msg) -> None:
        if isinstance(msg, String) and msg.data == 'slow':
            time.sleep(0.03)
        self.seen[what].append((threading.current_thread().name, msg))
        if isinstance(msg, String) and msg.data == 'raise':
            raise RuntimeError('a failing callback')
        if isinstance(msg, String) and msg.data.startswith('beside'):
            self._beside(msg.data)
        if isinstance(msg, String) and msg.data == 'new timer':
            # As a parameter change does (output_rate): the cycle's timer destroyed and made
            # again from a handed-off callback.
            self.node.destroy_timer(self.timer)
            self.timer = self.node.create_timer(0.005, lambda: self._saw('new tick', None),
                                                self.group)

    def _beside(self, what: str) -> None:
        """Run 0.3 s of work beside the cycle (or work that fails); note what the cycle did."""
        def work() -> str:
            time.sleep(0.3)
            if what == 'beside fails':
                raise ValueError('the work failed')
            return threading.current_thread().name

        ticks = len(self.seen['tick'])
        ran_in = self.group.beside_cycles(work)
        self.seen['beside'].append((ran_in, len(self.seen['tick']) - ticks))

    def _poke(self, request, response):
        self._saw('service', None)
        response.success = True
        return response

    @contextmanager
    def looping(self):
        """Run the node under a ControlLoop and a HandOffExecutor spun in the background."""
        loop = ControlLoop(self.node, self.group, self.errors.append)
        executor = HandOffExecutor(loop, context=self.ctx)
        executor.add_node(self.node)
        loop.start()
        spinner = BackgroundSpinner(executor)
        try:
            yield loop
        finally:
            spinner.stop()
            loop.stop()

    def close(self) -> None:
        self.node.destroy_node()
        rclpy.shutdown(context=self.ctx)


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.close()


def test_the_loop_runs_every_callback_in_its_thread_and_takes_cycle_messages_raw(rig):
    client_node = rclpy.create_node('control_loop_client', context=rig.ctx)
    client = client_node.create_client(Trigger, 'poke')
    try:
        with rig.looping():
            assert wait_for(lambda: len(rig.seen['tick']) >= 20)
            # (Matched first: a reliable publisher then delivers every message.)
            assert wait_for(lambda: rig.cycle_pub.get_subscription_count() == 1
                            and rig.other_pub.get_subscription_count() == 1)
            rig.cycle_pub.publish(String(data='to the loop'))
            rig.other_pub.publish(String(data='raise'))      # fails, reported, the loop goes on
            rig.other_pub.publish(String(data='to the executor'))
            assert client.wait_for_service(timeout_sec=20.0)
            future = client.call_async(Trigger.Request())
            client_executor = SingleThreadedExecutor(context=rig.ctx)
            client_executor.add_node(client_node)
            client_executor.spin_until_future_complete(future, timeout_sec=20.0)
            assert future.done() and future.result().success
            assert wait_for(lambda: len(rig.seen['cycle']) == 1 and len(rig.seen['other']) == 2)
            ticks = len(rig.seen['tick'])
            assert wait_for(lambda: len(rig.seen['tick']) > ticks + 5)      # ticks go on
            rig.other_pub.publish(String(data='new timer'))
            assert wait_for(lambda: len(rig.seen['new tick']) > 5)
    finally:
        client_node.destroy_node()
    assert not rig.group.owned
    threads = {name for seen in rig.seen.values() for name, _ in seen}
    assert threads == {'ik-control'}
    assert rig.seen['cycle'][0][1] == serialize_message(String(data='to the loop'))
    assert [m.data for _, m in rig.seen['other']] == ['raise', 'to the executor', 'new timer']
    assert len(rig.errors) == 1 and 'a failing callback' in rig.errors[0], rig.errors


def test_the_loop_counts_the_time_of_the_callbacks_other_than_the_timers(rig):
    # A late tick is told with them (ik_node.ros.cycle_watch): were they what held it up?
    slow_tick = rig.node.create_timer(0.01, lambda: time.sleep(0.005), rig.group)
    with rig.looping():
        assert wait_for(lambda: len(rig.seen['tick']) >= 20)
        rig.group.take_calls()
        ticks = len(rig.seen['tick'])
        assert wait_for(lambda: len(rig.seen['tick']) > ticks + 20)
        assert rig.group.take_calls() == (0.0, 0.0)     # 5 ms ticks are not counted
        assert wait_for(lambda: rig.other_pub.get_subscription_count() == 1)
        rig.other_pub.publish(String(data='slow'))
        calls = []      # (noted once the callback returned, a little after it was seen)
        assert wait_for(lambda: calls.append(rig.group.take_calls()) or calls[-1][1] > 0.0)
        total, longest = calls[-1]
        assert len(rig.seen['other']) == 1 and 0.03 <= longest <= total
    rig.node.destroy_timer(slow_tick)


def test_long_work_of_a_callback_runs_beside_the_ticks(rig):
    # As a model build does (ik_node.ros.node): the ticks go on while the work runs on a
    # thread of its own; its result, or its error, comes back to the callback.
    with rig.looping():
        assert wait_for(lambda: len(rig.seen['tick']) >= 20)
        assert wait_for(lambda: rig.other_pub.get_subscription_count() == 1)
        rig.group.take_calls()
        rig.other_pub.publish(String(data='beside'))
        assert wait_for(lambda: len(rig.seen['beside']) == 1)
        calls = []      # (the callback's own time: the ticks it ran beside its work left out)
        assert wait_for(lambda: calls.append(rig.group.take_calls()) or calls[-1][1] > 0.0)
        rig.other_pub.publish(String(data='beside fails'))
        assert wait_for(lambda: rig.errors)
    (ran_in, ticks), = rig.seen['beside']
    assert ran_in == 'ik-beside-cycle'
    assert ticks >= 20          # 0.3 s of 5 ms ticks (60) while it ran, a busy machine or not
    assert calls[-1][1] < 0.1, calls
    assert len(rig.errors) == 1 and "ValueError('the work failed')" in rig.errors[0], rig.errors
    assert len(rig.seen['beside']) == 1     # (the failed one raised in its callback)
    assert {name for name, _ in rig.seen['tick']} == {'ik-control'}


def test_without_a_loop_long_work_runs_in_the_callers_thread(rig):
    assert rig.group.beside_cycles(lambda: threading.current_thread().name) == (
        threading.current_thread().name)


def test_without_a_loop_any_executor_runs_the_cycle_entities(rig):
    executor = SingleThreadedExecutor(context=rig.ctx)
    executor.add_node(rig.node)
    assert wait_for(lambda: rig.cycle_pub.get_subscription_count() == 1)
    rig.cycle_pub.publish(String(data='to the executor'))
    deadline = time.monotonic() + 20.0
    while time.monotonic() < deadline and not (rig.seen['cycle'] and len(rig.seen['tick']) > 5):
        executor.spin_once(timeout_sec=0.01)
    executor.shutdown()
    assert rig.seen['cycle'] and len(rig.seen['tick']) > 5
    assert {name for seen in rig.seen.values() for name, _ in seen} == {
        threading.main_thread().name}


def test_with_a_timer_the_loop_takes_the_cycle_messages_right_before_each_tick(rig):
    """One wake per period: the messages queued meanwhile, in order, then the tick."""
    events: list = []
    rig._saw = lambda what, msg: events.append((what, msg, time.monotonic()))
    rig.node.destroy_timer(rig.timer)
    # A slow timer: the messages sent right after a tick wait for the next one.
    rig.timer = rig.node.create_timer(0.3, lambda: rig._saw('tick', None), rig.group)
    with rig.looping():
        assert wait_for(lambda: rig.cycle_pub.get_subscription_count() == 1)
        ticks = len(events)
        assert wait_for(lambda: len(events) > ticks)
        sent = time.monotonic()
        for k in range(5):
            rig.cycle_pub.publish(String(data=str(k)))
        assert wait_for(lambda: sum(what == 'tick' for what, _, _ in events) > ticks + 1)
    got = [(msg, t) for what, msg, t in events if what != 'tick']
    assert [msg for msg, _ in got] == [serialize_message(String(data=str(k)))
                                       for k in range(5)]
    tick = next(t for what, _, t in events if what == 'tick' and t > got[-1][1])
    # Taken at the next tick's wake, right before its callback, not as they came.
    assert all(tick - t < 0.05 and t - sent > 0.1 for _, t in got), (sent, got, tick)
    assert not rig.errors


def test_without_a_timer_the_loop_takes_each_cycle_message_as_it_comes(rig):
    rig.node.destroy_timer(rig.timer)
    rig.group.revision += 1
    with rig.looping():
        assert wait_for(lambda: rig.cycle_pub.get_subscription_count() == 1)
        rig.cycle_pub.publish(String(data='no timer'))
        assert wait_for(lambda: len(rig.seen['cycle']) == 1)
    assert rig.seen['cycle'][0][1] == serialize_message(String(data='no timer'))
    assert not rig.errors
