# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
The constant records of one compiled solve, held in one object the kernel takes.

``solve``'s kernel (:func:`ik_node.solvers.batch_kernel.solve_target`) needs the chain
model, the joint limits, the table of random starts, the parameters and the packed
objectives: about thirty arrays and forty numbers, the same on every call with the same
chain and options. numba converts every one of them on each call (about 4 µs, more than a
short solve's iterations, and each a Python object to read from memory); held in a numba
StructRef they cross the call as one pointer. Without numba (plain-Python kernels) the
holder is a NamedTuple with the same fields.
"""

from typing import NamedTuple

from ik_node import _jit

__all__ = ['make_solve_records', 'FIELDS']

FIELDS = ('rec', 'ctx')


class _PlainRecords(NamedTuple):
    """The records as a tuple (plain-Python kernels)."""

    rec: tuple
    ctx: tuple


if _jit.JIT_ENABLED:
    from numba.core import types
    from numba.experimental import structref

    @structref.register
    class _RecordsType(types.StructRef):
        def preprocess_fields(self, fields):
            return tuple((name, types.unliteral(typ)) for name, typ in fields)

    class _Records(structref.StructRefProxy):
        """The records in a StructRef: fields as in :data:`FIELDS`."""

    structref.define_proxy(_Records, _RecordsType, list(FIELDS))

    @_jit.njit
    def _make(rec, ctx):
        return _Records(rec, ctx)
else:
    _make = _PlainRecords


def make_solve_records(rec, ctx):
    """
    Return the records of one solve in one object, fields named as in :data:`FIELDS`.

    rec: the DriverRecords (model, limits, starts, params, collisions); ctx: the method's
    attempt records. The arrays are held, not copied: nothing may write to them afterwards.
    """
    return _make(rec, ctx)
