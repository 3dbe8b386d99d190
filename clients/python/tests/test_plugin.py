"""The pytest plugin, run as a user runs it (pytester, in a subprocess, loaded by its entry point)."""

import json
import os
import secrets
import shlex
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

CLIENT = '''
import json, urllib.request
from passportal_fake import get_token

KEY_ID = "375f86c493d3b504cbab9bf6a2f61d3f0b3ac334884bb150d193cfec08077bd0"
SECRET = "fake-secret-1-0799cc6103334c167a65e28e"

def list_documents(base_url, query):
    token = get_token(base_url, KEY_ID, SECRET)["access_token"]
    request = urllib.request.Request(base_url + "/api/v2/documents" + query, headers={"x-access-token": token})
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
'''


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(client=CLIENT)
    return pytester


def test_a_violation_fails_the_test_itself_naming_it(suite, inner_args):
    suite.makepyfile(
        test_docs='''
from client import list_documents

def test_bad_page(passportal_session):
    assert list_documents(passportal_session.base_url, "?pageNum=zero") == 404

def test_good_page(passportal_session):
    assert list_documents(passportal_session.base_url, "?pageNum=1") == 200
'''
    )
    result = suite.runpytest_subprocess(*inner_args, "--junitxml=junit.xml")
    result.assert_outcomes(passed=1, failed=1, errors=0)
    result.stdout.fnmatch_lines(
        [
            "*_ test_bad_page _*",
            "the client broke the contract in 1 request*",
            "*GET /api/v2/documents -> 404",
            "*query.pageNum: *",
            "FAILED test_docs.py::test_bad_page*",
        ]
    )
    assert "x-access-token" not in result.stdout.str()
    cases = {case.get("name"): case for case in ElementTree.parse(suite.path / "junit.xml").iter("testcase")}
    failure = cases["test_bad_page"].find("failure")
    assert failure is not None and "query.pageNum" in (failure.text or "") + (failure.get("message") or "")
    assert cases["test_bad_page"].find("error") is None
    assert list(cases["test_good_page"]) == []


def test_a_failing_test_gets_its_violations_as_a_section(suite, inner_args):
    suite.makepyfile(
        test_docs='''
from client import list_documents

def test_bad_page(passportal_session):
    list_documents(passportal_session.base_url, "?pageNum=zero")
    assert False, "the client's own assertion"
'''
    )
    result = suite.runpytest_subprocess(*inner_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the client's own assertion*", "*passportal violations*", "*query.pageNum*"])


def test_each_test_gets_a_new_session_of_the_run_deleted_after(suite, inner_args, passportal_fake):
    suite.makepyfile(
        test_sessions='''
import json, pytest

@pytest.mark.parametrize("n", [1, 2])
def test_session(passportal_session, passportal_run, passportal_fake, n):
    ids = [s["id"] for s in passportal_fake.admin.sessions()]
    assert passportal_session.id in ids
    with open(f"seen-{n}.json", "w") as f:
        json.dump({"id": passportal_session.id, "run": passportal_run}, f)

@pytest.mark.passportal_session(own_keys=True)
def test_own_keys(passportal_session):
    assert passportal_session.keys and passportal_session.keys[0]["secret"]
'''
    )
    result = suite.runpytest_subprocess(*inner_args, "--passportal-run=team-a.run/7")
    result.assert_outcomes(passed=3)
    seen = [json.loads((suite.path / f"seen-{n}.json").read_text()) for n in (1, 2)]
    assert seen[0]["id"] != seen[1]["id"]
    assert seen[0]["run"] == seen[1]["run"] == "team-a.run/7"
    live = [s["id"] for s in passportal_fake.admin.sessions()]
    assert seen[0]["id"] not in live and seen[1]["id"] not in live


def test_the_report_option_writes_the_runs_report(suite, inner_args):
    suite.makepyfile(
        test_docs='''
from client import list_documents

def test_good_page(passportal_session):
    assert list_documents(passportal_session.base_url, "?pageNum=1") == 200
'''
    )
    result = suite.runpytest_subprocess(
        *inner_args, "--passportal-report=json:out/report.json", "--passportal-report=junit:out/report.xml"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["passportal: run pytest-*, report written to json:out/report.json, junit:out/report.xml"]
    )
    report = json.loads((suite.path / "out/report.json").read_text())
    assert set(report) >= {"coverage", "behaviours"}
    assert ElementTree.parse(suite.path / "out/report.xml").getroot().tag in ("testsuites", "testsuite")


def test_the_runs_report_covers_its_deleted_sessions(suite, inner_args):
    suite.makepyfile(
        test_docs='''
from client import list_documents

def test_good_page(passportal_session):
    assert list_documents(passportal_session.base_url, "?pageNum=1") == 200

def test_bad_page(passportal_session):
    assert list_documents(passportal_session.base_url, "?pageNum=zero") == 404
'''
    )
    result = suite.runpytest_subprocess(*inner_args, "--passportal-report=json:report.json")
    result.assert_outcomes(passed=1, failed=1)
    report = json.loads((suite.path / "report.json").read_text())
    assert report["summary"]["violatingRequests"] == 1
    assert report["coverage"]["operations"]["exercised"] >= 2


def test_a_bad_report_option_is_a_usage_error(suite, inner_args):
    suite.makepyfile(test_nothing="def test_nothing():\n    assert True\n")
    result = suite.runpytest_subprocess(*inner_args, "--passportal-report=pdf:out.pdf")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--passportal-report=pdf:out.pdf: give FORMAT:PATH*json, junit, ctrf, markdown*"])


def test_a_declared_violation_passes_and_an_unmet_one_fails(suite, inner_args):
    suite.makepyfile(
        test_declared='''
import pytest
from client import list_documents

@pytest.mark.passportal_expect_violation(method="GET", path="/api/v2/documents", location="query.pageNum")
def test_handles_the_404(passportal_session):
    assert list_documents(passportal_session.base_url, "?pageNum=zero") == 404

@pytest.mark.passportal_expect_violation(method="GET", path="/api/v2/documents", location="query.pageNum")
def test_never_provokes_it(passportal_session):
    assert list_documents(passportal_session.base_url, "?pageNum=1") == 200
'''
    )
    result = suite.runpytest_subprocess(*inner_args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*expected 1 declared violation that never came*", "*GET /api/v2/documents query.pageNum: met 0 of 1*"]
    )


def test_xdist_workers_share_one_fake_and_one_run(suite, passportal_fake, monkeypatch):
    """The controller starts one fake (as this run started its own) and hands it to both workers."""
    args = ["-p", "no:cacheprovider", "-n", "2"]
    if passportal_fake.mode == "url":
        args.append(f"--passportal-url={passportal_fake.url}")
    elif passportal_fake.mode == "image":
        monkeypatch.setenv("PASSPORTAL_FAKE_IMAGE", passportal_fake.image)
    else:
        monkeypatch.setenv("PASSPORTAL_FAKE_COMMAND", shlex.join(passportal_fake.command))
    suite.makepyfile(
        test_workers='''
import json, os, pytest

@pytest.mark.parametrize("n", range(4))
def test_worker(passportal_session, passportal_run, passportal_fake, n):
    with open(f"seen-{n}.json", "w") as f:
        json.dump({"worker": os.environ.get("PYTEST_XDIST_WORKER"), "run": passportal_run, "url": passportal_fake.url,
                   "started_here": passportal_fake.started_here}, f)
'''
    )
    result = suite.runpytest_subprocess(*args)
    result.assert_outcomes(passed=4)
    seen = [json.loads((suite.path / f"seen-{n}.json").read_text()) for n in range(4)]
    assert len({s["worker"] for s in seen}) == 2
    assert len({s["run"] for s in seen}) == 1 and len({s["url"] for s in seen}) == 1
    assert not any(s["started_here"] for s in seen)


def test_a_violation_a_test_resets_away_still_fails_it_and_the_run(suite, inner_args):
    """reset(), load_fixtures() and clear_requests() empty the journal, never the session report's
    exact counts the check compares; a declaration a reset dropped unmet fails its test too."""
    suite.makepyfile(
        test_hidden='''
import pytest
from client import list_documents

def test_resets(passportal_session):
    list_documents(passportal_session.base_url, "?pageNum=zero")
    passportal_session.admin.reset()

def test_loads_fixtures(passportal_session):
    state = passportal_session.admin.state()
    list_documents(passportal_session.base_url, "?pageNum=zero")
    passportal_session.admin.load_fixtures(state)

def test_clears_the_journal(passportal_session):
    list_documents(passportal_session.base_url, "?pageNum=zero")
    passportal_session.admin.clear_requests()

@pytest.mark.passportal_expect_violation(method="GET", path="/api/v2/documents", location="query.pageNum")
def test_drops_a_declaration(passportal_session):
    passportal_session.admin.reset()

def test_good_page(passportal_session):
    assert list_documents(passportal_session.base_url, "?pageNum=1") == 200
'''
    )
    result = suite.runpytest_subprocess(*inner_args, "--passportal-report=json:report.json")
    result.assert_outcomes(passed=1, failed=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*_ test_resets _*",
            "the client broke the contract in 1 request*",
            "*GET /api/v2/documents -> 404",
            "*query.pageNum: *",
            "*_ test_drops_a_declaration _*",
            "expected 1 declared violation that never came*",
            "*GET /api/v2/documents query.pageNum: met 0 of 1 times",
        ]
    )
    for name in ("test_resets", "test_loads_fixtures", "test_clears_the_journal", "test_drops_a_declaration"):
        result.stdout.fnmatch_lines([f"FAILED test_hidden.py::{name}*"])
    summary = json.loads((suite.path / "report.json").read_text())["summary"]
    assert (summary["violatingRequests"], summary["unmetExpectations"]) == (3, 1)


def test_clearing_the_sessions_report_in_a_test_fails_it(suite, inner_args):
    suite.makepyfile(
        test_cleared='''
from client import list_documents

def test_clears_the_report(passportal_session):
    list_documents(passportal_session.base_url, "?pageNum=zero")
    passportal_session.admin.clear_report()
'''
    )
    result = suite.runpytest_subprocess(*inner_args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the session's report was cleared during the test (clear_report())*"])


def test_a_written_report_that_fails_makes_the_exit_status_fail(suite, inner_args):
    """A session of the run the per-test check never saw (made by the test itself) still fails the
    run through its report; without a written report the run's status is the tests' own."""
    suite.makepyfile(
        test_own_session='''
from client import list_documents

def test_makes_its_own_session(passportal_fake, passportal_run):
    session = passportal_fake.admin.create_session(run=passportal_run)
    list_documents(session.base_url, "?pageNum=zero")
    passportal_fake.admin.delete_session(session.id)
'''
    )
    result = suite.runpytest_subprocess(*inner_args, "--passportal-report=junit:report.xml")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "passportal: run pytest-*, report written to junit:report.xml",
            "passportal: the report fails the run: 1 request broke the contract*",
        ]
    )
    assert suite.runpytest_subprocess(*inner_args).ret == pytest.ExitCode.OK


@pytest.mark.parametrize("label", ["ci run #42", "team+a", "x" * 129])
def test_a_run_label_the_fake_refuses_is_a_usage_error(suite, inner_args, monkeypatch, label):
    suite.makepyfile(test_docs="def test_session(passportal_session):\n    assert passportal_session.run\n")
    result = suite.runpytest_subprocess(
        *inner_args, f"--passportal-run={label}", "--passportal-report=json:report.json"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--passportal-run=*: a run label is 1-128 characters of letters, digits and . _ : @ / -*"]
    )
    assert not (suite.path / "report.json").exists()
    monkeypatch.setenv("PASSPORTAL_FAKE_RUN", label)
    result = suite.runpytest_subprocess(*inner_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*PASSPORTAL_FAKE_RUN=*: a run label is 1-128 characters*"])


def test_the_summary_says_which_fake_the_run_used(suite, inner_args, passportal_fake):
    suite.makepyfile(test_docs="def test_session(passportal_session):\n    assert passportal_session.id\n")
    result = suite.runpytest_subprocess(*inner_args)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"passportal: the fake was the running fake at {passportal_fake.url}"])
    # A run that never asks for the fake names none.
    suite.makepyfile(test_docs="def test_nothing():\n    pass\n")
    result = suite.runpytest_subprocess(*inner_args)
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("passportal: the fake was*")


def test_a_fake_without_run_labels_gets_the_roots_report_said_so(suite, inner_args):
    """A fake that does not know the field at all (an older version) gets unlabelled sessions,
    and the summary says the root's report was written, never the run's."""
    suite.makeconftest(
        '''
from passportal_fake import AdminClient, AdminError

create = AdminClient.create_session

def create_without_run(self, own_keys=False, run=None, fixtures=None, expires=None):
    if run is not None:
        raise AdminError("POST", "/__admin/sessions", 400, {
            "message": "invalid request body: body/run is not a known property",
            "errors": [{"location": "body/run", "message": "is not a known property"}],
        })
    return create(self, own_keys=own_keys, fixtures=fixtures, expires=expires)

AdminClient.create_session = create_without_run
'''
    )
    suite.makepyfile(test_docs="def test_session(passportal_session):\n    assert passportal_session.run is None\n")
    result = suite.runpytest_subprocess(*inner_args, "--passportal-report=json:report.json")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "passportal: this fake knows no run labels, so the root's report (not the run's) "
            "was written to json:report.json"
        ]
    )
    result.stdout.no_fnmatch_line("*report written to*")
    assert json.loads((suite.path / "report.json").read_text())["instance"] == "root"


def test_xdist_shares_one_fake_and_no_secret_reaches_any_output(suite, passportal_fake, monkeypatch):
    """Two workers, one fake the controller started with an admin token: the token, the sessions'
    own key secrets and the access tokens appear in no output (verbose, locals shown, every report
    format, JUnit), even for failing tests whose locals hold the session."""
    admin_token = "admin-" + secrets.token_hex(16)
    monkeypatch.setenv("PASSPORTAL_FAKE_ADMIN_TOKEN", admin_token)
    monkeypatch.delenv("PASSPORTAL_FAKE_URL", raising=False)
    if passportal_fake.mode == "image":
        monkeypatch.setenv("PASSPORTAL_FAKE_IMAGE", passportal_fake.image)
    else:
        checkout = os.environ.get("PASSPORTAL_FAKE_CHECKOUT") or str(Path(__file__).resolve().parents[3])
        monkeypatch.setenv("PASSPORTAL_FAKE_COMMAND", shlex.join(["node", str(Path(checkout) / "dist" / "start.js")]))
    suite.makepyfile(
        test_secrets='''
import json, os, pytest
from passportal_fake import get_token
from client import list_documents

def keep(name, value):
    with open(f"secret-{name}-{os.getpid()}.txt", "w") as f:
        f.write(value)

@pytest.mark.parametrize("n", range(4))
@pytest.mark.passportal_session(own_keys=True)
def test_own_keys(passportal_session, passportal_fake, n):
    key = passportal_session.keys[0]
    keep(f"key{n}", key["secret"])
    keep(f"token{n}", get_token(passportal_session.base_url, key["keyId"], key["secret"])["access_token"])
    with open(f"seen-{n}.json", "w") as f:
        json.dump({"worker": os.environ.get("PYTEST_XDIST_WORKER"), "url": passportal_fake.url,
                   "started_here": passportal_fake.started_here}, f)

def page_zero(session):
    import urllib.request
    key = session.keys[0]
    token = get_token(session.base_url, key["keyId"], key["secret"])["access_token"]
    keep(f"broken-token-{session.id}", token)
    request = urllib.request.Request(
        session.base_url + "/api/v2/documents?pageNum=zero", headers={"x-access-token": token}
    )
    try:
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request)
    except urllib.error.HTTPError as error:
        return error.code

@pytest.mark.parametrize("n", range(2))
@pytest.mark.passportal_session(own_keys=True)
def test_breaks_the_contract(passportal_session, n):
    session = passportal_session
    keep(f"broken{n}", session.keys[0]["secret"])
    assert page_zero(session) == 200
'''
    )
    result = suite.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "-v", "-l", "-rA", "--junitxml=junit.xml",
        *[f"--passportal-report={kind}:report.{kind}" for kind in ("json", "junit", "ctrf", "markdown")],
    )
    result.assert_outcomes(passed=4, failed=2)
    seen = [json.loads((suite.path / f"seen-{n}.json").read_text()) for n in range(4)]
    assert len({s["worker"] for s in seen}) == 2 and len({s["url"] for s in seen}) == 1
    assert not any(s["started_here"] for s in seen)
    kept = [path.read_text() for path in suite.path.glob("secret-*.txt")]
    assert len(kept) == 12
    outputs = {"stdout": result.stdout.str(), "stderr": result.stderr.str()}
    for path in [suite.path / "junit.xml", *suite.path.glob("report.*")]:
        outputs[path.name] = path.read_text()
    assert "query.pageNum" in outputs["stdout"] and "session = Session(" in outputs["stdout"]
    for name, text in outputs.items():
        for secret in [admin_token, *kept]:
            assert secret not in text, f"a secret is in {name}"


def test_the_fakes_and_the_sessions_options_are_fixtures_a_conftest_overrides(suite, passportal_fake, monkeypatch):
    """As pytest-httpserver's ``httpserver_listen_address``: a project's conftest.py gives the
    options once, for every test, without command-line flags."""
    for name in ("PASSPORTAL_FAKE_URL", "PASSPORTAL_FAKE_IMAGE", "PASSPORTAL_FAKE_COMMAND"):
        monkeypatch.delenv(name, raising=False)
    suite.makeconftest(
        f'''
import pytest

@pytest.fixture(scope="session")
def passportal_fake_options():
    return {{"url": {passportal_fake.url!r}}}

@pytest.fixture
def passportal_session_options():
    return {{"own_keys": True, "expires": False}}
'''
    )
    suite.makepyfile(
        test_options='''
import json

def test_session(passportal_session, passportal_fake):
    with open("seen.json", "w") as f:
        json.dump({"url": passportal_fake.url, "started_here": passportal_fake.started_here,
                   "keys": len(passportal_session.keys), "id": passportal_session.id}, f)
'''
    )
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    seen = json.loads((suite.path / "seen.json").read_text())
    assert seen["url"] == passportal_fake.url and seen["started_here"] is False
    assert seen["keys"] >= 1  # own_keys, from the overriding fixture
    assert seen["id"] not in [s["id"] for s in passportal_fake.admin.sessions()]  # deleted after the test
