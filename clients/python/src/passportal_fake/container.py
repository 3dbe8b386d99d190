"""The fake's image run through the Docker Engine API (Docker, or Podman's compatible service),
spoken with the standard library over the engine's socket: no ``docker`` command or SDK needed.

The engine is ``DOCKER_HOST`` (``unix:///path`` or ``tcp://host:port``), else the first socket
found of ``/var/run/docker.sock``, ``$XDG_RUNTIME_DIR/podman/podman.sock``,
``/run/podman/podman.sock``.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from .errors import StartError

API_PORT = 4010
HTTPS_PORT = 4443


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


def find_engine() -> Tuple[str, str]:
    """(``unix`` and a socket path, or ``tcp`` and ``host:port``) of the engine to use."""
    host = os.environ.get("DOCKER_HOST", "")
    if host.startswith("unix://"):
        return "unix", host[len("unix://"):]
    if host.startswith("tcp://"):
        return "tcp", host[len("tcp://"):].rstrip("/")
    if host:
        raise StartError(f"DOCKER_HOST={host} is not unix:// or tcp://; passportal_fake speaks to those only")
    candidates = ["/var/run/docker.sock", "/run/podman/podman.sock"]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        candidates.insert(1, os.path.join(runtime, "podman", "podman.sock"))
    for path in candidates:
        if os.path.exists(path):
            return "unix", path
    raise StartError(
        "no container engine found: set DOCKER_HOST (e.g. unix:///run/podman/podman.sock) or start "
        "Docker; or give the fake's URL (PASSPORTAL_FAKE_URL) or let it start with the npm command"
    )


class Engine:
    """A few calls of the Docker Engine API."""

    def __init__(self, timeout: float = 60.0) -> None:
        self.kind, self.address = find_engine()
        self.timeout = timeout

    @property
    def url(self) -> str:
        """The engine as ``DOCKER_HOST`` names it: ``unix:///path`` or ``tcp://host:port``."""
        return f"{self.kind}://{self.address}"

    @property
    def published_host(self) -> str:
        """Where a port the engine publishes is reached."""
        if self.kind == "tcp":
            return self.address.rsplit(":", 1)[0] or "127.0.0.1"
        return "127.0.0.1"

    def _connection(self) -> http.client.HTTPConnection:
        if self.kind == "unix":
            return _UnixConnection(self.address, self.timeout)
        host, _, port = self.address.partition(":")
        return http.client.HTTPConnection(host, int(port or 2375), timeout=self.timeout)

    def call(self, method: str, path: str, body: Any = None) -> Tuple[int, bytes]:
        connection = self._connection()
        try:
            headers = {"content-type": "application/json"} if body is not None else {}
            data = json.dumps(body).encode("utf-8") if body is not None else None
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            return response.status, response.read()
        except OSError as error:
            raise StartError(f"the container engine at {self.kind}://{self.address} did not answer: {error}") from error
        finally:
            connection.close()

    def json_call(self, method: str, path: str, body: Any = None) -> Any:
        status, data = self.call(method, path, body)
        if status >= 400:
            raise StartError(f"container engine: {method} {path} answered {status}: {_engine_message(data)}")
        return json.loads(data.decode("utf-8")) if data else None

    def run(
        self,
        image: str,
        env: Mapping[str, str],
        ports: List[int],
        labels: Optional[Mapping[str, str]] = None,
        created: Optional[Callable[[str], None]] = None,
    ) -> str:
        """Creates and starts a container publishing ``ports`` on free host ports; answers its id.
        ``created`` is called with the id before the container starts (to guard it)."""
        host_ip = "" if self.kind == "tcp" else "127.0.0.1"
        created_hook = created
        created_answer = self.json_call(
            "POST",
            "/containers/create",
            {
                "Image": image,
                "Env": [f"{key}={value}" for key, value in env.items()],
                "ExposedPorts": {f"{port}/tcp": {} for port in ports},
                "StopTimeout": 10,
                "Labels": dict(labels or {}),
                "HostConfig": {
                    "PortBindings": {f"{port}/tcp": [{"HostIp": host_ip, "HostPort": ""}] for port in ports},
                },
            },
        )
        container = str(created_answer["Id"])
        if created_hook is not None:
            try:
                created_hook(container)
            except BaseException:
                self.remove(container)
                raise
        status, data = self.call("POST", f"/containers/{container}/start")
        if status >= 400:
            self.remove(container)
            raise StartError(f"container engine could not start {image}: {_engine_message(data)}")
        return container

    def inspect(self, container: str) -> Dict[str, Any]:
        return dict(self.json_call("GET", f"/containers/{container}/json"))

    def host_port(self, container: str, port: int) -> Optional[int]:
        ports = (self.inspect(container).get("NetworkSettings") or {}).get("Ports") or {}
        for binding in ports.get(f"{port}/tcp") or []:
            if binding.get("HostPort"):
                return int(binding["HostPort"])
        return None

    def running(self, container: str) -> bool:
        return bool((self.inspect(container).get("State") or {}).get("Running"))

    def logs(self, container: str) -> str:
        status, data = self.call("GET", f"/containers/{container}/logs?stdout=1&stderr=1&tail=200")
        return _demultiplex(data) if status < 400 else ""

    def remove(self, container: str) -> None:
        self.call("POST", f"/containers/{container}/stop?t=10")
        self.call("DELETE", f"/containers/{container}?force=1&v=1")


def _engine_message(data: bytes) -> str:
    try:
        return str(json.loads(data.decode("utf-8")).get("message"))
    except (ValueError, AttributeError, UnicodeDecodeError):
        return data.decode("utf-8", "replace")[:500]


def _demultiplex(data: bytes) -> str:
    """The text of a log stream, with or without the engine's 8-byte frame headers."""
    if len(data) >= 8 and data[0] in (0, 1, 2) and data[1:4] == b"\0\0\0":
        out = bytearray()
        offset = 0
        while offset + 8 <= len(data):
            size = int.from_bytes(data[offset + 4:offset + 8], "big")
            out += data[offset + 8:offset + 8 + size]
            offset += 8 + size
        data = bytes(out)
    return data.decode("utf-8", "replace")
