# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""mypy on the package (mypy.ini), apart from test_lint so the two run on different workers."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.linter
def test_mypy():
    api = pytest.importorskip('mypy.api')
    out, err, rc = api.run(['--config-file', str(ROOT / 'mypy.ini'),
                            '--cache-dir', str(ROOT / '.mypy_cache'), str(ROOT / 'ik_node')])
    assert rc == 0, out + err
