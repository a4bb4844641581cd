# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The two messages of the control cycle read and written as CDR bytes, not message objects.

At a kHz, building a Python message per reading and per command is a sizeable share of the
cycle. The joint_states and jog_twist subscriptions are taken raw (``raw=True``: the bytes
as on the wire) and read here into arrays; the JointState command is written into a byte
template whose positions are a numpy view and published as bytes (``Publisher.publish``
takes serialized bytes as they are).

The wire format read is plain little-endian CDR (encapsulation ``0x0001``, XCDR1, what
rmw_fastrtps and rmw_cyclonedds write for ROS 2 messages): a uint32 is aligned to 4 bytes
and a float64 to 8, counted from the end of the 4-byte encapsulation header; a string is a
uint32 length (its NUL included) and the bytes; a sequence a uint32 count and the items.
Any other encapsulation (big-endian, XCDR2, parameter lists) is refused here
(:class:`WireFormatError`), and the readers then hand the bytes to rclpy's own
``deserialize_message``, which reads every encapsulation: on any wire the result is the
message's content. A command template is checked against ``deserialize_message`` when it is
made; a template that does not read back is not used (the command goes out as a message).
"""

import struct
from typing import NamedTuple, Sequence

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TwistStamped
from ik_node.errors import IKInputError
import numpy as np
from numpy.typing import ArrayLike
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import JointState

__all__ = ['WireFormatError', 'JointStateReading', 'TwistReading', 'JointStateReader',
           'read_twist_stamped', 'JointStateWriter', 'CDR_LE']

CDR_LE = b'\x00\x01'        # the encapsulation read here: plain CDR, little-endian
_HEADER = 4                 # encapsulation id (2 bytes) and options (2 bytes)
_U32 = struct.Struct('<I')
_STAMP = struct.Struct('<iI')
_SIX = struct.Struct('<6d')


class WireFormatError(IKInputError):
    """Bytes this module does not read: another encapsulation, or a truncated message."""


class JointStateReading(NamedTuple):
    """A sensor_msgs/JointState as arrays: stamp [ns], frame, names, (n,) float64 each."""

    stamp_ns: int
    frame_id: str
    name: tuple[str, ...]
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray


class TwistReading(NamedTuple):
    """A geometry_msgs/TwistStamped: stamp [ns], frame, (6,) linear [m/s] then angular [rad/s]."""

    stamp_ns: int
    frame_id: str
    twist: np.ndarray


def _check_encapsulation(data: bytes) -> None:
    if len(data) < _HEADER + 8:
        raise WireFormatError(f'CDR message of {len(data)} bytes is too short')
    if data[:2] != CDR_LE:
        kind = 'big-endian ' if data[1] in (0, 2, 6, 8, 10) else ''
        raise WireFormatError(f'{kind}CDR encapsulation 0x{data[:2].hex()} is not read here '
                              f'(only plain little-endian CDR, 0x{CDR_LE.hex()})')


class _Cursor:
    """Read position in a CDR_LE buffer; offsets align from the end of the header."""

    __slots__ = ('data', 'pos')

    def __init__(self, data: bytes, pos: int = _HEADER):
        self.data, self.pos = data, pos

    def _align(self, size: int) -> None:
        self.pos += -(self.pos - _HEADER) % size

    def _need(self, size: int) -> None:
        if self.pos + size > len(self.data):
            raise WireFormatError(f'CDR message truncated: {size} bytes wanted at offset '
                                  f'{self.pos} of {len(self.data)}')

    def u32(self) -> int:
        self._align(4)
        self._need(4)
        (value,) = _U32.unpack_from(self.data, self.pos)
        self.pos += 4
        return value

    def stamp_ns(self) -> int:
        self._align(4)
        self._need(8)
        sec, nanosec = _STAMP.unpack_from(self.data, self.pos)
        self.pos += 8
        return sec * 1_000_000_000 + nanosec

    def string(self) -> str:
        n = self.u32()
        self._need(n)
        # The length counts the terminating NUL (0 is read as the empty string too).
        text = self.data[self.pos:self.pos + max(n - 1, 0)].decode('utf-8', 'replace')
        self.pos += n
        return text

    def float64s(self, count: int) -> np.ndarray:
        if count:
            self._align(8)
        self._need(8 * count)
        values = np.frombuffer(self.data, '<f8', count, self.pos).astype(float)
        self.pos += 8 * count
        return values

    def float64_sequence(self) -> np.ndarray:
        return self.float64s(self.u32())


class JointStateReader:
    """
    Read sensor_msgs/JointState bytes (module docstring); the names are read once per layout.

    A publisher sends the same frame and names in every message: their bytes (each string's
    length and characters, not the padding between them, which writers leave unset) are
    kept, and a message that repeats them reuses their reading.
    """

    def __init__(self):
        self._pieces: tuple[tuple[int, bytes], ...] = ()     # (offset, bytes) of the strings
        self._end = 0                       # where the names end
        self._frame = ''
        self._names: tuple[str, ...] = ()

    def read(self, data: bytes) -> JointStateReading:
        """Return the reading of ``data``; IKInputError if neither here nor rclpy reads it."""
        try:
            return self._read_cdr(data)
        except WireFormatError as exc:
            return _via_rclpy(data, exc)

    def _read_cdr(self, data: bytes) -> JointStateReading:
        _check_encapsulation(data)
        cur = _Cursor(data)
        stamp = cur.stamp_ns()
        if self._pieces and all(data.startswith(piece, at) for at, piece in self._pieces):
            cur.pos = self._end
            frame, names = self._frame, self._names
        else:
            pieces: list[tuple[int, bytes]] = []
            frame = self._string(cur, pieces)
            start = cur.pos
            count = cur.u32()
            pieces.append((start, data[start:cur.pos]))
            names = tuple(self._string(cur, pieces) for _ in range(count))
            self._pieces, self._end = tuple(pieces), cur.pos
            self._frame, self._names = frame, names
        position = cur.float64_sequence()
        velocity = cur.float64_sequence()
        effort = cur.float64_sequence()
        return JointStateReading(stamp, frame, names, position, velocity, effort)

    @staticmethod
    def _string(cur: '_Cursor', pieces: list) -> str:
        """Read a string at ``cur`` and note its bytes (length and characters) in ``pieces``."""
        cur._align(4)
        start = cur.pos
        text = cur.string()
        pieces.append((start, cur.data[start:cur.pos]))
        return text


def _via_rclpy(data: bytes, why: Exception) -> JointStateReading:
    try:
        msg = deserialize_message(data, JointState)
    except Exception as exc:  # noqa: B902  (rclpy raises several kinds for bad bytes)
        raise IKInputError(f'JointState bytes not readable ({why}; rclpy: {exc})') from exc
    stamp = msg.header.stamp
    return JointStateReading(stamp.sec * 1_000_000_000 + stamp.nanosec, msg.header.frame_id,
                             tuple(msg.name), np.array(msg.position, dtype=float),
                             np.array(msg.velocity, dtype=float),
                             np.array(msg.effort, dtype=float))


def read_twist_stamped(data: bytes) -> TwistReading:
    """Return the reading of geometry_msgs/TwistStamped ``data``; IKInputError if unreadable."""
    try:
        _check_encapsulation(data)
        cur = _Cursor(data)
        stamp = cur.stamp_ns()
        frame = cur.string()
        cur._align(8)
        cur._need(48)
        twist = np.array(_SIX.unpack_from(data, cur.pos))
        return TwistReading(stamp, frame, twist)
    except WireFormatError as exc:
        try:
            msg = deserialize_message(data, TwistStamped)
        except Exception as err:  # noqa: B902  (rclpy raises several kinds for bad bytes)
            raise IKInputError(f'TwistStamped bytes not readable ({exc}; rclpy: {err})') \
                from err
        lin, ang = msg.twist.linear, msg.twist.angular
        stamp = msg.header.stamp
        return TwistReading(stamp.sec * 1_000_000_000 + stamp.nanosec, msg.header.frame_id,
                            np.array([lin.x, lin.y, lin.z, ang.x, ang.y, ang.z], dtype=float))


class JointStateWriter:
    """
    The JointState command for fixed joint ``names`` as bytes: stamp and positions filled in.

    The template is rclpy's serialization of the message with these names (frame_id empty,
    no velocity or effort); its stamp and positions are rewritten in place for each command.
    :attr:`usable` is False when the template does not read back through rclpy (another
    encapsulation): the caller then publishes messages.
    """

    def __init__(self, names: Sequence[str]):
        self.names = tuple(names)
        n = len(self.names)
        template = serialize_message(JointState(name=list(self.names), position=[0.0] * n))
        self._buffer = bytearray(template)
        self.usable = False
        try:
            _check_encapsulation(template)
            cur = _Cursor(template)
            cur.stamp_ns()
            cur.string()
            for _ in range(cur.u32()):
                cur.string()
            if cur.u32() != n:
                return
            cur._align(8)
            self._positions = np.frombuffer(self._buffer, '<f8', n, cur.pos)
        except WireFormatError:
            return
        probe = np.linspace(-1.5, 2.5, n) if n else np.zeros(0)
        back = deserialize_message(self.serialize(1_234_567_890_123_456_789, probe),
                                   JointState)
        self.usable = (tuple(back.name) == self.names and list(back.position) == list(probe)
                       and back.header.stamp == Time(sec=1_234_567_890, nanosec=123_456_789)
                       and not back.velocity and not back.effort)

    def serialize(self, stamp_ns: int, q: ArrayLike) -> bytes:
        """Return the command's bytes: positions ``q`` (n,), stamped ``stamp_ns`` [ns]."""
        sec, nanosec = divmod(int(stamp_ns), 1_000_000_000)
        _STAMP.pack_into(self._buffer, _HEADER, sec, nanosec)
        self._positions[:] = q
        return bytes(self._buffer)
