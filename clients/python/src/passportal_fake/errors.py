"""The exceptions the package raises, and the violation list an assertion shows."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence


class ApiError(Exception):
    """A call the fake refused: its HTTP status and the vendor-shaped body it answered.

    ``message`` is the body's ``message`` (the fake's own words), ``body`` the whole error body
    (``success``, ``message``, ``code``, ``status``, ``apiRequestUid``, and ``errors`` for bad
    input), or ``None`` when the answer was not JSON (a proxy's page, say).
    """

    def __init__(self, method: str, path: str, status: int, body: Optional[Mapping[str, Any]]) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.body = dict(body) if body is not None else None
        self.message: Optional[str] = None
        if self.body is not None and isinstance(self.body.get("message"), str):
            self.message = self.body["message"]
        text = f"{method} {path} answered {status}"
        if self.message:
            text += f": {self.message}"
        errors = self.body.get("errors") if self.body else None
        if isinstance(errors, list):
            for error in errors[:20]:
                if isinstance(error, Mapping):
                    text += f"\n  {error.get('location', '')}: {error.get('message', '')}"
        super().__init__(text)


class AdminError(ApiError):
    """An admin call (``/__admin/...``) the fake refused; ``status``, ``message`` and ``body`` as
    ``ApiError``."""


class StartError(RuntimeError):
    """The fake could not be started or reached; the message carries the fake's own output."""


class ContractViolationError(AssertionError):
    """Raised by ``expect_no_violations()``: the message lists every violation (never a token).

    ``violations`` holds the violation records (``requestId``, ``method``, ``path``, ``status``,
    ``violations: [{location, message}]``), ``unmet`` the declared expected violations that never
    came.
    """

    def __init__(
        self,
        violations: Sequence[Mapping[str, Any]],
        unmet: Sequence[Mapping[str, Any]] = (),
        where: Optional[str] = None,
    ) -> None:
        self.violations = [dict(v) for v in violations]
        self.unmet = [dict(u) for u in unmet]
        super().__init__(describe_violations(self.violations, self.unmet, where))


def describe_violations(
    records: Sequence[Mapping[str, Any]],
    unmet: Sequence[Mapping[str, Any]] = (),
    where: Optional[str] = None,
    violating: Optional[int] = None,
    unmet_count: Optional[int] = None,
) -> str:
    """One line per request (journal id, method, path, status), one indented line per violation
    (location: message), then one line per expected violation that never came. ``violating`` and
    ``unmet_count``: the exact counts, when the lists are bounded (those not listed are said)."""
    lines = []
    at = f" ({where})" if where else ""
    total = len(records) if violating is None else max(violating, len(records))
    if total:
        count = "1 request" if total == 1 else f"{total} requests"
        lines.append(f"the client broke the contract in {count}{at}:")
        for record in records:
            status = record.get("status")
            answered = "no answer" if status is None else str(status)
            lines.append(f"  #{record.get('requestId')} {record.get('method')} {record.get('path')} -> {answered}")
            for violation in record.get("violations") or []:
                lines.append(f"    {violation.get('location')}: {violation.get('message')}")
        if total > len(records):
            lines.append(f"  ({total - len(records)} more not listed: the report keeps the newest)")
    never = len(unmet) if unmet_count is None else max(unmet_count, len(unmet))
    if never:
        count = "1 declared violation" if never == 1 else f"{never} declared violations"
        lines.append(f"expected {count} that never came{at}:")
        for expectation in unmet:
            lines.append("  " + describe_expectation(expectation))
        if never > len(unmet):
            lines.append(f"  ({never - len(unmet)} more not listed: the report keeps the newest)")
    return "\n".join(lines)


def describe_expectation(expectation: Mapping[str, Any]) -> str:
    """``POST /api/v2/documents body/colour: met 0 of 1 times`` (absent fields read ``any``)."""
    method = expectation.get("method") or "any method"
    path = expectation.get("path") or "any path"
    location = expectation.get("location") or "any location"
    times = expectation.get("times", 1)
    met = expectation.get("met", 0)
    return f"{method} {path} {location}: met {met} of {times} times"
