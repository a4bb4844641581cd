# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
r"""
``ik-web``: the live browser view of ik_node, served from Python with viser.

Examples::

    ik-web                                   # the bundled demo arm, http://127.0.0.1:8080
    ik-web --urdf arm.urdf --base base_link --tip tool0 --port 8090
    ik-web --urdf torso.urdf --tips left_hand,right_hand   # a gizmo per tip of a tree
    ik-web --fabrik                          # the point-chain FABRIK playground
    ik-web --host 0.0.0.0                    # serve on every interface (explicit opt-in)

The server listens on localhost only unless ``--host`` names another interface. A URDF that
cannot be loaded is reported in the terminal and on the page (the server keeps serving the
message), never as a blank page.
"""

import argparse
from dataclasses import dataclass
import math
import sys
import threading
from typing import Optional, Sequence, TYPE_CHECKING, Union

from ik_node import _jit
from ik_node.errors import IKError

if TYPE_CHECKING:   # viser is an optional dependency: imported when a view starts
    from ik_node.web.fabrik_view import FabrikPlayground
    from ik_node.web.ik_view import IKView
    from ik_node.web.tree_view import TreeView
    import viser

__all__ = ['main', 'start', 'WebApp']

DEFAULT_HOST = '127.0.0.1'
DEFAULT_PORT = 8080


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='ik-web', description='the live browser view of ik_node '
                                '(viser): an arm following a gizmo, or the FABRIK playground')
    p.add_argument('--urdf', help='URDF file (default: the bundled demo arm)')
    p.add_argument('--base', help='base link of the chain (default: the URDF root link)')
    p.add_argument('--tip',
                   help='tip link of the chain (default: the leaf with the most joints above)')
    p.add_argument('--tips',
                   help='several tip links of a tree, comma separated: a gizmo per tip, the '
                        'whole tree solved at once (as the node with tip_links)')
    p.add_argument('--fabrik', action='store_true',
                   help='open the point-chain FABRIK playground instead of the arm view')
    p.add_argument('--host', default=DEFAULT_HOST,
                   help=f'interface to listen on (default {DEFAULT_HOST}: this machine only; '
                        '0.0.0.0 serves every interface, so anyone who reaches this machine '
                        'can drive the view)')
    p.add_argument('--port', type=int, default=DEFAULT_PORT,
                   help=f'port (default {DEFAULT_PORT})')
    return p


@dataclass
class WebApp:
    """A running view: the viser server, the view on it (None after an error), the error."""

    server: 'viser.ViserServer'
    view: Optional[Union['IKView', 'FabrikPlayground', 'TreeView']]
    error: Optional[str]

    @property
    def url(self) -> str:
        """Return the page's address."""
        return f'http://{self.server.get_host()}:{self.server.get_port()}'

    def close(self) -> None:
        """Stop the view's worker and the server."""
        if self.view is not None:
            self.view.close()
        self.server.stop()


def show_error(server: 'viser.ViserServer', title: str, message: str) -> None:
    """Put an error on the page, in the panel and as a notification that stays."""
    server.gui.add_markdown(f'## ⚠ {title}\n\n```\n{message}\n```\n\n'
                            'Fix the input and start `ik-web` again.')

    def notify(client: 'viser.ClientHandle') -> None:
        client.add_notification(title, message, auto_close_seconds=None, color='red')
    server.on_client_connect(notify)


def start(urdf: Optional[str] = None, base: Optional[str] = None, tip: Optional[str] = None,
          fabrik: bool = False, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          verbose: bool = False, tips: Sequence[str] = ()) -> WebApp:
    """
    Start the server and the view; return at once (viser serves from its own thread).

    tips: several tip links of a tree (the tree view, :mod:`ik_node.web.tree_view`).

    A model that fails to load gives a WebApp with ``error`` set and the message on the page.
    """
    import viser
    server = viser.ViserServer(host=host, port=port, label='ik_node', verbose=verbose)
    if fabrik:
        from ik_node.web.fabrik_view import FabrikPlayground
        return WebApp(server, FabrikPlayground(server), None)
    from ik_node.web.ik_view import IKView
    from ik_node.web.robot import demo_arm_path, load_robot
    try:
        robot = load_robot(urdf or demo_arm_path(), base, tip, tips)
    except IKError as exc:
        show_error(server, 'Could not load the robot', str(exc))
        return WebApp(server, None, str(exc))
    if tips:
        from ik_node.web.tree_view import TreeView
        return WebApp(server, TreeView(server, robot), None)
    return WebApp(server, IKView(server, robot), None)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``ik-web`` until Ctrl-C; return its exit status (2: the robot did not load)."""
    args = _parser().parse_args(argv)
    try:
        import viser  # noqa: F401
    except ImportError:
        print('ik-web: error: viser is not installed; pip install "ik_node[web]"',
              file=sys.stderr)
        return 2
    tips = [t.strip() for t in args.tips.split(',') if t.strip()] if args.tips else []
    app = start(args.urdf, args.base, args.tip, args.fabrik, args.host, args.port, tips=tips)
    if app.error is not None:
        print(f'ik-web: error: {app.error}', file=sys.stderr)
        print(f'ik-web: the message is shown at {app.url} (Ctrl-C to stop)', file=sys.stderr)
    else:
        view = app.view
        for w in getattr(getattr(view, 'robot', None), 'warnings', []):
            print(f'ik-web: warning: {w}', file=sys.stderr)
        print(f'ik-web: serving {app.url} (Ctrl-C to stop)', file=sys.stderr)
    ready = getattr(app.view, 'ready', None)
    compiling = ready is not None and not ready.is_set() and not _jit.compiled()
    if compiling:
        print('ik-web: compiling the solver kernels, once after an install (about 1-2 minutes '
              'on 2 cores); the page shows the arm meanwhile', file=sys.stderr)
    try:
        if compiling and ready is not None:
            ready.wait()
            took = getattr(app.view, 'ready_in', math.nan)
            print(f'ik-web: solver kernels ready in {took:.0f} s: drag the target',
                  file=sys.stderr)
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        app.close()
    return 2 if app.error is not None else 0


if __name__ == '__main__':
    sys.exit(main())
