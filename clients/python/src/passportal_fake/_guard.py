"""Runs the fake's command and ends it when the process that started it ends, however it ends.

``python -I _guard.py [--grace SECONDS] [--parent PID] -- COMMAND...`` is what ``PassportalFake``
starts in place of the command. The command runs as this process's child, in a process group of
its own, with this process's output. This process watches two things:

- its standard input, a pipe the launcher holds open and never writes: the kernel closes it when
  the launcher's process ends (a teardown, SIGTERM, SIGHUP, SIGKILL, a crash);
- with ``--parent``, on Linux, the parent's death signal (``PR_SET_PDEATHSIG``), in case a forked
  process holds the pipe's other end open too.

Then, or on SIGTERM or SIGHUP, it sends SIGTERM to the command's group (the fake drains and
exits), SIGKILL after ``--grace`` seconds to whatever of the group is left, and exits. When the
command ends by itself, this process exits with its status. Standard library only; it is run by
path, not imported.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any, List, Optional, Tuple

PR_SET_PDEATHSIG = 1


def _parse(argv: List[str]) -> Tuple[float, Optional[int], List[str]]:
    grace, parent = 5.0, None
    while argv and argv[0] != "--":
        flag, value = argv[0], argv[1] if len(argv) > 1 else ""
        if flag == "--grace":
            grace = float(value)
        elif flag == "--parent":
            parent = int(value)
        else:
            raise SystemExit(f"passportal guard: unknown option {flag}")
        argv = argv[2:]
    return grace, parent, argv[1:]


def _die_with_parent(parent: int) -> None:
    """SIGTERM to this process when the thread that started it ends (Linux only)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os.kill(os.getpid(), signal.SIGTERM)


def _child_dies_with_this() -> None:
    """In the command's process before it runs: SIGTERM to it should this process end first
    (Linux; this process has no other thread yet, so the call is safe here)."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _start(command: List[str]) -> "subprocess.Popen[bytes]":
    if sys.platform == "win32":
        return subprocess.Popen(command, stdin=subprocess.DEVNULL, creationflags=subprocess.CREATE_NEW_PROCESS_GROUP)
    linux = sys.platform.startswith("linux")
    return subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=_child_dies_with_this if linux else None,
    )


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _end(child: "subprocess.Popen[bytes]", grace: float) -> None:
    """SIGTERM to the command's group, SIGKILL to what is left of it after ``grace`` seconds."""
    if sys.platform == "win32":
        if child.poll() is None:
            subprocess.run(["taskkill", "/T", "/F", "/PID", str(child.pid)], capture_output=True, check=False)
        child.wait()
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if child.poll() is not None and not _group_alive(child.pid):
                return
            time.sleep(0.05)
    child.poll()


def main(argv: List[str]) -> int:
    grace, parent, command = _parse(argv)
    if not command:
        raise SystemExit("passportal guard: no command after --")
    if parent is not None:
        _die_with_parent(parent)
    ending = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        ending.set()

    signal.signal(signal.SIGTERM, on_signal)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, on_signal)
    try:
        child = _start(command)
    except OSError as error:
        print(f"cannot run {command[0]}: {error}", file=sys.stderr, flush=True)
        return 127

    def watch_input() -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        ending.set()

    threading.Thread(target=watch_input, name="lifeline", daemon=True).start()
    while not ending.wait(0.2):
        code = child.poll()
        if code is not None:
            if sys.platform != "win32" and _group_alive(child.pid):
                _end(child, grace)  # what the command left running
            return code if code >= 0 else 128 - code
    _end(child, grace)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
