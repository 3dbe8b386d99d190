"""Ends the fake when the process that started it ends, however it ends: its command, or its container.

``python -I _guard.py [--grace SECONDS] [--parent PID] -- COMMAND...`` is what ``PassportalFake``
starts in place of the command. The command runs as this process's child, in a process group of
its own, with this process's output.

``python -I _guard.py [--parent PID] --container ID --engine unix:///PATH|tcp://HOST:PORT`` is
started beside a container of the image: it runs nothing, and when the launcher's process ends it
stops and removes the container through the engine's API (as ``docker rm -f`` does).

This process watches two things:

- its standard input, a pipe the launcher holds open and never writes: the kernel closes it when
  the launcher's process ends (a teardown, SIGTERM, SIGHUP, SIGKILL, a crash);
- with ``--parent``, on Linux, the parent's death signal (``PR_SET_PDEATHSIG``), in case a forked
  process holds the pipe's other end open too.

Then, or on SIGTERM or SIGHUP, it sends SIGTERM to the command's group (the fake drains and
exits), SIGKILL after ``--grace`` seconds to whatever of the group is left, and exits; or it
removes the container. When the
command ends by itself, this process exits with its status. Standard library only; it is run by
path, not imported.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any, List, NamedTuple, Optional

PR_SET_PDEATHSIG = 1


class Options(NamedTuple):
    grace: float
    parent: Optional[int]
    container: Optional[str]
    engine: Optional[str]
    command: List[str]


def _parse(argv: List[str]) -> Options:
    grace, parent, container, engine = 5.0, None, None, None
    while argv and argv[0] != "--":
        flag, value = argv[0], argv[1] if len(argv) > 1 else ""
        if flag == "--grace":
            grace = float(value)
        elif flag == "--parent":
            parent = int(value)
        elif flag == "--container":
            container = value
        elif flag == "--engine":
            engine = value
        else:
            raise SystemExit(f"passportal guard: unknown option {flag}")
        argv = argv[2:]
    return Options(grace, parent, container, engine, argv[1:])


def _engine_call(engine: str, method: str, path: str) -> None:
    """One call of the Docker Engine API (Docker or Podman) at ``unix:///path`` or ``tcp://host:port``."""
    kind, _, address = engine.partition("://")
    if kind == "unix":
        connection = http.client.HTTPConnection("localhost", timeout=30)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect(address)
        connection.sock = sock
    else:
        host, _, port = address.rstrip("/").partition(":")
        connection = http.client.HTTPConnection(host, int(port or 2375), timeout=30)
    try:
        connection.request(method, path)
        connection.getresponse().read()
    finally:
        connection.close()


def _remove_container(engine: str, container: str, grace: float) -> None:
    """Stops the container (SIGTERM, SIGKILL after ``grace`` seconds) and removes it; a container
    already gone is fine."""
    for method, path in (
        ("POST", f"/containers/{container}/stop?t={int(grace)}"),
        ("DELETE", f"/containers/{container}?force=1&v=1"),
    ):
        try:
            _engine_call(engine, method, path)
        except OSError as error:
            print(f"passportal guard: {method} {path}: {error}", file=sys.stderr, flush=True)


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
    grace, parent, container, engine, command = _parse(argv)
    if container is not None and engine is None:
        raise SystemExit("passportal guard: --container needs --engine")
    if not command and container is None:
        raise SystemExit("passportal guard: no command after --")
    if parent is not None:
        _die_with_parent(parent)
    ending = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        ending.set()

    signal.signal(signal.SIGTERM, on_signal)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, on_signal)

    def watch_input() -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        ending.set()

    if container is not None and engine is not None:
        threading.Thread(target=watch_input, name="lifeline", daemon=True).start()
        while not ending.wait(0.5):
            pass
        _remove_container(engine, container, grace)
        return 0
    try:
        child = _start(command)
    except OSError as error:
        print(f"cannot run {command[0]}: {error}", file=sys.stderr, flush=True)
        return 127

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
