"""The launcher: a running fake by URL, or one it starts (the image when the run uses the image,
else the npm command), waited for, stopped after, its own error shown when it cannot start."""

import os
import ssl
import threading
import urllib.request
from pathlib import Path

import pytest

from passportal_fake import PassportalFake, StartError
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
