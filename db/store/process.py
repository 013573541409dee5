"""Whether a process on this machine still exists: how a run row, a lock
lease or an outbox claim left behind by a killed process is told apart from
one whose holder is still at work."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True unless no process `pid` exists here. A process we may not signal
    exists (PermissionError); our own pid is alive without asking."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
