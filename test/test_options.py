# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Solve options: one validation for every method; a method refuses what it does not use."""

import math

from conftest import load
from ik_node import IKInputError, methods, solve
from ik_node.options import COMMON_OPTIONS, SolveOptions
from ik_node.solvers.table import METHODS
import pytest

BAD = [
    ('damping', -1.0), ('damping', '1'), ('damping', 1e300), ('max_iterations', 0),
    ('max_iterations', 2.5), ('max_attempts', 0), ('timeout', math.nan), ('timeout', 0.0),
    ('position_tolerance', -1e-3), ('position_tolerance', math.inf),
    ('orientation_tolerance', math.nan), ('max_step', 0.0), ('solutions', 0),
    ('solutions', True), ('secondary_iterations', -1), ('null_space_gain', -1.0),
    ('position_weight', 0.0), ('orientation_weight', -1.0),
    ('manipulability_threshold', math.inf), ('joint_weights', [1.0] * 5),
    ('joint_weights', [0.0] * 6), ('joint_weights', 'abc'), ('rng_seed', 1.5),
    ('rng_seed', 'seed'), ('restarts', 'yes'), ('position_weight', 1e300),
    ('orientation_weight', 1e300), ('position_tolerance', 1e300),
]


@pytest.mark.parametrize('name, value', BAD)
def test_bad_values_are_refused_by_name(name, value):
    chain = load('ur5')
    with pytest.raises(IKInputError, match=name):
        solve(chain, chain.fk(chain.mid), q0=chain.mid, method='dls', **{name: value})


@pytest.mark.parametrize('name, value', [
    ('tip_weight', 0.0), ('fabrik_points', 'some'), ('polish_iterations', -1),
    ('min_change', -1.0), ('progress_window', 1.5), ('orientation_points_offset', 0.0),
])
def test_bad_fabrik_values_are_refused_by_name(name, value):
    with pytest.raises(IKInputError, match=name):
        solve(load('planar3'), [0.5, 0.5, 0.0], method='fabrik', **{name: value})


@pytest.mark.parametrize('method', sorted(methods()))
def test_every_method_refuses_unknown_and_unused_options_and_takes_its_own(method):
    chain = load('ur5')
    target = chain.fk(chain.mid + 0.2)
    with pytest.raises(IKInputError, match='unknown option'):
        solve(chain, target, method=method, no_such_option=1)
    used = METHODS[method].options
    assert COMMON_OPTIONS <= used
    defaults = SolveOptions()
    for name in sorted(set(SolveOptions.__dataclass_fields__) - used):
        with pytest.raises(IKInputError, match=f"{name}.*not used by method '{method}'"):
            solve(chain, target, method=method, **{name: getattr(defaults, name)})
    for name in sorted(used - {'objectives', 'joint_weights'}):
        value = getattr(defaults, name)
        if value is None:
            continue
        solve(chain, target, method=method, **{'timeout': 0.005, name: value})
