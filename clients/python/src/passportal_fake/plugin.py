"""The pytest plugin (entry point ``pytest11``): fixtures, options, markers, the per-test check.

Fixtures: ``passportal_fake`` (session scope: a ``PassportalFake``) and ``passportal_session``
(function scope: a new session per test, labelled with the run, deleted after). After each test
that used ``passportal_session``, the session's violations (and declared violations that never
came) fail that test, as its own failure. The check compares the session report's exact counts
before and after the test, which a reset, a fixture load or a cleared journal leave standing.
A run whose report ``--passportal-report`` wrote fails makes the run's exit status fail.

Under pytest-xdist the controller starts one fake (unless given a URL) and hands its URL and the
run label to every worker (``workerinput``), so all workers share one fake and one run report.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
import warnings
from pathlib import Path
from typing import Any, Dict, Generator, List, Optional, Tuple

import pytest

from .admin import Session
from .errors import AdminError, ContractViolationError, describe_violations
from .launcher import PassportalFake

SESSION_KEY = pytest.StashKey[Session]()
BEFORE_KEY = pytest.StashKey["Tally"]()
FAILURE_KEY = pytest.StashKey[str]()
PLUGIN_NAME = "passportal-fake-run"
REPORT_FORMATS = ("json", "junit", "ctrf", "markdown")

#: The fake's rule for a run label (``POST /__admin/sessions`` refuses any other).
RUN_LABEL = re.compile(r"[A-Za-z0-9._:@/-]{1,128}")
RUN_LABEL_RULE = "1-128 characters of letters, digits and . _ : @ / - (e.g. ci-1234)"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("passportal", "Passportal Documents API fake")
    group.addoption(
        "--passportal-url",
        default=None,
        help="URL of a running fake to use (default: $PASSPORTAL_FAKE_URL; else one is started)",
    )
    group.addoption(
        "--passportal-image",
        default=None,
        help=(
            "start this image of the fake with Docker or Podman "
            "(default: $PASSPORTAL_FAKE_IMAGE; else the npm command)"
        ),
    )
    group.addoption(
        "--passportal-https",
        action="store_true",
        default=False,
        help="start the fake with HTTPS on and expose its CA (passportal_fake.ca_path)",
    )
    group.addoption(
        "--passportal-report",
        action="append",
        default=[],
        metavar="FORMAT:PATH",
        help="write the run's report at the end, FORMAT one of json, junit, ctrf, markdown (repeatable)",
    )
    group.addoption(
        "--passportal-run",
        default=None,
        help="the run label every session of this run carries (default: $PASSPORTAL_FAKE_RUN, else a new one)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "passportal_expect_violation(method=None, path=None, location=None, times=1): the test provokes "
        "this contract violation on purpose (declared in its passportal_session before the test)",
    )
    config.addinivalue_line(
        "markers",
        "passportal_session(own_keys=False, fixtures=None, expires=None): how the test's passportal_session is created",
    )
    reports = [_parse_report_option(value) for value in config.getoption("passportal_report") or []]
    _check_run_label(config)
    config.pluginmanager.register(RunPlugin(config, reports), PLUGIN_NAME)


def _check_run_label(config: pytest.Config) -> None:
    """A label the fake would refuse is a usage error where it is given, naming the rule."""
    for where, label in (
        ("--passportal-run", config.getoption("passportal_run")),
        ("PASSPORTAL_FAKE_RUN", os.environ.get("PASSPORTAL_FAKE_RUN")),
    ):
        if label:
            if not RUN_LABEL.fullmatch(label):
                raise pytest.UsageError(f"{where}={label!r}: a run label is {RUN_LABEL_RULE}")
            return


def _parse_report_option(value: str) -> Tuple[str, str]:
    kind, sep, path = value.partition(":")
    if not sep or kind not in REPORT_FORMATS or not path:
        raise pytest.UsageError(
            f"--passportal-report={value}: give FORMAT:PATH with FORMAT one of {', '.join(REPORT_FORMATS)} "
            "(e.g. --passportal-report=junit:reports/passportal.xml)"
        )
    return kind, path


def _new_run_label() -> str:
    return f"pytest-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{os.getpid()}-{secrets.token_hex(3)}"


class RunPlugin:
    """What one pytest run shares: its run label and its fake (started at most once)."""

    def __init__(self, config: pytest.Config, reports: List[Tuple[str, str]]) -> None:
        self.config = config
        self.reports = reports
        workerinput: Optional[Dict[str, Any]] = getattr(config, "workerinput", None)
        self.is_worker = workerinput is not None
        given = workerinput.get("passportal_run") if workerinput else None
        self.run = (
            given or config.getoption("passportal_run") or os.environ.get("PASSPORTAL_FAKE_RUN") or _new_run_label()
        )
        self.worker_url: Optional[str] = workerinput.get("passportal_url") if workerinput else None
        self.worker_ca: Optional[str] = workerinput.get("passportal_ca") if workerinput else None
        self._fake: Optional[PassportalFake] = None
        #: The fake the run used, in words (``PassportalFake.picked``), for the summary.
        self.picked: Optional[str] = None
        self.written: List[str] = []
        self.run_labels = True
        #: Why the written report fails the run (its exact counts), when it does.
        self.report_failure: Optional[str] = None
        self.no_run = False

    def default_options(self) -> Dict[str, Any]:
        """How the fake is started by default: the command line's options (and the environment,
        which ``PassportalFake`` reads)."""
        option = self.config.getoption
        return {"url": option("passportal_url"), "image": option("passportal_image"),
                "https": bool(option("passportal_https"))}

    def fake(self, options: Optional[Dict[str, Any]] = None) -> PassportalFake:
        """The run's fake, started on first use with ``options`` (``PassportalFake``'s keyword
        arguments; by default the command line's)."""
        if self._fake is None:
            options = dict(self.default_options() if options is None else options)
            if self.worker_url:
                if options != self.default_options():
                    raise pytest.UsageError(
                        "passportal_fake_options is overridden, but under pytest-xdist the controller starts "
                        "the fake before any fixture runs, from the command line and the environment: give "
                        "the options there (--passportal-url, --passportal-image, PASSPORTAL_FAKE_*), or run "
                        "without -n"
                    )
                options["url"] = self.worker_url
            fake = PassportalFake(**options)
            if self.worker_ca:
                fake.ca_path = self.worker_ca
            fake.start()
            self._fake = fake
            self.picked = fake.picked
        return self._fake

    def create_session(self, fake: PassportalFake, options: Dict[str, Any]) -> Session:
        """A session labelled with the run; on a fake from before run labels, one without."""
        if self.run_labels:
            try:
                return fake.admin.create_session(run=self.run, **options)
            except AdminError as error:
                if not _run_is_unknown(error):
                    raise
                self.run_labels = False
                warnings.warn(
                    "passportal: this fake knows no run labels (an older version): sessions are not "
                    "labelled, and --passportal-report writes the root's report",
                    stacklevel=2,
                )
        return fake.admin.create_session(**options)

    # pytest-xdist's controller hook: one fake and one run label for every worker.
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        fake = self.fake()
        node.workerinput["passportal_run"] = self.run
        node.workerinput["passportal_url"] = fake.url
        if fake.ca_path:
            node.workerinput["passportal_ca"] = fake.ca_path

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, None]:
        outcome = yield
        session = item.stash.get(SESSION_KEY, None)
        if session is None:
            return
        try:
            failure = _check_session(session, item.stash[BEFORE_KEY] if BEFORE_KEY in item.stash else None)
        except AdminError as error:
            failure = f"checking the session's violations failed: {error}"
        if failure is not None:
            item.stash[FAILURE_KEY] = failure
        del outcome

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
        outcome = yield
        report: pytest.TestReport = outcome.get_result()
        failure = item.stash.get(FAILURE_KEY, None)
        if report.when != "call" or failure is None:
            return
        if report.passed:
            report.outcome = "failed"
            report.longrepr = failure
        elif report.failed:
            report.sections.append(("passportal violations", failure))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker:
            self._stop()
            return
        try:
            if self.reports and self._fake is not None:
                self._write_reports()
                if self.report_failure is not None and session.exitstatus == pytest.ExitCode.OK:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
        finally:
            self._stop()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker:
            return
        if self.picked:
            terminalreporter.write_line(f"passportal: the fake was {self.picked}")
        if self.written and self.run_labels:
            terminalreporter.write_line(f"passportal: run {self.run}, report written to {', '.join(self.written)}")
        elif self.written:
            terminalreporter.write_line(
                "passportal: this fake knows no run labels, so the root's report (not the run's) was written to "
                + ", ".join(self.written)
            )
        elif self.no_run:
            terminalreporter.write_line(
                f"passportal: no session of run {self.run} reached the fake, so no report was written"
            )
        elif self.reports:
            terminalreporter.write_line("passportal: no test used the fake, so no report was written")
        if self.report_failure is not None:
            terminalreporter.write_line(f"passportal: the report fails the run: {self.report_failure}", red=True)

    def _write_reports(self) -> None:
        assert self._fake is not None
        run = self.run if self.run_labels else None
        try:
            verdict = self._fake.admin.report("json", run=run)
        except AdminError as error:
            if run is not None and error.status == 404:
                self.no_run = True  # no session carried the label
                return
            raise
        for kind, path in self.reports:
            answer = verdict if kind == "json" else self._fake.admin.report(kind, run=run)
            text = json.dumps(answer, indent=2) + "\n" if isinstance(answer, dict) else str(answer)
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            self.written.append(f"{kind}:{path}")
        self.report_failure = _report_failure(verdict)

    def _stop(self) -> None:
        fake, self._fake = self._fake, None
        if fake is not None:
            fake.stop()


def _run_is_unknown(error: AdminError) -> bool:
    """Whether the fake refused a session's run label as a field it does not know (a fake from
    before run labels), rather than the label itself."""
    errors = (error.body or {}).get("errors") if error.status == 400 else None
    return isinstance(errors, list) and any(
        isinstance(e, dict) and e.get("location") == "body/run" and "not a known property" in str(e.get("message"))
        for e in errors
    )


class Tally:
    """A session report's exact counts, which survive resets, fixture loads and cleared journals."""

    def __init__(self, report: Any) -> None:
        summary = report.get("summary") if isinstance(report, dict) else None
        self.exact = isinstance(summary, dict) and all(
            isinstance(summary.get(key), int) for key in ("violatingRequests", "unmetExpectations")
        )
        summary = summary if isinstance(summary, dict) else {}
        self.report: Dict[str, Any] = report if isinstance(report, dict) else {}
        self.since = self.report.get("since")
        self.violating = int(summary.get("violatingRequests", 0)) if self.exact else 0
        self.unmet = int(summary.get("unmetExpectations", 0)) if self.exact else 0

    @classmethod
    def of(cls, session: Session) -> "Tally":
        return cls(session.admin.report("json"))


def _check_session(session: Session, before: Optional[Tally]) -> Optional[str]:
    """Why the test fails for what its session counted since ``before`` (``None``: it passes)."""
    after = Tally.of(session)
    if before is None or not before.exact or not after.exact:
        # A fake from before exact counts: its journal, as it stands.
        try:
            session.admin.expect_no_violations()
        except ContractViolationError as error:
            return str(error)
        return None
    if after.since != before.since:
        return (
            "the session's report was cleared during the test (clear_report()), so the violations it "
            "counted cannot be checked; test the report on a session of your own "
            "(passportal_fake.admin.create_session())"
        )
    violating = after.violating - before.violating
    unmet = after.unmet - before.unmet
    if violating <= 0 and unmet <= 0:
        return None
    records = list(after.report.get("violations") or [])[-violating:] if violating > 0 else []
    declared = list(after.report.get("unmetExpectations") or [])[-unmet:] if unmet > 0 else []
    return describe_violations(
        records, declared, session.admin.base_url, violating=max(violating, 0), unmet_count=max(unmet, 0)
    )


def _report_failure(report: Any) -> Optional[str]:
    """What fails a written report: its exact counts of violating requests and unmet declarations."""
    summary = report.get("summary") if isinstance(report, dict) else None
    if not isinstance(summary, dict):
        return None
    violating = int(summary.get("violatingRequests") or 0)
    unmet = int(summary.get("unmetExpectations") or 0)
    parts = []
    if violating:
        parts.append(f"{violating} request{'s' if violating != 1 else ''} broke the contract")
    if unmet:
        parts.append(f"{unmet} declared violation{'s' if unmet != 1 else ''} never came")
    return ", ".join(parts) + " (the exit status is 1)" if parts else None


def _run_plugin(config: pytest.Config) -> RunPlugin:
    plugin = config.pluginmanager.get_plugin(PLUGIN_NAME)
    assert isinstance(plugin, RunPlugin)
    return plugin


@pytest.fixture(scope="session")
def passportal_fake_options(pytestconfig: pytest.Config) -> Dict[str, Any]:
    """How the run's fake is started: ``PassportalFake``'s keyword arguments (``url``, ``image``,
    ``command``, ``https``, ``fixtures``, ``env``, ``admin_token``, ``start_timeout``), by default
    from the command line and the environment. Override it (a session-scoped fixture of the same
    name in a ``conftest.py``) to start the fake your way, e.g. ``{"fixtures": "my-fixtures.json"}``."""
    return _run_plugin(pytestconfig).default_options()


@pytest.fixture(scope="session")
def passportal_fake(pytestconfig: pytest.Config, passportal_fake_options: Dict[str, Any]) -> PassportalFake:
    """The run's fake (started once, stopped at the end of the run): ``url``, ``admin``,
    ``proxy_url()``, ``ca_path``."""
    return _run_plugin(pytestconfig).fake(passportal_fake_options)


@pytest.fixture
def passportal_run(pytestconfig: pytest.Config) -> str:
    """The run label every session of this pytest run carries (shared by xdist workers)."""
    return _run_plugin(pytestconfig).run


@pytest.fixture
def passportal_session_options(request: pytest.FixtureRequest) -> Dict[str, Any]:
    """How the test's session is created (``own_keys``, ``fixtures``, ``expires``): by default from
    the ``passportal_session(...)`` marker. Override it (a fixture of the same name in a
    ``conftest.py``, a module or a class) to give a group of tests the same sessions."""
    options: Dict[str, Any] = {}
    marker = request.node.get_closest_marker("passportal_session")
    if marker is not None:
        options.update(marker.kwargs)
    return options


@pytest.fixture
def passportal_session(
    request: pytest.FixtureRequest, passportal_fake: PassportalFake, passportal_session_options: Dict[str, Any]
) -> Generator[Session, None, None]:
    """A new session for this test (deleted after it), labelled with the run. Options by
    ``passportal_session_options`` (the ``passportal_session(own_keys=True, fixtures=...)`` marker
    by default) and an indirect parameter (a dict). Declared ``passportal_expect_violation``
    markers are set on it first. After the test, its violations fail the test."""
    options: Dict[str, Any] = dict(passportal_session_options)
    if isinstance(getattr(request, "param", None), dict):
        options.update(request.param)
    unknown = set(options) - {"own_keys", "fixtures", "expires"}
    if unknown:
        raise pytest.UsageError(
            f"passportal_session: unknown option(s) {sorted(unknown)}; use own_keys, fixtures, expires"
        )
    session = _run_plugin(request.config).create_session(passportal_fake, options)
    try:
        # The counts before anything is declared: a declaration never met then counts as new.
        request.node.stash[BEFORE_KEY] = Tally.of(session)
        for expectation in request.node.iter_markers("passportal_expect_violation"):
            if expectation.args:
                raise pytest.UsageError("passportal_expect_violation takes keywords: method=, path=, location=, times=")
            session.admin.expect_violation(**expectation.kwargs)
        request.node.stash[SESSION_KEY] = session
        yield session
    finally:
        try:
            passportal_fake.admin.delete_session(session.id)
        except AdminError as error:
            if error.status != 404:
                raise
