# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""URDF reading: chain extraction, joint data and the errors that name the problem."""

import math

from conftest import load, URDF_DIR
from ik_node import Chain, URDFError
from ik_node.model.urdf import read_chain
import numpy as np
import pytest

LINK = '<link name="{0}"/>'
JOINT = ('<joint name="{name}" type="{type}"><parent link="{p}"/><child link="{c}"/>'
         '<axis xyz="0 0 1"/>{limit}</joint>')
LIMIT = '<limit lower="-1" upper="1" effort="1" velocity="2"/>'


def robot(*parts: str) -> str:
    """Return a URDF string made of ``parts``."""
    return '<robot name="r">' + ''.join(parts) + '</robot>'


def test_string_path_and_pathlike_give_the_same_chain():
    path = URDF_DIR / 'panda.urdf'
    a = Chain.from_urdf(path, 'panda_link0', 'panda_link8')
    b = Chain.from_urdf(str(path), 'panda_link0', 'panda_link8')
    c = Chain.from_urdf(path.read_text(), 'panda_link0', 'panda_link8')
    for other in (b, c):
        assert other.joint_names == a.joint_names
        np.testing.assert_array_equal(other.lower, a.lower)


def test_xml_declaration_with_encoding_is_accepted():
    text = (URDF_DIR / 'ur5.urdf').read_text().replace(
        '<?xml version="1.0"?>', '<?xml version="1.0" encoding="utf-8"?>')
    assert 'encoding="utf-8"' in text
    assert Chain.from_urdf(text, 'base_link', 'tool0').n == 6


def test_panda_joints_limits_and_velocities():
    chain = load('panda')
    assert chain.joint_names == tuple(f'panda_joint{i}' for i in range(1, 8))
    np.testing.assert_allclose(chain.lower[3], -3.0718)
    np.testing.assert_allclose(chain.upper[5], 3.7525)
    np.testing.assert_allclose(chain.velocity, [2.175] * 4 + [2.61] * 3)


def test_sub_chain_between_inner_links():
    chain = Chain.from_urdf(URDF_DIR / 'panda.urdf', 'panda_link2', 'panda_link5')
    assert chain.joint_names == ('panda_joint3', 'panda_joint4', 'panda_joint5')


def test_continuous_joints_are_unbounded():
    chain = load('continuous')
    assert chain.continuous.tolist() == [True, False, True]
    assert np.isinf(chain.lower[0]) and np.isinf(chain.upper[2])
    assert chain.mid[0] == 0.0 and np.all(np.isfinite(chain.mid))


def test_mimic_joint_follows_its_master_and_narrows_its_limits():
    chain = load('mimic')
    assert chain.n == 2
    assert len(chain.moving_joint_names) == 3
    k = chain.moving_joint_names.index('joint3')
    assert chain.joint_index[k] == 1
    np.testing.assert_allclose([chain.joint_multiplier[k], chain.joint_offset[k]], [0.5, 0.1])


@pytest.mark.parametrize('fname, words', [
    ('not_xml.urdf', 'malformed URDF'),
    ('cyclic.urdf', 'cycle'),
    ('missing_parent.urdf', 'not defined'),
    ('no_actuated.urdf', 'no actuated joint'),
])
def test_malformed_urdf_files_raise_urdf_error(fname, words):
    from urdf_parser_py.urdf import URDF  # noqa: F401  (parser present)
    text = (URDF_DIR / 'bad' / fname).read_text()
    links = [tok.split('"')[1] for tok in text.split('<link name=')[1:]] or ['a', 'b']
    with pytest.raises(URDFError, match=words):
        read_chain(URDF_DIR / 'bad' / fname, links[0], links[-1])


def test_missing_base_or_tip_names_the_link_and_lists_the_links():
    with pytest.raises(URDFError, match="tip_link 'nope' is not a link.*panda_link0"):
        load_chain = Chain.from_urdf
        load_chain(URDF_DIR / 'panda.urdf', 'panda_link0', 'nope')


def test_tip_not_below_base():
    with pytest.raises(URDFError, match='not below base_link'):
        Chain.from_urdf(URDF_DIR / 'panda.urdf', 'panda_link5', 'panda_link2')


def test_missing_file_and_wrong_type():
    with pytest.raises(URDFError, match='cannot read URDF file'):
        Chain.from_urdf('/nonexistent/robot.urdf', 'a', 'b')
    with pytest.raises(URDFError, match='XML string or a file path'):
        Chain.from_urdf(42, 'a', 'b')


def test_unsupported_joint_type_is_named():
    text = robot(LINK.format('a'), LINK.format('b'),
                 JOINT.format(name='f', type='floating', p='a', c='b', limit=''))
    with pytest.raises(URDFError, match="joint 'f' has type 'floating'"):
        Chain.from_urdf(text, 'a', 'b')


def test_revolute_without_limit_is_rejected():
    text = robot(LINK.format('a'), LINK.format('b'),
                 JOINT.format(name='j', type='revolute', p='a', c='b', limit=''))
    with pytest.raises(URDFError, match="revolute joint 'j' needs <limit"):
        Chain.from_urdf(text, 'a', 'b')


def test_mimic_of_a_joint_outside_the_chain_is_rejected():
    mimic = JOINT.format(name='j2', type='revolute', p='b', c='c', limit=LIMIT).replace(
        '</joint>', '<mimic joint="elsewhere"/></joint>')
    text = robot(LINK.format('a'), LINK.format('b'), LINK.format('c'), LINK.format('x'),
                 JOINT.format(name='j1', type='revolute', p='a', c='b', limit=LIMIT), mimic,
                 JOINT.format(name='elsewhere', type='revolute', p='a', c='x', limit=LIMIT))
    with pytest.raises(URDFError, match="mimic joint 'j2' follows 'elsewhere'"):
        Chain.from_urdf(text, 'a', 'c')


def test_missing_velocity_limit_reads_as_unbounded():
    text = robot(LINK.format('a'), LINK.format('b'), JOINT.format(
        name='j', type='revolute', p='a', c='b',
        limit='<limit lower="-1" upper="1" effort="1" velocity="0"/>'))
    chain = Chain.from_urdf(text, 'a', 'b')
    assert math.isinf(chain.velocity[0])


def test_chain_arrays_are_read_only(any_chain):
    for name in ('lower', 'upper', 'velocity', 'mid', 'joint_axes'):
        with pytest.raises(ValueError):
            getattr(any_chain, name)[0] = 0.0


@pytest.mark.parametrize('fname', ['transmission_type.urdf', 'texture_without_filename.urdf'])
def test_constructs_urdfdom_accepts_are_accepted(fname):
    """The same planar 2R arm as planar2.urdf, whatever the extra construct."""
    chain = Chain.from_urdf(URDF_DIR / 'urdfdom' / fname, 'base_link', 'tip')
    ref = load('planar2')
    q = np.array([0.3, -0.7])
    np.testing.assert_allclose(chain.fk(q), ref.fk(q))


def test_parsing_leaves_the_process_stderr_alone(monkeypatch):
    """Another thread's stderr output is never swallowed while a URDF is parsed."""
    import sys
    import threading

    class Recorder:
        def __init__(self):
            self.lines = []

        def write(self, text):
            self.lines.append(text)

        def flush(self):
            pass

    recorder = Recorder()
    monkeypatch.setattr(sys, 'stderr', recorder)
    done = threading.Event()

    def parse_many():
        for _ in range(30):
            Chain.from_urdf(URDF_DIR / 'urdfdom' / 'transmission_type.urdf', 'base_link',
                            'tip')
        done.set()

    worker = threading.Thread(target=parse_many)
    worker.start()
    written = 0
    while not done.is_set():
        sys.stderr.write('x')
        written += 1
    worker.join()
    assert recorder.lines.count('x') == written
