# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""What the web tests share: a free local port and a condition wait with a deadline."""

import socket
import time
from typing import Callable


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait_until(predicate: Callable[[], object], timeout: float = 20.0) -> bool:
    """Poll ``predicate`` every 20 ms until it is true (True) or ``timeout`` s pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False
