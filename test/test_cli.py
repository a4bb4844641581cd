# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The ik-solve command: JSON answer, exit codes, and clear messages for bad input."""

import json
import subprocess
import sys

from conftest import load, URDF_DIR
from ik_node.cli import main
import numpy as np

PANDA = ['--urdf', str(URDF_DIR / 'panda.urdf'), '--base', 'panda_link0', '--tip',
         'panda_link8']


def test_pose_target_prints_joint_values_that_reach_it(capsys):
    rc = main(PANDA + ['--xyz', '0.4', '0.1', '0.4', '--quat', '1', '0', '0', '0'])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out['success'] is True
    chain = load('panda')
    q = np.array([out['joints'][name] for name in chain.joint_names])
    T = chain.fk(q)
    # The library's tolerances unless told otherwise (10 um, 1e-4 rad), checked by FK.
    np.testing.assert_allclose(T[:3, 3], [0.4, 0.1, 0.4], atol=1e-5)
    assert out['position_error'] <= 1e-5 and out['orientation_error'] <= 1e-4
    assert out['status'] == 'reached'


def test_tolerances_given_are_used(capsys):
    runs = []
    for extra in ([], ['--position-tolerance', '0.01']):
        rc = main(PANDA + ['--xyz', '0.3', '-0.2', '0.5', '--method', 'fabrik'] + extra)
        runs.append(json.loads(capsys.readouterr().out))
        assert rc == 0
    strict, loose = runs
    assert strict['position_error'] <= 1e-5 < loose['position_error'] <= 0.01
    assert loose['iterations'] < strict['iterations']


def test_position_target_and_method_choice(capsys):
    rc = main(PANDA + ['--xyz', '0.3', '-0.2', '0.5', '--method', 'fabrik'])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out['method'] == 'fabrik' and out['orientation_error'] is None


def test_unreachable_target_exits_1_with_the_best_attempt(capsys):
    rc = main(PANDA + ['--xyz', '3', '0', '0'])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out['success'] is False and out['status'] == 'out_of_reach'
    assert 'out of reach' in out['message']


def test_bad_input_exits_2_with_a_message(capsys):
    assert main(PANDA[:4] + ['--tip', 'nope', '--xyz', '0', '0', '0']) == 2
    assert "tip_link 'nope' is not a link" in capsys.readouterr().err
    assert main(PANDA + ['--xyz', '0.4', '0', '0.4', '--quat', '0', '0', '0', '0']) == 2
    assert 'quaternion' in capsys.readouterr().err
    assert main(PANDA + ['--xyz', '0.4', '0', '0.4', '--method', 'magic']) == 2
    assert 'unknown method' in capsys.readouterr().err
    assert main(PANDA + ['--xyz', '0.4', '0', '0.4', '--seed', '0', '0']) == 2
    assert 'q0' in capsys.readouterr().err


def test_console_script_runs_as_a_process():
    proc = subprocess.run([sys.executable, '-m', 'ik_node.cli'] + PANDA
                          + ['--xyz', '0.4', '0.1', '0.4'], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)['success'] is True
