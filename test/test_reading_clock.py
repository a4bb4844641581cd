# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""When joint readings were taken: late ones are old, a steady clock offset is shifted."""

from ik_node.motion.reading_clock import (DELIVERY_GAP, DELIVERY_MAX, DeliveryDelay,
                                          LATE_SPAN, LateArrival, ReadingClock)
import pytest

RATE = 100.0        # [Hz] a driver's joint_states
LATENCY = 0.002     # [s] delivery on one machine


def stream(clock: ReadingClock, t0: float, seconds: float, offset: float = 0.0):
    """Feed ``seconds`` of readings from t0 (node clock), stamped ``offset`` s behind it."""
    out = []
    for i in range(int(seconds * RATE)):
        taken = t0 + i / RATE
        out.append((taken, clock.judge(taken - offset, taken + LATENCY)))
    return out


def test_one_clock_stamps_are_used_as_they_are():
    clock = ReadingClock()
    for taken, t in stream(clock, 100.0, 2.0):
        assert t == pytest.approx(taken)
    assert clock.offset == 0.0


def test_a_late_reading_among_live_ones_is_old():
    clock = ReadingClock()
    stream(clock, 100.0, 2.0)
    assert clock.judge(98.0, 102.0) == 98.0      # delivered 4 s late: taken 4 s ago
    assert clock.offset == 0.0


def test_a_dead_arms_backlog_is_old_whatever_its_offsets():
    clock = ReadingClock()
    stream(clock, 100.0, 1.0)
    # The arm died at 101.0; its last readings come 4 s late, in a burst and in a trickle.
    for i in range(10):
        assert clock.judge(100.9 + i * 0.01, 105.0 + i * 0.001) < 101.0
    for i in range(10):
        assert clock.judge(100.9 + i * 0.01, 106.0 + i * 0.2) < 101.0
    assert clock.offset == 0.0


@pytest.mark.parametrize('offset', [30.0, -30.0])
def test_a_steady_offset_is_taken_as_the_other_clock(offset):
    clock = ReadingClock()
    judged = stream(clock, 100.0, 2.0, offset)
    # Not judged by the shift until a second of readings showed it (old, or unknown ahead).
    for taken, t in judged[:int(0.5 * RATE)]:
        assert t is None if offset < 0 else t == pytest.approx(taken - offset)
    # Then on the node's clock (the shift holds the delivery latency: the receive time).
    for taken, t in judged[int(1.0 * RATE):]:
        assert t == pytest.approx(taken + LATENCY, abs=1e-9)
    assert clock.offset == pytest.approx(offset + LATENCY)
    # A reading delivered late is old under the offset too.
    assert clock.judge(101.0 - offset, 105.0) == pytest.approx(101.0 + LATENCY)


def test_the_offset_ends_when_the_clocks_agree_again():
    clock = ReadingClock()
    stream(clock, 100.0, 2.0, 30.0)
    changes = 0
    for i in range(int(2.0 * RATE)):
        taken = 102.0 + i / RATE
        clock.judge(taken, taken + LATENCY)
        changes += clock.offset_changed
    assert clock.offset == 0.0 and changes == 1
    assert clock.judge(104.0, 104.0 + LATENCY) == 104.0


def test_a_steady_delivery_delay_is_usual_and_a_backlog_is_not():
    delay = DeliveryDelay()
    # A busy machine: every reading arrives 0.15 s after its stamp. At first (too short a
    # stream to know what is usual) the age counts as it is; after half the span, as usual.
    excess = [delay.excess(0.15, 100.0 + i / RATE) for i in range(int(RATE))]
    assert excess[0] == pytest.approx(0.15)
    assert excess[-1] == pytest.approx(0.0)
    # A backlog after a short busy spell (0.2 s, no reading handled): its readings waited,
    # and say so; the newest is as recent as usual.
    t = 100.99 + 0.2
    backlog = [delay.excess(0.15 + 0.2 - i / RATE, t + 1e-4 * i) for i in range(21)]
    assert backlog[0] == pytest.approx(0.2) and backlog[-1] == pytest.approx(0.0)
    # After a pause in the stream, a burst is judged by its age alone again.
    assert delay.excess(0.5, t + 2 * DELIVERY_GAP) == pytest.approx(0.5)


def test_a_delay_beyond_the_usual_bound_never_counts_as_usual():
    # Stamps 30 s behind (a clock the ReadingClock has not shifted yet), or an arm heard
    # seconds late: however steady, such readings stay old.
    delay = DeliveryDelay()
    excess = [delay.excess(30.0, 100.0 + i / RATE) for i in range(int(2 * RATE))]
    assert min(excess) == pytest.approx(30.0 - DELIVERY_MAX)


def test_a_command_held_back_is_late_by_the_time_it_waited_whatever_the_clocks():
    for offset in (0.0, 0.4, -3.0, 1e6):     # the sender's clock behind (ahead) by that much
        late = LateArrival()
        # A stream at 50 Hz with a steady 2 ms delivery: the first message's delay is usual.
        sent = [100.0 + i / 50 for i in range(50)]
        first = [late.lateness(t - offset, t + 0.002) for t in sent]
        assert max(first) == pytest.approx(0.0, abs=1e-6)
        # The next one held back 0.12 s (a busy machine), then the stream on time again.
        t = sent[-1] + 0.02
        assert late.lateness(t - offset, t + 0.122) == pytest.approx(0.12)
        assert late.lateness(t + 0.121 - offset, t + 0.123) == pytest.approx(0.0, abs=1e-6)
        # A stream that stays slower for longer than LATE_SPAN: its delay becomes the usual.
        # (The on-time ones leave the span LATE_SPAN after the last of them came.)
        received = [t + i / 50 + 0.3 for i in range(2, 2 + int(1.5 * LATE_SPAN * 50))]
        ages = [late.lateness(r - 0.3 - offset, r) for r in received]
        usual = next(i for i, a in enumerate(ages) if a < 1e-6)
        assert all(a == pytest.approx(0.298) for a in ages[:usual])
        assert received[usual] - (t + 0.123) == pytest.approx(LATE_SPAN, abs=0.021)
        assert max(ages[usual:]) < 1e-6
