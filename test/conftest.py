# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""Shared fixtures: the test robots under test/urdf and a seeded random generator."""

import os
from pathlib import Path

from ik_node import Chain
import numpy as np
import pytest

URDF_DIR = Path(__file__).parent / 'urdf'

# (file, base, tip) of every well-formed test robot.
ROBOTS = {
    'planar2': ('planar2.urdf', 'base_link', 'tip'),
    'planar3': ('planar3.urdf', 'base_link', 'tip'),
    'arm4': ('arm4.urdf', 'base_link', 'tip'),
    'prismatic': ('prismatic.urdf', 'base_link', 'tip'),
    'continuous': ('continuous.urdf', 'base_link', 'tip'),
    'mimic': ('mimic.urdf', 'base_link', 'tip'),
    'panda': ('panda.urdf', 'panda_link0', 'panda_link8'),
    'ur5': ('ur5.urdf', 'base_link', 'tool0'),
}

# Loopback-only DDS discovery for any test that starts ROS processes.
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.pop('ROS_LOCALHOST_ONLY', None)


def load(name: str) -> Chain:
    """Return the chain of test robot ``name``."""
    fname, base, tip = ROBOTS[name]
    return Chain.from_urdf(URDF_DIR / fname, base, tip)


@pytest.fixture(params=sorted(ROBOTS))
def any_chain(request) -> Chain:
    """Yield each test robot in turn."""
    yield load(request.param)


@pytest.fixture
def rng() -> np.random.Generator:
    """Return a seeded generator, so every run draws the same samples."""
    return np.random.default_rng(1234)
