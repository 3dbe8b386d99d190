"""A client of a running fake's admin API: one method per ``/__admin`` operation of the spec.

Each method's name is the one the spec's ``x-python`` extension gives the operation
(``spec/openapi.yaml``, tag ``admin``); each parameter is the spec's field of that name in snake
case (``window_seconds``: ``windowSeconds``) unless ``_FIELD_OF_PARAMETER`` names it. Arguments and
answers are typed by ``_spec_types`` (made from the spec), and each argument is checked against the
spec's bounds for its field before anything is sent (``ValueError`` naming the method and the field).
A parity test (test/clients/python-fields.test.ts) holds the methods to the spec's fields both ways.
Every refusal of the fake raises ``AdminError`` with the status and the vendor-shaped body it answered.
"""

from __future__ import annotations

import json
import ssl
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union, cast

from ._spec_types import (
    REQUEST_FIELDS,
    Clock,
    ExpectedViolation,
    FieldRule,
    FixtureSet,
    Health,
    JournalEntry,
    NoticeRecord,
    Report,
    RequestList,
    ScenarioList,
    SessionCreated,
    SessionCreatedKeysItem,
    SessionInfo,
    Settings,
    SettingsState,
    State,
    ViolationRecord,
)
from .errors import AdminError, ContractViolationError
from .transport import parse_json, redirect_refusal, send

Json = Dict[str, Any]

# The parameters whose name is not their field's in snake case: parameter -> the spec's field.
_FIELD_OF_PARAMETER = {"seconds": "advanceSeconds", "unix_seconds": "now", "own_keys": "keys"}


@dataclass
class Session:
    """A session: its id, the base URL the client under test uses, and an admin client for it.

    ``keys`` holds the session's own API keys with their secrets (``keyId``, ``secret``,
    ``organizationId``) when it was created with ``own_keys=True``; ``run`` its run label. Its
    ``repr`` (what a failing test's locals show) leaves the keys out.
    """

    id: str
    base_url: str
    admin: "AdminClient"
    keys: List[SessionCreatedKeysItem] = field(default_factory=list, repr=False)
    run: Optional[str] = None
    raw: SessionCreated = field(default_factory=lambda: SessionCreated(id="", baseUrl=""), repr=False)


class AdminClient:
    """The admin API of the fake (or of one session) at ``base_url``, e.g. ``http://127.0.0.1:4010``.

    ``admin_token``: the fake's ``ADMIN_TOKEN``, when it was started with one. ``ssl_context``:
    for a fake reached over HTTPS (trusting its CA). Admin calls never go through the proxy the
    environment names.
    """

    def __init__(
        self,
        base_url: str,
        admin_token: Optional[str] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
        timeout: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._admin_token = admin_token
        self._ssl_context = ssl_context
        self._timeout = timeout

    def __repr__(self) -> str:
        return f"AdminClient({self.base_url!r})"

    # --- the instance -------------------------------------------------------------------------

    def health(self) -> Health:
        """``GET /__admin/health``: ``{"status": "ok", ...}``."""
        return cast(Health, self._call("GET", "/health"))

    def drain(self) -> Json:
        """``POST /__admin/fleet/drain``: the fleet replica at this URL creates no more sessions
        (503 ``replicaDraining``) and keeps serving its own; answers ``{"ordinal", "draining"}``.
        Raises :class:`AdminError` 409 (``notInFleet``) for a fake started without a fleet."""
        return self._call("POST", "/fleet/drain")

    def reset(self) -> None:
        """Restores the loaded fixtures and clears the journal, faults, clock and expectations."""
        self._call("POST", "/reset")

    def load_fixtures(self, fixtures: FixtureSet) -> int:
        """Replaces the state with a fixture set (the new reset point); answers its documents' count."""
        return int(self._call("PUT", "/fixtures", dict(fixtures)).get("documents", 0))

    def state(self) -> State:
        """The current organizations, clients, templates, documents and API keys."""
        return cast(State, self._call("GET", "/state"))

    def settings(self) -> SettingsState:
        """The run-time settings."""
        return cast(SettingsState, self._call("GET", "/settings"))

    def update_settings(self, changes: Optional[Settings] = None, **more: Any) -> SettingsState:
        """Changes run-time settings (``tokenTtlSeconds=60``, ...); answers them all. Each is
        checked against the spec's bounds (``ValueError`` naming it) before anything is sent."""
        body = _checked("updateSettings", "update_settings", {**(changes or {}), **more})
        return cast(SettingsState, self._call("PUT", "/settings", body))

    # --- the journal and its findings ----------------------------------------------------------

    def requests(
        self,
        method: Optional[str] = None,
        path: Optional[str] = None,
        violations: Optional[bool] = None,
        notices: Optional[bool] = None,
        order: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        status: Optional[int] = None,
        since: Optional[int] = None,
    ) -> RequestList:
        """One page of the journal: ``{"count", "requests"}``, ``limit`` entries (1..1000, default
        100) from ``offset``. Filters: ``method``, ``path`` (``*`` suffix: a prefix),
        ``violations``/``notices`` (only requests with them), ``status``, ``since`` (journal ids
        above it); ``order``: ``asc`` or ``desc``."""
        query = _fields(
            "listRequests",
            "requests",
            method=method,
            path=path,
            violations=violations,
            notices=notices,
            order=order,
            limit=limit,
            offset=offset,
            status=status,
            since=since,
        )
        return cast(RequestList, self._call("GET", "/requests" + _query(query)))

    def request(self, request_id: int) -> JournalEntry:
        """One journaled request, whole."""
        ids = _fields("getRequest", "request", request_id=int(request_id))
        return cast(JournalEntry, self._call("GET", f"/requests/{ids['requestId']}"))

    def clear_requests(self) -> None:
        """Empties the journal."""
        self._call("DELETE", "/requests")

    def violations(self) -> List[ViolationRecord]:
        """One record per journaled request that broke the contract (expected ones left out)."""
        return list(self._call("GET", "/violations").get("violations", []))

    def expect_no_violations(self) -> None:
        """Raises ``ContractViolationError`` (an ``AssertionError``) listing every violation, and
        every declared expected violation that never came. Run it after each test, before the
        next reset clears the journal."""
        records = self.violations()
        unmet = [e for e in self._expected_or_none() if int(e.get("met", 0)) < int(e.get("times", 1))]
        if records or unmet:
            raise ContractViolationError(records, unmet, self.base_url)

    def notices(self) -> List[NoticeRecord]:
        """One record per request that relied on something the documentation does not promise."""
        return list(self._call("GET", "/notices").get("notices", []))

    def report(
        self,
        format: str = "json",
        run: Optional[str] = None,
        tenant: Optional[str] = None,
        partial: Optional[str] = None,
    ) -> Union[Report, str]:
        """The verdict for CI: the report object (``json``), or the text of ``junit``, ``ctrf``
        (as text) or ``markdown``. ``run``: the report of every session labelled with that run
        (at the root URL; in a fleet, of every replica); ``tenant``: whose run it is, with
        ``--tenants`` (the operator's token; a tenant's token reads its own runs without it).
        ``partial="1"``: in a fleet with a replica down, the run's report of those that answer
        (``partial``, ``missing``) instead of a 503 naming it."""
        fields = _fields("getReport", "report", format=format, run=run, tenant=tenant, partial=partial)
        if format == "json":
            del fields["format"]  # the default: a fake from before the other formats takes it too
            return cast(Report, self._call("GET", "/report" + _query(fields)))
        return self._call_text("GET", "/report" + _query(fields))

    def har(self) -> Json:
        """The journal as an HTTP Archive (HAR 1.2): credentials redacted, each entry's findings
        in ``_passportal``. Write it with ``json.dump`` to open it in a browser's devtools."""
        return self._call("GET", "/har")

    def clear_report(self, run: Optional[str] = None, tenant: Optional[str] = None) -> None:
        """Forgets what the report holds (of this instance, or of the run ``run``, the tenant
        ``tenant``'s with ``--tenants``)."""
        self._call("DELETE", "/report" + _query(_fields("clearReport", "clear_report", run=run, tenant=tenant)))

    # --- expected violations -------------------------------------------------------------------

    def expect_violation(
        self,
        method: Optional[str] = None,
        path: Optional[str] = None,
        location: Optional[str] = None,
        times: Optional[int] = None,
    ) -> str:
        """Declares a violation the next requests make on purpose; answers its id. ``path`` as
        faults match it (``*`` suffix: a prefix), ``location`` the violation's (``body/colour``,
        ``query.pageNum``), ``times`` default 1. Left out of ``violations()``; one never met
        fails ``expect_no_violations()``."""
        body = _fields(
            "createExpectedViolation", "expect_violation", method=method, path=path, location=location, times=times
        )
        return str(self._call("POST", "/expected-violations", body)["id"])

    def expected_violations(self) -> List[ExpectedViolation]:
        """The declarations, each with how many violations met it (``met``)."""
        return list(self._call("GET", "/expected-violations").get("expectedViolations", []))

    def clear_expected_violations(self) -> None:
        """Removes every declaration."""
        self._call("DELETE", "/expected-violations")

    def remove_expected_violation(self, expectation_id: str) -> None:
        """Removes one declaration (``AdminError`` 404 when unknown)."""
        ids = _fields("deleteExpectedViolation", "remove_expected_violation", expectation_id=expectation_id)
        self._call("DELETE", f"/expected-violations/{_segment(ids['expectationId'])}")

    # --- faults, rate limits, scenarios ---------------------------------------------------------

    def add_fault(
        self,
        method: Optional[str] = None,
        path: Optional[str] = None,
        status: Optional[int] = None,
        body: Any = None,
        delay_ms: Optional[int] = None,
        times: Optional[int] = None,
        drop: Optional[bool] = None,
        headers: Optional[Mapping[str, str]] = None,
        probability: Optional[float] = None,
        seed: Optional[int] = None,
        after: Optional[int] = None,
    ) -> str:
        """Makes matching requests fail: answer ``status`` with ``body`` (and ``headers``), wait
        ``delay_ms`` first, or ``drop`` the connection; ``times`` matches only, with
        ``probability`` (0..1, ``seed``), after skipping the first ``after``. Answers its id."""
        fault = _fields(
            "createFault",
            "add_fault",
            method=method,
            path=path,
            status=status,
            body=body,
            delay_ms=delay_ms,
            times=times,
            drop=drop,
            headers=dict(headers) if headers is not None else None,
            probability=probability,
            seed=seed,
            after=after,
        )
        return str(self._call("POST", "/faults", fault)["id"])

    def faults(self) -> List[Json]:
        """The active faults."""
        return list(self._call("GET", "/faults").get("faults", []))

    def clear_faults(self) -> None:
        """Removes every fault."""
        self._call("DELETE", "/faults")

    def remove_fault(self, fault_id: str) -> None:
        """Removes one fault (``AdminError`` 404 when unknown)."""
        ids = _fields("deleteFault", "remove_fault", fault_id=fault_id)
        self._call("DELETE", f"/faults/{_segment(ids['faultId'])}")

    def add_rate_limit(
        self,
        per: str,
        limit: int,
        window_seconds: int,
        method: Optional[str] = None,
        path: Optional[str] = None,
    ) -> str:
        """Answers 429 past ``limit`` requests per ``window_seconds``, counted ``per`` ``key``,
        ``token``, ``session`` or ``instance``; answers its id."""
        body = _fields(
            "createRateLimit",
            "add_rate_limit",
            per=per,
            limit=limit,
            window_seconds=window_seconds,
            method=method,
            path=path,
        )
        return str(self._call("POST", "/rate-limits", body)["id"])

    def rate_limits(self) -> List[Json]:
        """The active rate limits."""
        return list(self._call("GET", "/rate-limits").get("rateLimits", []))

    def clear_rate_limits(self) -> None:
        """Removes every rate limit."""
        self._call("DELETE", "/rate-limits")

    def remove_rate_limit(self, rate_limit_id: str) -> None:
        """Removes one rate limit."""
        ids = _fields("deleteRateLimit", "remove_rate_limit", rate_limit_id=rate_limit_id)
        self._call("DELETE", f"/rate-limits/{_segment(ids['rateLimitId'])}")

    def scenarios(self) -> ScenarioList:
        """``{"scenarios": [{name, description, catches, parameters}], "applied": [...]}``."""
        return cast(ScenarioList, self._call("GET", "/scenarios"))

    def apply_scenario(self, name: str, steps: Optional[Sequence[Mapping[str, Any]]] = None, **parameters: Any) -> str:
        """Applies a built-in scenario (``token-expires-mid-crawl``, ``throttled``, ``flaky``,
        ``changed-under-you``) with its parameters, or one of your own ``steps``; answers its id."""
        body = _fields(
            "applyScenario",
            "apply_scenario",
            name=name,
            steps=[dict(step) for step in steps] if steps is not None else None,
        )
        # A built-in scenario's own parameters: the spec leaves them open (its catalogue lists them).
        body.update(parameters)
        return str(self._call("POST", "/scenarios", body)["id"])

    def clear_scenarios(self) -> None:
        """Removes the applied scenarios and what they installed."""
        self._call("DELETE", "/scenarios")

    # --- clock and tokens ---------------------------------------------------------------------

    def clock(self) -> Clock:
        """``{"now", "offsetSeconds"}``."""
        return cast(Clock, self._call("GET", "/clock"))

    def advance_clock(self, seconds: int) -> Clock:
        """Moves the clock forward (past a token's ``expiry_time`` expires it)."""
        return cast(Clock, self._call("POST", "/clock", _fields("setClock", "advance_clock", seconds=seconds)))

    def set_clock(self, unix_seconds: int) -> Clock:
        """Sets the clock to an absolute time."""
        return cast(Clock, self._call("POST", "/clock", _fields("setClock", "set_clock", unix_seconds=unix_seconds)))

    def revoke_tokens(self) -> int:
        """Invalidates every token issued so far; answers how many were still usable."""
        return int(self._call("POST", "/tokens/revoke").get("revoked", 0))

    # --- sessions -----------------------------------------------------------------------------

    def create_session(
        self,
        own_keys: bool = False,
        run: Optional[str] = None,
        fixtures: Optional[FixtureSet] = None,
        expires: Optional[bool] = None,
    ) -> Session:
        """A new isolated session (its own state, journal, faults, clock). ``own_keys``: API keys
        of its own (in ``keys``, with secrets), which reach it at the root URL too; ``run``: the
        run label its report joins."""
        body = _fields(
            "createSession",
            "create_session",
            own_keys="own" if own_keys else None,
            run=run,
            fixtures=dict(fixtures) if fixtures is not None else None,
            expires=expires,
        )
        created = cast(SessionCreated, self._call("POST", "/sessions", body))
        admin = AdminClient(created["baseUrl"], self._admin_token, self._ssl_context, self._timeout)
        return Session(
            id=str(created["id"]),
            base_url=str(created["baseUrl"]),
            admin=admin,
            keys=list(created.get("keys") or []),
            run=run,
            raw=created,
        )

    def sessions(self, partial: Optional[str] = None) -> List[SessionInfo]:
        """The live sessions (of every replica, in a fleet). ``partial="1"``: in a fleet with a
        replica down, the sessions of those that answer instead of a 503 naming it."""
        query = _fields("listSessions", "sessions", partial=partial)
        return list(self._call("GET", "/sessions" + _query(query)).get("sessions", []))

    def delete_session(self, session_id: str) -> None:
        """Deletes a session (``AdminError`` 404 when unknown)."""
        ids = _fields("deleteSession", "delete_session", session_id=session_id)
        self._call("DELETE", f"/sessions/{_segment(ids['sessionId'])}")

    # --- the wire -----------------------------------------------------------------------------

    def _expected_or_none(self) -> List[ExpectedViolation]:
        try:
            return self.expected_violations()
        except AdminError as error:
            if error.status == 404 and error.path.endswith("/expected-violations"):
                return []  # a fake from before expected violations
            raise

    def _call(self, method: str, path: str, body: Any = None) -> Json:
        text = self._call_text(method, path, body)
        if text == "":
            return {}
        try:
            answer = json.loads(text)
        except ValueError:
            raise AdminError(method, f"/__admin{path}", 200, {"message": "the answer is not JSON"}) from None
        return answer if isinstance(answer, dict) else {"value": answer}

    def _call_text(self, method: str, path: str, body: Any = None) -> str:
        headers = {"accept": "application/json, */*"}
        if self._admin_token:
            headers["authorization"] = f"Bearer {self._admin_token}"
        data = None
        if body is not None:
            headers["content-type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        url = f"{self.base_url}/__admin{path}"
        status, answered, answer = send(method, url, data, headers, self._timeout, self._ssl_context)
        refusal = redirect_refusal(status, answered, url)
        if refusal is not None:
            raise AdminError(method, f"/__admin{path}", status, {"message": refusal})
        if status >= 400:
            parsed = parse_json(answer)
            raise AdminError(method, f"/__admin{path}", status, parsed if isinstance(parsed, dict) else None)
        return answer.decode("utf-8")


def _field_name(parameter: str) -> str:
    """The spec's name of a method's parameter: ``window_seconds`` -> ``windowSeconds``."""
    if parameter in _FIELD_OF_PARAMETER:
        return _FIELD_OF_PARAMETER[parameter]
    head, *rest = parameter.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _fields(operation: str, method: str, /, **parameters: Any) -> Json:
    """The given parameters (``None``: left out) by their names in the spec, each checked against
    the spec's bounds for it."""
    return _checked(operation, method, {_field_name(k): v for k, v in parameters.items()})


def _checked(operation: str, method: str, fields: Mapping[str, Any]) -> Json:
    rules = REQUEST_FIELDS[operation]
    present: Json = {}
    for name, value in fields.items():
        if value is None:
            continue
        rule = rules.get(name)
        if rule is None:
            known = ", ".join(sorted(rules)) or "none"
            raise ValueError(f"{method}: {operation} takes no field {name!r} (it takes: {known})")
        problem = _out_of_bounds(rule, value)
        if problem is not None:
            raise ValueError(f"{method}: {name} {problem}, not {value!r} ({operation} in the spec)")
        present[name] = value
    return present


def _out_of_bounds(rule: FieldRule, value: Any) -> Optional[str]:
    """What is wrong with a value by the spec's bounds, or ``None``."""
    if rule.enum is not None and value not in rule.enum:
        return "must be one of " + ", ".join(repr(v) for v in rule.enum)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if rule.minimum is not None and value < rule.minimum:
            return f"must be at least {rule.minimum}"
        if rule.maximum is not None and value > rule.maximum:
            return f"must be at most {rule.maximum}"
    if isinstance(value, str):
        if rule.minLength is not None and len(value) < rule.minLength:
            return f"must be at least {rule.minLength} characters"
        if rule.maxLength is not None and len(value) > rule.maxLength:
            return f"must be at most {rule.maxLength} characters"
    return None


def _query(values: Mapping[str, Any]) -> str:
    pairs = []
    for key, value in values.items():
        if value is None:
            continue
        pairs.append((key, ("true" if value else "false") if isinstance(value, bool) else str(value)))
    return "" if not pairs else "?" + urllib.parse.urlencode(pairs)


def _segment(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")
