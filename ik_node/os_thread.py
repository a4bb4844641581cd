# Copyright 2026 ik_node maintainers
# Licensed under the Apache License, Version 2.0
"""The calling thread's name as the system shows it (top -H, /proc/<pid>/task/*/comm)."""

import ctypes

__all__ = ['name_os_thread']

# prctl's option that names the calling thread (Linux).
_PR_SET_NAME = 15


def name_os_thread(name: str) -> None:
    """
    Give the calling thread ``name`` (15 bytes at most) where the system shows threads.

    A thread otherwise shows its creator's name: the goal search, started from the control
    thread, would show as the control thread.
    """
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_NAME, name.encode()[:15], 0, 0, 0)
    except (OSError, AttributeError):
        pass        # not Linux: the name is cosmetic
