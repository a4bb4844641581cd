# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
List functions with more than 8 parameters or more than 80 lines (issue 29's limits).

    python scripts/code_size.py [folder ...]     # default: ik_node/solvers

Prints ``path:line name params=P lines=L [kernel]`` per function over a limit (``kernel``:
decorated with one of ik_node._jit's njit wrappers); ``self`` does not count. Exit status 0.
"""

import ast
from pathlib import Path
import sys

MAX_PARAMETERS = 8
MAX_LINES = 80


def oversized(path: Path) -> list:
    """Return (line, name, parameters, lines, kernel) of each function of ``path`` over a limit."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        a = node.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        count = len(names) + bool(a.vararg) + bool(a.kwarg) - (names[:1] == ['self'])
        lines = (node.end_lineno or node.lineno) - node.lineno + 1
        kernel = any(isinstance(d, ast.Name) and d.id.startswith('njit')
                     for d in node.decorator_list)
        if count > MAX_PARAMETERS or lines > MAX_LINES:
            found.append((node.lineno, node.name, count, lines, kernel))
    return found


def main(argv: list) -> int:
    """Print the oversized functions of the folders in ``argv``."""
    root = Path(__file__).resolve().parent.parent
    for folder in argv or ['ik_node/solvers']:
        for path in sorted((root / folder).rglob('*.py')):
            for line, name, count, lines, kernel in oversized(path):
                print(f'{path.relative_to(root)}:{line} {name} params={count} lines={lines}'
                      + (' kernel' if kernel else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
