"""A client of a running fake's admin API: one method per ``/__admin`` operation of the spec.

Each method's name is the one the spec's ``x-python`` extension gives the operation
(``spec/openapi.yaml``, tag ``admin``); a parity test holds the two together. Every refusal raises
``AdminError`` with the status and the vendor-shaped body the fake answered.
"""

from __future__ import annotations

import json
import ssl
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .errors import AdminError, ContractViolationError
from .transport import parse_json, redirect_refusal, send

Json = Dict[str, Any]


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
    keys: List[Json] = field(default_factory=list, repr=False)
    run: Optional[str] = None
    raw: Json = field(default_factory=dict, repr=False)


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

    def health(self) -> Json:
        """``GET /__admin/health``: ``{"status": "ok", ...}``."""
        return self._call("GET", "/health")

    def reset(self) -> None:
        """Restores the loaded fixtures and clears the journal, faults, clock and expectations."""
        self._call("POST", "/reset")

    def load_fixtures(self, fixtures: Mapping[str, Any]) -> int:
        """Replaces the state with a fixture set (the new reset point); answers its documents' count."""
        return int(self._call("PUT", "/fixtures", fixtures).get("documents", 0))

    def state(self) -> Json:
        """The current organizations, clients, templates, documents and API keys."""
        return self._call("GET", "/state")

    def settings(self) -> Json:
        """The run-time settings."""
        return self._call("GET", "/settings")

    def update_settings(self, changes: Optional[Mapping[str, Any]] = None, **more: Any) -> Json:
        """Changes run-time settings (``tokenTtlSeconds=60``, ...); answers them all."""
        return self._call("PUT", "/settings", {**(changes or {}), **more})

    # --- the journal and its findings ----------------------------------------------------------

    def requests(self, **filters: Any) -> Json:
        """One page of the journal: ``{"count", "requests"}``. Filters: ``method``, ``path``
        (``*`` suffix: a prefix), ``violations``, ``notices``, ``status``, ``since``, ``order``,
        ``limit``, ``offset``."""
        return self._call("GET", "/requests" + _query(filters))

    def request(self, request_id: int) -> Json:
        """One journaled request, whole."""
        return self._call("GET", f"/requests/{int(request_id)}")

    def clear_requests(self) -> None:
        """Empties the journal."""
        self._call("DELETE", "/requests")

    def violations(self) -> List[Json]:
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

    def notices(self) -> List[Json]:
        """One record per request that relied on something the documentation does not promise."""
        return list(self._call("GET", "/notices").get("notices", []))

    def report(
        self, format: str = "json", run: Optional[str] = None, tenant: Optional[str] = None
    ) -> Union[Json, str]:
        """The verdict for CI: the report object (``json``), or the text of ``junit``, ``ctrf``
        (as text) or ``markdown``. ``run``: the report of every session labelled with that run
        (at the root URL); ``tenant``: whose run it is, with ``--tenants`` (the operator's token;
        a tenant's token reads its own runs without it)."""
        query = _query({"format": None if format == "json" else format, "run": run, "tenant": tenant})
        if format == "json":
            return self._call("GET", "/report" + query)
        return self._call_text("GET", "/report" + query)

    def clear_report(self, run: Optional[str] = None, tenant: Optional[str] = None) -> None:
        """Forgets what the report holds (of this instance, or of the run ``run``, the tenant
        ``tenant``'s with ``--tenants``)."""
        self._call("DELETE", "/report" + _query({"run": run, "tenant": tenant}))

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
        body = _present(method=method, path=path, location=location, times=times)
        return str(self._call("POST", "/expected-violations", body)["id"])

    def expected_violations(self) -> List[Json]:
        """The declarations, each with how many violations met it (``met``)."""
        return list(self._call("GET", "/expected-violations").get("expectedViolations", []))

    def clear_expected_violations(self) -> None:
        """Removes every declaration."""
        self._call("DELETE", "/expected-violations")

    def remove_expected_violation(self, expectation_id: str) -> None:
        """Removes one declaration (``AdminError`` 404 when unknown)."""
        self._call("DELETE", f"/expected-violations/{_segment(expectation_id)}")

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
        fault = _present(
            method=method,
            path=path,
            status=status,
            body=body,
            delayMs=delay_ms,
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
        self._call("DELETE", f"/faults/{_segment(fault_id)}")

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
        body = _present(per=per, limit=limit, windowSeconds=window_seconds, method=method, path=path)
        return str(self._call("POST", "/rate-limits", body)["id"])

    def rate_limits(self) -> List[Json]:
        """The active rate limits."""
        return list(self._call("GET", "/rate-limits").get("rateLimits", []))

    def clear_rate_limits(self) -> None:
        """Removes every rate limit."""
        self._call("DELETE", "/rate-limits")

    def remove_rate_limit(self, rate_limit_id: str) -> None:
        """Removes one rate limit."""
        self._call("DELETE", f"/rate-limits/{_segment(rate_limit_id)}")

    def scenarios(self) -> Json:
        """``{"scenarios": [{name, description, catches, parameters}], "applied": [...]}``."""
        return self._call("GET", "/scenarios")

    def apply_scenario(self, name: str, steps: Optional[Sequence[Mapping[str, Any]]] = None, **parameters: Any) -> str:
        """Applies a built-in scenario (``token-expires-mid-crawl``, ``throttled``, ``flaky``,
        ``changed-under-you``) with its parameters, or one of your own ``steps``; answers its id."""
        body: Json = {"name": name, **parameters}
        if steps is not None:
            body["steps"] = [dict(step) for step in steps]
        return str(self._call("POST", "/scenarios", body)["id"])

    def clear_scenarios(self) -> None:
        """Removes the applied scenarios and what they installed."""
        self._call("DELETE", "/scenarios")

    # --- clock and tokens ---------------------------------------------------------------------

    def clock(self) -> Json:
        """``{"now", "offsetSeconds"}``."""
        return self._call("GET", "/clock")

    def advance_clock(self, seconds: int) -> Json:
        """Moves the clock forward (past a token's ``expiry_time`` expires it)."""
        return self._call("POST", "/clock", {"advanceSeconds": seconds})

    def set_clock(self, unix_seconds: int) -> Json:
        """Sets the clock to an absolute time."""
        return self._call("POST", "/clock", {"now": unix_seconds})

    def revoke_tokens(self) -> int:
        """Invalidates every token issued so far; answers how many were still usable."""
        return int(self._call("POST", "/tokens/revoke").get("revoked", 0))

    # --- sessions -----------------------------------------------------------------------------

    def create_session(
        self,
        own_keys: bool = False,
        run: Optional[str] = None,
        fixtures: Optional[Mapping[str, Any]] = None,
        expires: Optional[bool] = None,
    ) -> Session:
        """A new isolated session (its own state, journal, faults, clock). ``own_keys``: API keys
        of its own (in ``keys``, with secrets), which reach it at the root URL too; ``run``: the
        run label its report joins."""
        body = _present(
            keys="own" if own_keys else None,
            run=run,
            fixtures=dict(fixtures) if fixtures is not None else None,
            expires=expires,
        )
        created = self._call("POST", "/sessions", body)
        admin = AdminClient(created["baseUrl"], self._admin_token, self._ssl_context, self._timeout)
        return Session(
            id=str(created["id"]),
            base_url=str(created["baseUrl"]),
            admin=admin,
            keys=list(created.get("keys") or []),
            run=created.get("run", run),
            raw=created,
        )

    def sessions(self) -> List[Json]:
        """The live sessions."""
        return list(self._call("GET", "/sessions").get("sessions", []))

    def delete_session(self, session_id: str) -> None:
        """Deletes a session (``AdminError`` 404 when unknown)."""
        self._call("DELETE", f"/sessions/{_segment(session_id)}")

    # --- the wire -----------------------------------------------------------------------------

    def _expected_or_none(self) -> List[Json]:
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


def _present(**values: Any) -> Json:
    return {key: value for key, value in values.items() if value is not None}


def _query(values: Mapping[str, Any]) -> str:
    pairs = []
    for key, value in values.items():
        if value is None:
            continue
        pairs.append((key, ("true" if value else "false") if isinstance(value, bool) else str(value)))
    return "" if not pairs else "?" + urllib.parse.urlencode(pairs)


def _segment(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")
