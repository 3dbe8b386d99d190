"""``PassportalFake``: a running fake for a test run, as a context manager.

Where the fake comes from, first match wins:

1. ``url=`` or ``PASSPORTAL_FAKE_URL``: a fake already running (a CI service, ``npm start``);
   nothing is started or stopped.
2. ``image=`` or ``PASSPORTAL_FAKE_IMAGE``: the image, run through Docker or Podman
   (``DOCKER_HOST`` honoured) on a free port.
3. ``command=`` or ``PASSPORTAL_FAKE_COMMAND`` (a command line), else ``node dist/start.js`` of the
   checkout in ``PASSPORTAL_FAKE_CHECKOUT``, or of a checkout or ``node_modules/passportal-docs-fake``
   in the current folder or above it: started on ``--port 0``, its URL read from its own first log
   line (``--log-format json`` asked for). Nothing is ever fetched from a registry, and a start file
   found by looking is run only when every folder on its path, and the file, belong to the user
   (or root) and no other user can write them.

The command runs under a guard (``_guard.py``) that ends it when this process ends, however it
ends. It waits for ``/__admin/health``; a start that fails raises ``StartError`` with the fake's
own output; on exit it stops only what it started.

It says which fake it picked: ``source`` (``"url"``, ``"image"``, ``"command"``, ``"npm-package"``
or ``"checkout"``) and ``picked`` (what, in words: the URL, the image, the command line, or the
package's version and folder) on the object, and the same in an INFO line of the
``passportal_fake`` logger when it starts (pytest shows it with the test's captured log, or live
with ``--log-cli-level=INFO``).
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import shutil
import signal
import ssl
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import deque
from pathlib import Path
from typing import Any, Deque, Dict, List, Mapping, Optional, Sequence, Union

from .admin import AdminClient, Session
from .container import API_PORT, HTTPS_PORT, Engine
from .errors import StartError
from .transport import send

PACKAGE_NAME = "passportal-docs-fake"

log = logging.getLogger("passportal_fake")


class PassportalFake:
    """A fake to test against: ``url`` (HTTP, also the proxy), ``https_url`` and ``ca_path`` (with
    ``https=True``), ``admin`` (an ``AdminClient`` of the root).

    ``fixtures``: a fixture file or folder for a fake this starts (for one already running, load
    them with ``admin.load_fixtures``). ``env``: more environment variables for the fake
    (``TOKEN_TTL_SECONDS``...). ``admin_token``: the ``ADMIN_TOKEN`` (set on a fake this starts).
    """

    def __init__(
        self,
        url: Optional[str] = None,
        image: Optional[str] = None,
        command: Optional[Union[str, Sequence[str]]] = None,
        https: bool = False,
        fixtures: Optional[Union[str, Path]] = None,
        env: Optional[Mapping[str, str]] = None,
        admin_token: Optional[str] = None,
        start_timeout: float = 60.0,
    ) -> None:
        self._url = url or os.environ.get("PASSPORTAL_FAKE_URL") or None
        self._image = image or os.environ.get("PASSPORTAL_FAKE_IMAGE") or None
        env_command = os.environ.get("PASSPORTAL_FAKE_COMMAND")
        self._command = command if command is not None else (shlex.split(env_command) if env_command else None)
        self._command_from_env = command is None and self._command is not None
        self.https = https
        self._fixtures = str(fixtures) if fixtures is not None else None
        self._env = dict(env or {})
        self._admin_token = admin_token or os.environ.get("PASSPORTAL_FAKE_ADMIN_TOKEN") or None
        self._start_timeout = start_timeout
        self.url = ""
        self.https_url: Optional[str] = None
        self.ca_path: Optional[str] = None
        self.mode = ""
        #: Which fake was picked: "url", "image", "command" (given), "npm-package" or "checkout".
        self.source = ""
        #: The fake picked, in words: the URL, the image, the command line, or the package's version
        #: and folder (also logged at INFO by the ``passportal_fake`` logger on start).
        self.picked = ""
        #: The image or the command line this object starts the fake with (``mode``).
        self.image: Optional[str] = self._image
        self.command: List[str] = []
        self._process: Optional[subprocess.Popen[bytes]] = None
        # The guard's standard input, held open and never written: it closes when this process ends.
        self._lifeline: Optional[Any] = None
        self._output: Deque[str] = deque(maxlen=400)
        # The thread reading the command's output: it ends at the end of that output.
        self._reader: Optional[threading.Thread] = None
        self._engine: Optional[Engine] = None
        self._container: Optional[str] = None
        # The guard that removes the container should this process end without stop().
        self._container_guard: Optional[subprocess.Popen[bytes]] = None
        self._temp: Optional[tempfile.TemporaryDirectory[str]] = None
        self._admin: Optional[AdminClient] = None

    # --- what a suite uses ---------------------------------------------------------------------

    @property
    def admin(self) -> AdminClient:
        """The admin client of the root instance."""
        if self._admin is None:
            raise RuntimeError("PassportalFake is not started: use it in a `with` block or call start()")
        return self._admin

    @property
    def started_here(self) -> bool:
        """Whether this object started the fake (and so stops it)."""
        return self._process is not None or self._container is not None

    def proxy_url(self, session: Optional[Union[Session, str]] = None) -> str:
        """``HTTPS_PROXY`` for a client pinned to the vendor's host names; with a session, the
        session as proxy user (``http://<id>:x@host:port``), so its requests land in that session."""
        parts = urllib.parse.urlsplit(self.url)
        if session is None:
            return f"{parts.scheme}://{parts.netloc}"
        session_id = session.id if isinstance(session, Session) else str(session)
        return f"{parts.scheme}://{urllib.parse.quote(session_id, safe='')}:x@{parts.netloc}"

    def ssl_context(self) -> ssl.SSLContext:
        """An SSL context trusting the fake's CA (``https=True``)."""
        if not self.ca_path:
            raise RuntimeError("the fake's CA is known with https=True only")
        return ssl.create_default_context(cafile=self.ca_path)

    def client_env(self, session: Optional[Union[Session, str]] = None) -> Dict[str, str]:
        """The variables a Python client needs to reach the vendor's hosts through the fake:
        ``HTTPS_PROXY``, and with ``https=True`` ``SSL_CERT_FILE`` and ``REQUESTS_CA_BUNDLE``."""
        env = {"HTTPS_PROXY": self.proxy_url(session), "NO_PROXY": ""}
        if self.ca_path:
            env.update(SSL_CERT_FILE=self.ca_path, REQUESTS_CA_BUNDLE=self.ca_path)
        return env

    # --- start and stop -----------------------------------------------------------------------

    def __enter__(self) -> "PassportalFake":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> "PassportalFake":
        try:
            if self._url:
                self.mode = self.source = "url"
                self.url = self._url.rstrip("/")
                self.picked = f"the running fake at {self.url}"
                self._say_picked()
                self._wait_for_health(self.url)
            elif self._image:
                self.mode = self.source = "image"
                self.picked = f"the image {self._image}"
                self._say_picked()
                self._start_container(self._image)
            else:
                self.mode = "command"
                self.command = self._resolve_command()
                self._say_picked()
                self._start_command(self.command)
            self._admin = AdminClient(self.url, self._admin_token)
            if self.https and not self.ca_path:
                self._fetch_ca()
        except BaseException:
            self.stop()
            raise
        return self

    def _say_picked(self) -> None:
        log.info("passportal-docs-fake: using %s", self.picked)

    def stop(self) -> None:
        """Stops what this object started (the process or the container); idempotent."""
        process, self._process = self._process, None
        lifeline, self._lifeline = self._lifeline, None
        if lifeline is not None:
            lifeline.close()  # the guard ends the fake (SIGTERM, then SIGKILL after its grace)
        if process is not None:
            try:
                process.wait(timeout=GUARD_GRACE * 2 + 5)
            except subprocess.TimeoutExpired:
                pass
            _end_group(process)
        if process is not None and process.stdout is not None:
            process.stdout.close()
        container, self._container = self._container, None
        if container is not None and self._engine is not None:
            self._engine.remove(container)
        guard, self._container_guard = self._container_guard, None
        if guard is not None:
            assert guard.stdin is not None
            guard.stdin.close()  # the container is gone: the guard finds nothing left to remove
            try:
                guard.wait(timeout=30)
            except subprocess.TimeoutExpired:
                guard.kill()
                guard.wait()
        temp, self._temp = self._temp, None
        if temp is not None:
            temp.cleanup()

    # --- the npm command ----------------------------------------------------------------------

    def _resolve_command(self) -> List[str]:
        if self._command is not None:
            command = list(shlex.split(self._command) if isinstance(self._command, str) else self._command)
            given = "PASSPORTAL_FAKE_COMMAND" if self._command_from_env else "command="
            self.source = "command"
            self.picked = f"the command {shlex.join(command)} ({given})"
            return command
        checkout = os.environ.get("PASSPORTAL_FAKE_CHECKOUT")
        roots = [Path(checkout).absolute()] if checkout else [Path.cwd(), *Path.cwd().parents]
        for root in roots:
            # A checkout of the fake, or a project that installed it: its start file run by node
            # directly, so no npm process stands between this object and the fake.
            for package in (root, root / "node_modules" / PACKAGE_NAME):
                start = package / "dist" / "start.js"
                if start.is_file() and _is_the_package(package / "package.json"):
                    unsafe = _unsafe_to_run(package)
                    if unsafe is not None:
                        raise StartError(
                            f"not running {start}: {unsafe}, so another user could change what runs. Make it "
                            "yours and writable by you alone (chown, chmod go-w), or name the command to run "
                            "deliberately with PASSPORTAL_FAKE_COMMAND"
                        )
                    installed = package != root
                    self.source = "npm-package" if installed else "checkout"
                    version = _version_of(package / "package.json")
                    self.picked = (
                        f"the npm package {PACKAGE_NAME} {version} installed in {package}"
                        if installed
                        else f"the checkout of {PACKAGE_NAME} {version} in {package}"
                    )
                    return [shutil.which("node") or "node", str(start)]
        if checkout:
            raise StartError(
                f"PASSPORTAL_FAKE_CHECKOUT={checkout} holds no built fake (dist/start.js): run npm ci there"
            )
        raise StartError(
            f"cannot start the fake: no {PACKAGE_NAME} is installed here (no built dist/start.js in "
            f"node_modules/{PACKAGE_NAME} or a checkout of it, in {Path.cwd()} or a folder above), and "
            "nothing is fetched from a registry. Install it in the project (npm install --save-dev with "
            "its package file or repository), or set PASSPORTAL_FAKE_CHECKOUT to a checkout where npm ci "
            "ran, PASSPORTAL_FAKE_COMMAND to the command that starts it, PASSPORTAL_FAKE_IMAGE "
            "(--passportal-image) to its image, or PASSPORTAL_FAKE_URL (--passportal-url) to a running fake"
        )

    def _start_command(self, command: List[str]) -> None:
        # The URL is read from the fake's JSON log lines: ask for them (a config file or
        # LOG_FORMAT may say pretty; a flag wins over both).
        args = [*command, "--port", "0", "--host", "127.0.0.1", "--log-format", "json"]
        if self.https:
            self._temp = tempfile.TemporaryDirectory(prefix="passportal-fake-")
            args += ["--https-port", "0", "--tls-dir", self._temp.name]
        if self._fixtures:
            args += ["--fixtures", self._fixtures]
        env = {**os.environ, "LOG_LEVEL": "info", **self._env}
        if self._admin_token:
            env["ADMIN_TOKEN"] = self._admin_token
        for name in ("PORT", "HTTPS_PORT", "HOST", "LOG_FORMAT"):
            env.pop(name, None)
        guard = [sys.executable, "-I", str(Path(__file__).with_name("_guard.py")), "--grace", f"{GUARD_GRACE:g}"]
        if threading.current_thread() is threading.main_thread():
            # The parent-death signal follows the thread that starts the guard: only the main one
            # lives as long as this process.
            guard += ["--parent", str(os.getpid())]
        try:
            # The guard and the command each in a group of their own: a signal to this process's
            # group reaches neither; the guard ends the command's whole group when this process ends.
            self._process = subprocess.Popen(
                [*guard, "--", *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=sys.platform != "win32",
                creationflags=_GROUP_FLAGS,
            )
        except OSError as error:
            raise StartError(f"cannot run {shlex.join(args)}: {error}") from error
        self._lifeline = self._process.stdin
        found: Dict[str, str] = {}
        ready = threading.Event()
        process = self._process

        def read() -> None:
            assert process.stdout is not None
            for raw in process.stdout:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                self._output.append(line)
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict):
                    for key in ("url", "httpsUrl", "caCert"):
                        if isinstance(entry.get(key), str):
                            found.setdefault(key, entry[key])
                    if "url" in found and (not self.https or "httpsUrl" in found):
                        ready.set()
            ready.set()

        self._reader = threading.Thread(target=read, name="passportal-fake-output", daemon=True)
        self._reader.start()
        if not ready.wait(self._start_timeout) or "url" not in found or (self.https and "httpsUrl" not in found):
            code = process.poll()
            why = f"exited with status {code}" if code is not None else f"did not start in {self._start_timeout:g} s"
            raise StartError(f"the fake ({shlex.join(args)}) {why}; its output:\n{self._tail()}")
        self.url = found["url"].rstrip("/")
        self.https_url = found.get("httpsUrl")
        self.ca_path = found.get("caCert")
        self._wait_for_health(self.url)

    # --- the image ----------------------------------------------------------------------------

    def _start_container(self, image: str) -> None:
        self._engine = Engine()
        env = {"LOG_LEVEL": "info", **self._env}
        if self._admin_token:
            env["ADMIN_TOKEN"] = self._admin_token
        ports = [API_PORT, HTTPS_PORT] if self.https else [API_PORT]
        labels = {CONTAINER_LABEL: str(os.getpid())}
        self._container = self._engine.run(image, env, ports, labels, created=self._guard_container)
        deadline = time.monotonic() + self._start_timeout
        port = None
        while port is None:
            port = self._engine.host_port(self._container, API_PORT)
            if port is None:
                self._container_failed_unless_running(image)
                if time.monotonic() > deadline:
                    raise StartError(f"the container of {image} published no port for {API_PORT}")
                time.sleep(0.2)
        host = self._engine.published_host
        self.url = f"http://{host}:{port}"
        if self.https:
            https_port = self._engine.host_port(self._container, HTTPS_PORT)
            self.https_url = f"https://{host}:{https_port}" if https_port else None
        self._wait_for_health(self.url, deadline, image)

    def _guard_container(self, container: str) -> None:
        """Starts the guard that stops and removes the container when this process ends, however
        it ends (its standard input a pipe this object holds open, as for the npm command)."""
        assert self._engine is not None
        guard = [sys.executable, "-I", str(Path(__file__).with_name("_guard.py")), "--grace", f"{GUARD_GRACE:g}"]
        if threading.current_thread() is threading.main_thread():
            guard += ["--parent", str(os.getpid())]
        guard += ["--container", container, "--engine", self._engine.url]
        try:
            self._container_guard = subprocess.Popen(
                guard,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                start_new_session=sys.platform != "win32",
                creationflags=_GROUP_FLAGS,
            )
        except OSError as error:
            raise StartError(f"cannot start the guard of the container ({shlex.join(guard)}): {error}") from error

    def _container_failed_unless_running(self, image: str) -> None:
        if self._engine is not None and self._container is not None and not self._engine.running(self._container):
            logs = self._engine.logs(self._container)
            raise StartError(f"the container of {image} stopped; its output:\n{logs.strip()}")

    # --- shared -------------------------------------------------------------------------------

    def _wait_for_health(self, url: str, deadline: Optional[float] = None, image: Optional[str] = None) -> None:
        deadline = deadline if deadline is not None else time.monotonic() + self._start_timeout
        last = ""
        while True:
            try:
                status, _, body = send("GET", f"{url}/__admin/health", timeout=5)
                if status == 200:
                    return
                last = f"answered {status}: {body[:300].decode('utf-8', 'replace')}"
            except OSError as error:
                last = str(error)
            if self._process is not None and self._process.poll() is not None:
                raise StartError(f"the fake exited with status {self._process.returncode}; its output:\n{self._tail()}")
            if image is not None:
                self._container_failed_unless_running(image)
            if time.monotonic() > deadline:
                where = "" if self.mode != "url" else " (PASSPORTAL_FAKE_URL / --passportal-url)"
                output = f"; its output:\n{self._tail()}" if self._output else ""
                raise StartError(f"no healthy fake at {url}{where}: {last}{output}")
            time.sleep(0.2)

    def _fetch_ca(self) -> None:
        status, _, body = send("GET", f"{self.url}/__admin/tls/ca.pem", timeout=10)
        if status != 200:
            raise StartError(
                f"the fake at {self.url} serves no CA (GET /__admin/tls/ca.pem answered {status}): "
                "start it with HTTPS on"
            )
        if self._temp is None:
            self._temp = tempfile.TemporaryDirectory(prefix="passportal-fake-")
        path = Path(self._temp.name) / "ca.pem"
        path.write_bytes(body)
        self.ca_path = str(path)

    def _tail(self) -> str:
        # An exited command's last lines: the reader ends once it has read them all (the guard
        # ends the command's group, so nothing else holds the pipe open for long).
        if self._reader is not None and self._process is not None and self._process.poll() is not None:
            self._reader.join(timeout=5)
        return "\n".join(self._output) or "(nothing)"


#: Seconds the fake gets to drain after SIGTERM before the guard sends SIGKILL.
GUARD_GRACE = 5.0

#: The label of a container the launcher started: the id of the process that started it.
CONTAINER_LABEL = "io.passportal-docs-fake.started-by-pid"

# How the guard is started: in a process group of its own, which `_end_group` ends whole should
# the guard not end by itself (a new session on POSIX; on Windows a new process group, its tree
# ended by taskkill).
if sys.platform == "win32":
    _GROUP_FLAGS: int = subprocess.CREATE_NEW_PROCESS_GROUP
else:
    _GROUP_FLAGS = 0


def _end_group(process: "subprocess.Popen[bytes]") -> None:
    """Ends the started process and every process it started: SIGTERM to its group (the fake
    drains and exits), SIGKILL after 10 s; on Windows, taskkill of its process tree."""
    if sys.platform == "win32":
        if process.poll() is None:
            subprocess.run(
                ["taskkill", "/T", "/F", "/PID", str(process.pid)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
        process.wait(timeout=10)
        return
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and _group_alive(process.pid):
            if process.poll() is None:
                try:
                    process.wait(timeout=0.05)
                except subprocess.TimeoutExpired:
                    pass
            else:
                time.sleep(0.05)
        if not _group_alive(process.pid):
            break
    if process.poll() is None:
        process.wait(timeout=10)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _unsafe_to_run(package: Path) -> Optional[str]:
    """Why the fake's start files in ``package`` are not safe to run (``None``: they are): a folder
    on their path, or one of the files, that a user other than this one (or root) owns, or that
    another user can write. A folder others can write is fine when it has the sticky bit (``/tmp``):
    there only an entry's owner may replace it, and the entry is checked next. A group that is the
    owner's own (named after it, no other member) may write. Symbolic links are followed and both
    paths checked. POSIX only (``None`` on Windows)."""
    if sys.platform == "win32":
        return None
    files = [package / "package.json", package / "dist" / "start.js"]
    built = [package / "dist" / name for name in ("compile-cache.js", "bundle/fake.cjs")]
    files += [path for path in built if path.exists()]
    seen = set()
    for file in files:
        for path in (Path(os.path.abspath(file)), Path(os.path.realpath(file))):
            current = Path(path.anchor)
            for part in ("", *path.parts[1:]):
                current = current / part if part else current
                if current in seen:
                    continue
                seen.add(current)
                reason = _unsafe_entry(current)
                if reason is not None:
                    return reason
    return None


def _unsafe_entry(path: Path) -> Optional[str]:
    try:
        st = os.lstat(path)
    except OSError as error:
        return f"{path} cannot be checked ({error.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return None  # the folder holding it is checked, and so is where it points
    uid = os.getuid()
    if st.st_uid not in (uid, 0):
        return f"{path} belongs to another user (uid {st.st_uid})"
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISDIR(st.st_mode) and mode & stat.S_ISVTX:
        return None
    if mode & stat.S_IWOTH:
        return f"any user can write {path} (mode {mode:o})"
    if mode & stat.S_IWGRP and not _own_group(st.st_gid, st.st_uid):
        return f"the group of {path} can write it (mode {mode:o}, gid {st.st_gid})"
    return None


def _own_group(gid: int, owner: int) -> bool:
    """Whether group ``gid`` is the owner's own: named after it, with no other member."""
    import grp
    import pwd

    try:
        group = grp.getgrgid(gid)
        name = pwd.getpwuid(owner).pw_name
    except KeyError:
        return False
    return group.gr_name == name and set(group.gr_mem) <= {name}


def _version_of(package_json: Path) -> str:
    try:
        return str(json.loads(package_json.read_text("utf-8")).get("version") or "(no version)")
    except (OSError, ValueError):
        return "(no version)"


def _is_the_package(package_json: Path) -> bool:
    try:
        return bool(json.loads(package_json.read_text("utf-8")).get("name") == PACKAGE_NAME)
    except (OSError, ValueError):
        return False
