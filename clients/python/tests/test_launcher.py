"""The launcher: a running fake by URL, or one it starts (the image when the run uses the image,
else the npm command), waited for, stopped after, its own error shown when it cannot start."""

import json
import logging
import os
import shlex
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from passportal_fake import PassportalFake, StartError
from passportal_fake.container import Engine
from passportal_fake.launcher import CONTAINER_LABEL
from passportal_fake.transport import send


def answers(url):
    try:
        return send("GET", f"{url}/__admin/health", timeout=2)[0] == 200
    except OSError:
        return False


@pytest.fixture
def own_start(pytestconfig):
    """How this run starts a fake of its own: the image it was given, else the npm command."""
    image = pytestconfig.getoption("passportal_image") or os.environ.get("PASSPORTAL_FAKE_IMAGE")
    return {"image": image} if image else {}


def test_a_running_fake_is_used_and_left_running(passportal_fake, monkeypatch):
    monkeypatch.setenv("PASSPORTAL_FAKE_URL", passportal_fake.url)
    with PassportalFake() as fake:
        assert fake.mode == "url" and not fake.started_here
        assert fake.url == passportal_fake.url
        assert fake.admin.health()["status"] == "ok"
    assert answers(passportal_fake.url)


def test_nothing_at_the_url_says_where_it_looked():
    with pytest.raises(StartError) as caught:
        PassportalFake(url="http://127.0.0.1:9", start_timeout=1).start()
    assert "no healthy fake at http://127.0.0.1:9" in str(caught.value)


def test_a_started_fake_is_healthy_and_stopped_on_exit(own_start, monkeypatch):
    monkeypatch.delenv("PASSPORTAL_FAKE_URL", raising=False)
    with PassportalFake(**own_start) as fake:
        assert fake.started_here and fake.mode == ("image" if own_start else "command")
        assert fake.admin.health()["status"] == "ok"
        url = fake.url
    assert not answers(url)


def test_a_failed_start_shows_the_fakes_own_error(own_start, monkeypatch):
    monkeypatch.delenv("PASSPORTAL_FAKE_URL", raising=False)
    fake = PassportalFake(env={"FIXTURES": "/no/such/fixtures"}, start_timeout=60, **own_start)
    with pytest.raises(StartError) as caught:
        fake.start()
    assert "/no/such/fixtures" in str(caught.value)
    assert not fake.started_here


def test_https_exposes_the_ca_for_the_vendors_host_through_the_proxy(own_start, monkeypatch):
    monkeypatch.delenv("PASSPORTAL_FAKE_URL", raising=False)
    with PassportalFake(https=True, **own_start) as fake:
        assert fake.ca_path and open(fake.ca_path).read().startswith("-----BEGIN CERTIFICATE-----")
        session = fake.admin.create_session()
        env = fake.client_env(session)
        assert env["SSL_CERT_FILE"] == env["REQUESTS_CA_BUNDLE"] == fake.ca_path
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({"https": env["HTTPS_PROXY"]}),
            urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=fake.ca_path)),
        )
        with opener.open("https://us-clover.passportalmsp.com/__admin/health", timeout=10) as response:
            assert response.status == 200
        request = urllib.request.Request(
            "https://us-clover.passportalmsp.com/api/v2/auth/client_token", data=b"{}", method="POST",
            headers={"content-type": "application/json"},
        )
        try:
            opener.open(request, timeout=10)
        except urllib.error.HTTPError as error:
            assert error.code in (400, 401)
        [entry] = session.admin.requests()["requests"]
        assert entry["path"] == "/api/v2/auth/client_token"
        with urllib.request.build_opener(urllib.request.HTTPSHandler(context=fake.ssl_context())).open(
            f"{fake.https_url}/__admin/health", timeout=10
        ) as response:
            assert response.status == 200


def test_stop_ends_every_process_the_command_started(monkeypatch):
    """A command that runs the fake as a child of its own (as npx runs it under npm) is ended
    whole: `stop` returns, and nothing answers at the URL afterwards."""
    monkeypatch.delenv("PASSPORTAL_FAKE_URL", raising=False)
    checkout = os.environ.get("PASSPORTAL_FAKE_CHECKOUT") or str(Path(__file__).resolve().parents[3])
    start = Path(checkout) / "dist" / "start.js"
    assert start.is_file(), f"no built fake at {start}: run npm ci in {checkout}"
    # `sh -c` with a command after it forks node rather than replacing itself with it.
    wrapper = ["sh", "-c", 'node "$0" "$@"; exit $?', str(start)]
    fake = PassportalFake(command=wrapper).start()
    url = fake.url
    assert answers(url)
    stopping = threading.Thread(target=fake.stop, daemon=True)
    stopping.start()
    stopping.join(60)
    assert not stopping.is_alive(), "stop() did not return: a process of the command outlived it"
    assert not answers(url)


def checkout_start():
    """The built fake of this checkout (dist/start.js), which the launcher tests run by command."""
    checkout = os.environ.get("PASSPORTAL_FAKE_CHECKOUT") or str(Path(__file__).resolve().parents[3])
    start = Path(checkout) / "dist" / "start.js"
    assert start.is_file(), f"no built fake at {start}: run npm ci in {checkout}"
    return start


def clean_env(monkeypatch):
    for name in ("PASSPORTAL_FAKE_URL", "PASSPORTAL_FAKE_IMAGE", "PASSPORTAL_FAKE_COMMAND", "PASSPORTAL_FAKE_CHECKOUT"):
        monkeypatch.delenv(name, raising=False)


def test_nothing_installed_is_a_clear_error_and_nothing_is_fetched(tmp_path, monkeypatch):
    """With no fake installed, the launcher says what to install or set; it never runs npx (or any
    registry fetch), whatever is on PATH."""
    clean_env(monkeypatch)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ran = tmp_path / "npx-ran"
    npx = bin_dir / "npx"
    npx.write_text(f"#!/bin/sh\necho \"$@\" > {ran}\nexit 1\n")
    npx.chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(StartError) as caught:
        PassportalFake(start_timeout=10).start()
    message = str(caught.value)
    assert "no passportal-docs-fake is installed here" in message and "nothing is fetched from a registry" in message
    assert "PASSPORTAL_FAKE_CHECKOUT" in message and "PASSPORTAL_FAKE_IMAGE" in message
    assert not ran.exists(), "npx was run"


def installed_package(project, start_js):
    package = project / "node_modules" / "passportal-docs-fake"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "passportal-docs-fake"}')
    (package / "dist" / "start.js").write_text(start_js)
    return package


@pytest.mark.parametrize("writable", ["project", "node_modules", "dist/start.js"])
def test_an_installed_fake_others_can_write_is_never_run(tmp_path, monkeypatch, writable):
    clean_env(monkeypatch)
    project = tmp_path / "project"
    ran = tmp_path / "ran"
    installed_package(project, f"require('fs').writeFileSync({json.dumps(str(ran))}, 'ran');\n")
    target = {"project": project, "node_modules": project / "node_modules"}.get(writable)
    target = target or project / "node_modules" / "passportal-docs-fake" / writable
    target.chmod(0o777 if target.is_dir() else 0o666)
    monkeypatch.chdir(project)
    with pytest.raises(StartError) as caught:
        PassportalFake(start_timeout=10).start()
    assert f"any user can write {target}" in str(caught.value)
    assert "PASSPORTAL_FAKE_COMMAND" in str(caught.value)
    assert not ran.exists(), "the start file was run"


def test_an_installed_fake_of_another_user_is_never_run(tmp_path, monkeypatch):
    clean_env(monkeypatch)
    project = tmp_path / "project"
    ran = tmp_path / "ran"
    package = installed_package(project, f"require('fs').writeFileSync({json.dumps(str(ran))}, 'ran');\n")
    monkeypatch.chdir(project)
    other = 4242 if os.getuid() == 0 else None
    if other is not None:
        os.chown(package, other, -1)
        expected = f"{package} belongs to another user (uid {other})"
    else:
        # Not root: chown to another user is not possible; a folder the user made others' to write stands in.
        package.chmod(0o777)
        expected = f"any user can write {package}"
    with pytest.raises(StartError) as caught:
        PassportalFake(start_timeout=10).start()
    assert expected in str(caught.value)
    assert not ran.exists(), "the start file was run"


def test_an_installed_fake_in_the_users_own_folder_is_run(tmp_path, monkeypatch):
    clean_env(monkeypatch)
    project = tmp_path / "project"
    installed_package(project, f"import({json.dumps(checkout_start().as_uri())});\n")
    monkeypatch.chdir(project)
    with PassportalFake(start_timeout=60) as fake:
        assert fake.command[-1] == str(project / "node_modules" / "passportal-docs-fake" / "dist" / "start.js")
        assert fake.admin.health()["status"] == "ok"


def picked_lines(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "passportal_fake" and r.levelno == logging.INFO]


def test_it_says_which_installed_npm_package_it_picked(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="passportal_fake")
    clean_env(monkeypatch)
    project = tmp_path / "project"
    package = installed_package(project, f"import({json.dumps(checkout_start().as_uri())});\n")
    (package / "package.json").write_text('{"name": "passportal-docs-fake", "version": "7.8.9"}')
    monkeypatch.chdir(project)
    with PassportalFake(start_timeout=60) as fake:
        said = f"the npm package passportal-docs-fake 7.8.9 installed in {package}"
        assert (fake.source, fake.picked) == ("npm-package", said)
        assert picked_lines(caplog) == [f"passportal-docs-fake: using {said}"]


def test_it_says_which_checkout_or_given_command_it_picked(monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="passportal_fake")
    clean_env(monkeypatch)
    checkout = checkout_start().parents[1]
    version = json.loads((checkout / "package.json").read_text())["version"]
    monkeypatch.setenv("PASSPORTAL_FAKE_CHECKOUT", str(checkout))
    with PassportalFake(start_timeout=60) as fake:
        said = f"the checkout of passportal-docs-fake {version} in {checkout}"
        assert (fake.source, fake.picked) == ("checkout", said)
    command = ["node", str(checkout_start())]
    monkeypatch.setenv("PASSPORTAL_FAKE_COMMAND", shlex.join(command))
    with PassportalFake(start_timeout=60) as fake:
        assert (fake.source, fake.picked) == ("command", f"the command {shlex.join(command)} (PASSPORTAL_FAKE_COMMAND)")
    # A running fake by URL, and an image (said before the engine is asked, so said when it has none).
    with PassportalFake(command=command, start_timeout=60) as running:
        running_url = running.url
        with PassportalFake(url=running.url) as fake:
            assert (fake.source, fake.picked) == ("url", f"the running fake at {running.url}")
    monkeypatch.setenv("DOCKER_HOST", f"unix://{checkout / 'no-such-engine.sock'}")
    with pytest.raises(StartError):
        PassportalFake(image="passportal-docs-fake:9.9.9", start_timeout=5).start()
    assert picked_lines(caplog) == [
        f"passportal-docs-fake: using the checkout of passportal-docs-fake {version} in {checkout}",
        f"passportal-docs-fake: using the command {shlex.join(command)} (PASSPORTAL_FAKE_COMMAND)",
        f"passportal-docs-fake: using the command {shlex.join(command)} (command=)",
        f"passportal-docs-fake: using the running fake at {running_url}",
        "passportal-docs-fake: using the image passportal-docs-fake:9.9.9",
    ]


@pytest.mark.parametrize("where", ["LOG_FORMAT", "config file"])
def test_the_fake_starts_whatever_log_format_is_configured(tmp_path, monkeypatch, where):
    clean_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    if where == "LOG_FORMAT":
        monkeypatch.setenv("LOG_FORMAT", "pretty")
    else:
        (tmp_path / "passportal-fake.config.json").write_text('{"logFormat": "pretty"}')
    with PassportalFake(command=["node", str(checkout_start())], start_timeout=30) as fake:
        assert fake.admin.health()["status"] == "ok"


def processes_marked(mark):
    """The processes whose environment holds MARK=<mark> (Linux: /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"PASSPORTAL_TEST_MARK={mark}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def containers_started_by(pid):
    """The ids of the containers (running or not) the launcher of process ``pid`` started."""
    label = urllib.parse.quote(json.dumps({"label": [f"{CONTAINER_LABEL}={pid}"]}), safe="")
    status, body = Engine().call("GET", f"/containers/json?all=1&filters={label}")
    assert status == 200, body
    return [c["Id"] for c in json.loads(body)]


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_the_fake_ends_with_pytest_however_pytest_ends(pytester, monkeypatch, own_start, sig):
    """What a CI runner cancelling a job sends: pytest ends without its teardown, and the fake it
    started (the npm command and the guard watching it, or the image's container) end within
    seconds."""
    clean_env(monkeypatch)
    mark = f"{sig}-{os.getpid()}-{time.monotonic_ns()}"
    if own_start:
        monkeypatch.setenv("PASSPORTAL_FAKE_IMAGE", own_start["image"])
    else:
        monkeypatch.setenv("PASSPORTAL_FAKE_COMMAND", shlex.join(["node", str(checkout_start())]))
    monkeypatch.setenv("PASSPORTAL_TEST_MARK", mark)
    pytester.makepyfile(
        test_waits='''
import time

def test_waits(passportal_fake):
    with open("url.txt.part", "w") as f:
        f.write(passportal_fake.url)
    import os
    os.rename("url.txt.part", "url.txt")
    time.sleep(600)
'''
    )
    inner = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"],
        cwd=pytester.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        url_file = pytester.path / "url.txt"
        deadline = time.monotonic() + 90
        while not url_file.exists() and time.monotonic() < deadline and inner.poll() is None:
            time.sleep(0.1)
        assert url_file.exists(), "the inner pytest did not start its fake"
        url = url_file.read_text()
        assert answers(url)
        on_linux = sys.platform.startswith("linux")
        if on_linux:
            assert len(processes_marked(mark)) >= 2  # pytest, the guard (and the fake's command)
        if own_start:
            assert len(containers_started_by(inner.pid)) == 1
        inner.send_signal(getattr(signal, sig))
        inner.wait(30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (answers(url) or (on_linux and processes_marked(mark))):
            time.sleep(0.2)
        assert not answers(url), f"the fake outlived pytest ended by {sig}"
        if on_linux:
            assert processes_marked(mark) == [], f"processes of the fake outlived pytest ended by {sig}"
        if own_start:
            deadline = time.monotonic() + 30
            while containers_started_by(inner.pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert containers_started_by(inner.pid) == [], f"the container outlived pytest ended by {sig}"
    finally:
        if inner.poll() is None:
            inner.kill()
            inner.wait()
