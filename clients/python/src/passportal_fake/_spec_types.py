# Made by scripts/python-spec-types.ts from spec/openapi.yaml; do not edit (npm run generate).
"""The admin API's request bodies, query parameters and answers as `TypedDict`s, and the bounds of
every field each admin operation takes, from the spec (`spec/openapi.yaml`, tag `admin`)."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, NamedTuple, Optional, Tuple, TypedDict, Union

# Python 3.9 has no `NotRequired`: a type with required and optional keys is a required base
# class and a `total=False` class on it.


class HealthFleetPeersItem(TypedDict):
    ordinal: int
    url: str
    up: bool


class HealthFleet(TypedDict):
    """The root's answer in a fleet only (docs/fleet.md): this replica's ordinal and, for every replica,..."""
    ordinal: int
    draining: bool
    peers: List[HealthFleetPeersItem]


class BudgetUsage(TypedDict):
    used: int
    limit: int
    option: str


class _HealthMemoryRequired(TypedDict):
    heapLimit: int
    total: BudgetUsage
    kinds: Dict[str, BudgetUsage]


class HealthMemory(_HealthMemoryRequired, total=False):
    """The root's answer only: the process's memory budget (`memoryBudget`), the whole and each kind (do..."""
    heapUsed: int


class HealthQuota(TypedDict):
    """A tenant's session only (`--tenants`): the bytes all the tenant's sessions hold together (documen..."""
    tenant: str
    used: int
    limit: Optional[int]


class _HealthRequired(TypedDict):
    status: Literal["ok"]


class Health(_HealthRequired, total=False):
    fleet: HealthFleet
    memory: HealthMemory
    quota: HealthQuota


class FleetDrain(TypedDict):
    """The replica drained."""
    ordinal: int
    draining: Literal[True]


class AdminSuccess(TypedDict):
    success: Literal[True]


FixtureSet = Dict[str, Any]


class State(TypedDict):
    """The current state of the instance."""
    organizations: List[Dict[str, Any]]
    clients: List[Dict[str, Any]]
    templates: List[Dict[str, Any]]
    documents: List[Dict[str, Any]]
    apiKeys: List[Dict[str, Any]]


class ListRequestsQuery(TypedDict, total=False):
    """The query of listRequests."""
    method: str
    path: str
    violations: bool
    notices: bool
    order: Literal["asc", "desc"]
    limit: int
    offset: int
    status: int
    since: int


class _ViolationRequired(TypedDict):
    location: str
    message: str


class Violation(_ViolationRequired, total=False):
    """One violation of the contract."""
    expected: Literal[True]


NoticeCode = Literal[
    "pageNumOmitted",
    "pageSizeCapped",
    "undocumentedType",
    "spellingVariant",
    "spellingVariantIgnored",
    "unknownParameter",
    "repeatedParameter",
    "tokenHeaderAlias",
    "batchFieldIgnored",
    "readShapedDetails",
    "valueCaseVariant",
    "formEncodedBody",
    "batchItemWithoutId",
    "baggageMalformed",
    "keySecretSwapped",
    "nonApiPath",
]


class Notice(TypedDict):
    """One notice: the request worked here but relies on something the vendor's documentation does not p..."""
    code: NoticeCode
    location: str
    message: str


class _JournalEntryRequired(TypedDict):
    id: int
    method: str
    path: str


class JournalEntry(_JournalEntryRequired, total=False):
    """One journaled request with its response."""
    time: str
    query: Dict[str, Any]
    headers: Dict[str, Any]
    body: Any
    status: int
    durationMs: float
    response: Any
    violations: List[Violation]
    notices: List[Notice]
    behaviours: List[str]


class RequestList(TypedDict):
    count: int
    requests: List[JournalEntry]


class _ViolationRecordRequired(TypedDict):
    requestId: int
    method: str
    path: str
    violations: List[Violation]


class ViolationRecord(_ViolationRecordRequired, total=False):
    """The violations of one journaled request."""
    status: int


class _ExpectedViolationRequired(TypedDict):
    id: str
    times: int
    met: int


class ExpectedViolation(_ExpectedViolationRequired, total=False):
    method: str
    path: str
    location: str
    session: str


class ViolationList(TypedDict):
    violations: List[ViolationRecord]
    unmetExpectations: List[ExpectedViolation]


class _NoticeRecordRequired(TypedDict):
    requestId: int
    method: str
    path: str
    notices: List[Notice]


class NoticeRecord(_NoticeRecordRequired, total=False):
    """The notices of one journaled request."""
    time: str
    status: int


class NoticeList(TypedDict):
    notices: List[NoticeRecord]


class GetReportQuery(TypedDict, total=False):
    """The query of getReport."""
    run: str
    tenant: str
    partial: Literal["1", "true"]
    format: Literal["json", "junit", "ctrf", "markdown"]


class ReportRequests(TypedDict):
    total: int
    held: int
    noLongerHeld: int


class ReportSummary(TypedDict):
    """The exact counts since the tally began, which the verdict reads (the Markdown verdict line, the J..."""
    violatingRequests: int
    expectedViolations: int
    unmetExpectations: int
    requestsWithNotices: int
    noticeCodes: Dict[str, int]
    violationsNotListed: int
    noticesNotListed: int


class ReportOperationsItem(TypedDict):
    operationId: str
    count: int


class _ReportBehavioursItemRequired(TypedDict):
    id: str
    group: Literal["vendor", "error", "notice", "fault"]
    count: int
    requests: List[int]


class ReportBehavioursItem(_ReportBehavioursItemRequired, total=False):
    meaning: str
    likelihood: int


class ReportCoverageBehaviours(TypedDict):
    exercised: int
    total: int
    percent: float


class ReportCoverage(TypedDict):
    operations: Dict[str, Any]
    behaviours: ReportCoverageBehaviours


class _ReportNeverExercisedItemRequired(TypedDict):
    id: str
    likelihood: int
    how: str


class ReportNeverExercisedItem(_ReportNeverExercisedItemRequired, total=False):
    meaning: str
    why: str


class ReportSessionsItem(TypedDict):
    id: str
    live: bool
    requests: int


class _ReportRequired(TypedDict):
    instance: str
    expectedViolations: List[ViolationRecord]
    unmetExpectations: List[ExpectedViolation]
    requests: ReportRequests
    summary: ReportSummary
    violations: List[ViolationRecord]
    notices: List[NoticeRecord]
    operations: List[ReportOperationsItem]
    behaviours: List[ReportBehavioursItem]
    coverage: ReportCoverage
    neverExercised: List[ReportNeverExercisedItem]


class Report(_ReportRequired, total=False):
    """The verdict of one instance, or of a run's sessions (docs/reports.md)."""
    run: str
    partial: bool
    missing: List[int]
    sessions: List[ReportSessionsItem]
    generatedAt: str
    since: str
    findingsDropped: int


class CtrfReport(TypedDict):
    """A CTRF report (the CTRF project's JSON schema, published in its `ctrf` npm package)."""
    reportFormat: Literal["CTRF"]
    specVersion: str
    results: Dict[str, Any]


GetReportAnswer = Union[Report, CtrfReport]


class ClearReportQuery(TypedDict, total=False):
    """The query of clearReport."""
    run: str
    tenant: str


class HarLogCreator(TypedDict):
    name: str
    version: str


class _HarLogEntriesItemPassportalRequired(TypedDict):
    requestId: int
    via: str
    outcome: Literal["completed", "dropped", "aborted"]
    violations: List[Violation]
    notices: List[Notice]
    behaviours: List[str]


class HarLogEntriesItemPassportal(_HarLogEntriesItemPassportalRequired, total=False):
    """The journal's id of the request and its findings."""
    operationId: str
    fault: str


class HarLogEntriesItem(TypedDict):
    startedDateTime: str
    time: float
    request: Dict[str, Any]
    response: Dict[str, Any]
    cache: Dict[str, Any]
    timings: Dict[str, Any]
    _passportal: HarLogEntriesItemPassportal


class _HarLogRequired(TypedDict):
    version: Literal["1.2"]
    creator: HarLogCreator
    entries: List[HarLogEntriesItem]


class HarLog(_HarLogRequired, total=False):
    comment: str


class Har(TypedDict):
    """An HTTP Archive (HAR 1.2) of the journal; each entry as HAR 1.2 defines it, plus `_passportal`."""
    log: HarLog


class ExpectedViolationList(TypedDict):
    expectedViolations: List[ExpectedViolation]


class ExpectedViolationInput(TypedDict, total=False):
    """A violation the suite is about to provoke; each absent part matches anything."""
    method: str
    path: str
    location: str
    times: int


class ExpectedViolationCreated(TypedDict):
    id: str


class FaultList(TypedDict):
    faults: List[Dict[str, Any]]


class FaultInput(TypedDict, total=False):
    """A fault for matching requests: answer `status` with `body`, wait `delayMs` first, or `drop` the c..."""
    method: str
    path: str
    status: int
    body: Any
    delayMs: int
    times: int
    drop: bool
    headers: Dict[str, str]
    probability: float
    seed: int
    after: int


class FaultCreated(TypedDict):
    id: str


class RateLimitList(TypedDict):
    rateLimits: List[Dict[str, Any]]


class _RateLimitInputRequired(TypedDict):
    per: Literal["key", "token", "session", "instance"]
    limit: int
    windowSeconds: int


class RateLimitInput(_RateLimitInputRequired, total=False):
    method: str
    path: str


class ScenarioList(TypedDict):
    scenarios: List[Dict[str, Any]]
    applied: List[Dict[str, Any]]


class _ScenarioInputRequired(TypedDict):
    name: str


class ScenarioInput(_ScenarioInputRequired, total=False):
    """A built-in scenario's name with its parameters, or a name of your own with `steps` (checked in fu..."""
    steps: List[Dict[str, Any]]


class Clock(TypedDict):
    now: int
    offsetSeconds: int


class ClockUpdateAdvanceSeconds(TypedDict):
    """Move the clock by this many seconds (negative goes back)."""
    advanceSeconds: int


class ClockUpdateNow(TypedDict):
    """Set the clock to this Unix time (seconds)."""
    now: int


ClockUpdate = Union[ClockUpdateAdvanceSeconds, ClockUpdateNow]


class RevokeResult(TypedDict):
    success: Literal[True]
    revoked: int


class SettingsState(TypedDict):
    """The full settings, every one present."""
    tokenTtlSeconds: int
    hashEncoding: Literal["hex", "base64", "any"]
    defaultPageNum: int
    maxResultsPerPage: int
    unknownDetailKeys: Literal["reject", "accept"]
    successLiterals: Literal["contract", "boolean"]
    errorSuccess: Literal["boolean", "string"]
    readShapedDetails: Literal["accept", "reject"]
    latencyMs: int
    maxBatchItems: int
    maxCreatedDocuments: int
    validateResponses: bool


class Settings(TypedDict, total=False):
    """Run-time settings of an instance; each is also a start-up option (see the README)."""
    tokenTtlSeconds: int
    hashEncoding: Literal["hex", "base64", "any"]
    defaultPageNum: int
    maxResultsPerPage: int
    unknownDetailKeys: Literal["reject", "accept"]
    successLiterals: Literal["contract", "boolean"]
    errorSuccess: Literal["boolean", "string"]
    readShapedDetails: Literal["accept", "reject"]
    latencyMs: int
    maxBatchItems: int
    maxCreatedDocuments: int
    validateResponses: bool


class ListSessionsQuery(TypedDict, total=False):
    """The query of listSessions."""
    partial: Literal["1", "true"]


class _SessionInfoRequired(TypedDict):
    id: str
    baseUrl: str


class SessionInfo(_SessionInfoRequired, total=False):
    createdAt: str
    lastUsedAt: str
    expires: bool
    ownKeyIds: List[str]
    run: str
    owner: str


class _SessionListRequired(TypedDict):
    sessions: List[SessionInfo]


class SessionList(_SessionListRequired, total=False):
    partial: bool
    missing: List[int]


class SessionInput(TypedDict, total=False):
    fixtures: FixtureSet
    expires: bool
    keys: Literal["fixtures", "own"]
    run: str


class SessionCreatedKeysItem(TypedDict):
    keyId: str
    secret: str
    organizationId: int


class _SessionCreatedRequired(TypedDict):
    id: str
    baseUrl: str


class SessionCreated(_SessionCreatedRequired, total=False):
    keys: List[SessionCreatedKeysItem]


class FieldRule(NamedTuple):
    """Where a field goes, whether the spec requires it, and the bounds the spec gives it."""

    where: str
    required: bool
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    minLength: Optional[int] = None
    maxLength: Optional[int] = None
    enum: Optional[Tuple[Any, ...]] = None


# Per operation id: each field it takes, by its name in the spec.
REQUEST_FIELDS: Dict[str, Dict[str, FieldRule]] = {
    "getHealth": {},
    "drainReplica": {},
    "resetState": {},
    "loadFixtures": {},
    "getState": {},
    "listRequests": {
        "method": FieldRule("query", False, maxLength=32),
        "path": FieldRule("query", False, maxLength=2048),
        "violations": FieldRule("query", False),
        "notices": FieldRule("query", False),
        "order": FieldRule("query", False, enum=("asc", "desc")),
        "limit": FieldRule("query", False, minimum=1, maximum=1000),
        "offset": FieldRule("query", False, minimum=0),
        "status": FieldRule("query", False, minimum=100, maximum=599),
        "since": FieldRule("query", False, minimum=0),
    },
    "clearRequests": {},
    "getRequest": {
        "requestId": FieldRule("path", True),
    },
    "listViolations": {},
    "listNotices": {},
    "getReport": {
        "run": FieldRule("query", False),
        "tenant": FieldRule("query", False),
        "partial": FieldRule("query", False, enum=("1", "true")),
        "format": FieldRule("query", False, enum=("json", "junit", "ctrf", "markdown")),
    },
    "clearReport": {
        "run": FieldRule("query", False),
        "tenant": FieldRule("query", False),
    },
    "getHar": {},
    "listExpectedViolations": {},
    "createExpectedViolation": {
        "method": FieldRule("body", False, maxLength=32),
        "path": FieldRule("body", False, maxLength=2048),
        "location": FieldRule("body", False, minLength=1, maxLength=1024),
        "times": FieldRule("body", False, minimum=1, maximum=1000000),
    },
    "clearExpectedViolations": {},
    "deleteExpectedViolation": {
        "expectationId": FieldRule("path", True, minLength=1),
    },
    "listFaults": {},
    "createFault": {
        "method": FieldRule("body", False, maxLength=32),
        "path": FieldRule("body", False, maxLength=2048),
        "status": FieldRule("body", False, minimum=200, maximum=599),
        "body": FieldRule("body", False),
        "delayMs": FieldRule("body", False, minimum=0, maximum=600000),
        "times": FieldRule("body", False, minimum=1),
        "drop": FieldRule("body", False),
        "headers": FieldRule("body", False),
        "probability": FieldRule("body", False, minimum=0, maximum=1),
        "seed": FieldRule("body", False, minimum=0, maximum=4294967295),
        "after": FieldRule("body", False, minimum=0),
    },
    "clearFaults": {},
    "deleteFault": {
        "faultId": FieldRule("path", True, minLength=1),
    },
    "listRateLimits": {},
    "createRateLimit": {
        "per": FieldRule("body", True, enum=("key", "token", "session", "instance")),
        "limit": FieldRule("body", True, minimum=1, maximum=1000000),
        "windowSeconds": FieldRule("body", True, minimum=1, maximum=86400),
        "method": FieldRule("body", False, maxLength=32),
        "path": FieldRule("body", False, maxLength=2048),
    },
    "clearRateLimits": {},
    "deleteRateLimit": {
        "rateLimitId": FieldRule("path", True, minLength=1),
    },
    "listScenarios": {},
    "applyScenario": {
        "name": FieldRule("body", True),
        "steps": FieldRule("body", False),
    },
    "clearScenarios": {},
    "getClock": {},
    "setClock": {
        "advanceSeconds": FieldRule("body", False),
        "now": FieldRule("body", False, minimum=0),
    },
    "revokeTokens": {},
    "getSettings": {},
    "updateSettings": {
        "tokenTtlSeconds": FieldRule("body", False, minimum=1, maximum=31536000),
        "hashEncoding": FieldRule("body", False, enum=("hex", "base64", "any")),
        "defaultPageNum": FieldRule("body", False, minimum=1, maximum=9999),
        "maxResultsPerPage": FieldRule("body", False, minimum=1, maximum=100000),
        "unknownDetailKeys": FieldRule("body", False, enum=("reject", "accept")),
        "successLiterals": FieldRule("body", False, enum=("contract", "boolean")),
        "errorSuccess": FieldRule("body", False, enum=("boolean", "string")),
        "readShapedDetails": FieldRule("body", False, enum=("accept", "reject")),
        "latencyMs": FieldRule("body", False, minimum=0, maximum=60000),
        "maxBatchItems": FieldRule("body", False, minimum=1, maximum=1000000),
        "maxCreatedDocuments": FieldRule("body", False, minimum=0, maximum=10000000),
        "validateResponses": FieldRule("body", False),
    },
    "listSessions": {
        "partial": FieldRule("query", False, enum=("1", "true")),
    },
    "createSession": {
        "fixtures": FieldRule("body", False),
        "expires": FieldRule("body", False),
        "keys": FieldRule("body", False, enum=("fixtures", "own")),
        "run": FieldRule("body", False),
    },
    "deleteSession": {
        "sessionId": FieldRule("path", True, minLength=1),
    },
}
