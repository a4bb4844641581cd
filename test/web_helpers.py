# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""
What the web tests share: a free local port, a condition wait with a deadline, the browser.

The browser is Debian's chromium (:data:`CHROMIUM`, None without it), headless, its WebGL in
software (SwiftShader).
"""

import os
import shutil
import socket
import time
from typing import Any, Callable

CHROMIUM = next((p for p in (shutil.which('chromium'), '/usr/lib/chromium/chromium')
                 if p and os.path.exists(p)), None)


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


def launch_chromium(playwright: Any) -> Any:
    """Launch the system chromium headless through ``playwright``, WebGL in software."""
    return playwright.chromium.launch(
        executable_path=CHROMIUM, args=['--use-angle=swiftshader', '--enable-unsafe-swiftshader'])


def open_page(browser: Any, width: int = 800, height: int = 560) -> Any:
    """Return a new page of ``browser`` at that viewport (small pages render faster)."""
    return browser.new_page(viewport={'width': width, 'height': height})
