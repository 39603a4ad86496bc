"""The private edge<->service bridge vocabulary: one attrs class per message.

Every frame body is a CBOR map ``{"t": <message name>, ...fields}`` (``bridge_codec`` maps
them). The vocabulary is protocol-neutral: no JSON-RPC ids, no MCP revision dates.
``specs/bridge.md`` documents it.
"""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

import attrs

BRIDGE_MAJOR: Final = 1
BRIDGE_MINOR: Final = 1

JsonValue = Any
"""A JSON-compatible value (CBOR carries it unchanged, key order preserved)."""
JsonObject = dict[str, JsonValue]
"""A field that carries a JSON object: handed to the encoder as it is."""


# --- opening -----------------------------------------------------------------------------


@attrs.frozen
class ClientHello:
    """First frame from a connector: its bridge version and a fresh nonce the proof must cover."""

    bridge_major: int
    bridge_minor: int
    nonce: bytes
    role: Literal["edge", "control"] = "edge"
    client_version: str = ""


@attrs.frozen
class ServiceHello:
    """The service's answer; its exact encoded bytes are what ``ServiceProof`` authenticates."""

    bridge_major: int
    bridge_minor: int
    client_nonce: bytes
    service_nonce: bytes
    service_version: str
    instance: str


@attrs.frozen
class ServiceProof:
    """HMAC-SHA256, keyed by the per-user instance secret, over the exact ServiceHello frame body."""

    mac: bytes


@attrs.frozen
class VersionMismatch:
    """Sent instead of a hello when the bridge majors differ; the stream then closes."""

    supported_major: int
    message: str


# --- workspaces ----------------------------------------------------------------------------


@attrs.frozen
class OpenWorkspace:
    """Ask for a workspace (the implicit one of a 2025-11-25 edge)."""

    sequence: int
    """Echoed by the answer: ``WorkspaceOpened``, or ``Rejected`` when none can be opened."""
    reattach: str | None = None
    """The handle the edge held before a bridge loss, to keep it if the service still can."""
    client_label: str = ""


@attrs.frozen
class WorkspaceOpened:
    """The workspace handle, for the ``OpenWorkspace`` of ``sequence``."""

    sequence: int
    workspace_id: str
    reattached: bool
    """False when a fresh one had to be minted (the one asked for was gone)."""


@attrs.frozen
class ReleaseWorkspace:
    """Clean release of a workspace the edge opened (no answer)."""

    workspace_id: str


# --- catalog -------------------------------------------------------------------------------


@attrs.frozen
class ToolDescriptor:
    """One tool as the service advertises it, rendered by each dated MCP handler."""

    name: str
    title: str
    description: str
    input_schema: JsonObject
    """Keeps its declaration key order (models were trained on it)."""
    annotations: JsonObject
    workspace_use: Literal["creates", "uses", "independent"]
    """Whether the tool makes a workspace, works in one, or needs none: what the 2026-07-28
    edge adds a ``workspaceId`` argument and result for."""
    output_schema: JsonObject | None = None


@attrs.frozen
class CatalogRequest:
    """Ask for the current ``CatalogProjection``; with a ``restriction`` (bridge 1.1), for the
    part of it that restriction allows. Encoded only when given, so a 1.0 service never sees
    the field (the connector sends none to it)."""

    sequence: int
    restriction: JsonObject | None = None


@attrs.frozen
class CatalogProjection:
    """The whole catalog at one generation. ``restricted`` marks a list that depends on policy."""

    sequence: int
    generation: int
    tools: list[ToolDescriptor]
    restricted: bool = False


@attrs.frozen
class CatalogChanged:
    """Unsolicited: the catalog moved to ``generation``; edges refetch and tell their clients."""

    generation: int


# --- content of results ------------------------------------------------------------------


@attrs.frozen
class TextBlock:
    """Text of a result, as the agent reads it."""

    text: str
    type: Literal["text"] = "text"


@attrs.frozen
class ImageBlock:
    """An image of a result (a screenshot), its bytes as they are: CBOR carries them raw."""

    data: bytes
    mime_type: str
    type: Literal["image"] = "image"


ContentBlock = TextBlock | ImageBlock


# --- work ----------------------------------------------------------------------------------


@attrs.frozen
class RequestContext:
    """Immutable facts about the caller that travel with one call; never authority by themselves."""

    client_label: str = ""
    wants_progress: bool = False
    restriction: JsonObject | None = None


@attrs.frozen
class Start:
    """Run ``operation`` (a catalog tool name) with ``arguments``."""

    sequence: int
    operation: str
    arguments: JsonObject
    workspace_id: str | None = None
    context: RequestContext = RequestContext()


@attrs.frozen
class Started:
    """Correlates ``sequence`` with the service-minted ``work_id`` for the rest of the call."""

    sequence: int
    work_id: str


RejectionCode = Literal[
    "unknown_tool",
    "invalid_request",
    "workspace_required",
    "unknown_workspace",
    "busy",
    "shutting_down",
]


@attrs.frozen
class Rejected:
    """The service refused to start the call (or to open the workspace); nothing ran."""

    sequence: int
    code: RejectionCode
    message: str
    next_step: str = ""
    """What the agent can do about it, in words ("" when the message says it all)."""


@attrs.frozen
class Progress:
    """How far a running call is; sent only when its ``RequestContext`` asked for it."""

    work_id: str
    progress: float
    """Grows with each report of one call (the edge drops one that does not)."""
    total: float | None = None
    message: str = ""


OutcomeKind = Literal[
    "ok",  # the tool ran and succeeded
    "tool_error",  # the tool ran (or validated) and failed in a way the agent can correct
    "denied",  # governance or ownership refused it; nothing ran (a composition: its steps
    #            before the refused one ran, and its text says which)
    "held",  # the user holds the wheel or panicked; nothing ran (a composition: as for denied)
    "outcome_unknown",  # it may have started; whether it took effect is not known
    "cancelled",  # cancellation acknowledged; no claim about effects
]


@attrs.frozen
class Outcome:
    """The one terminal message for a work id."""

    work_id: str
    kind: OutcomeKind
    content: list[ContentBlock] = attrs.Factory(list)
    structured: JsonObject | None = None
    workspace_id: str | None = None


@attrs.frozen
class Cancel:
    """Cooperative cancellation of active work (no answer beyond its eventual Outcome)."""

    work_id: str
    reason: str = ""


# --- control ---------------------------------------------------------------------------


@attrs.frozen
class StatusRequest:
    """A point-in-time summary, for ``ghostlight status``, doctor and launch waits."""

    sequence: int


@attrs.frozen
class BrowserSummary:
    """One connected browser, as ``ghostlight status`` shows it."""

    slot: int
    """Its slot in the composite tab ids agents see (slot × 2^32 + native tab id)."""
    browser_id: str
    generation: str
    extension_version: str
    features: list[str]
    waiting: int = 0
    """Requests sent to it that still wait for their answer."""
    silent_for: int = 0
    """Whole seconds since it last sent anything, while requests wait (else 0)."""
    unanswered_ping_for: int | None = None
    """Whole seconds since a ping sent after such a silence went unanswered: it, or its
    native host, may be frozen. None while it answers."""


@attrs.frozen
class WorkspaceEntry:
    """One live workspace as the user may see it in ``ghostlight status``: never its handle."""

    fingerprint: str
    """Its keyed audit name (``ws-`` and 16 hex digits), what ``resume --workspace`` takes."""
    label: str = ""
    """The client's self-reported label (presentation only)."""
    ordinal: int = 1
    """1 for the first live workspace with this label, 2 for the next (as in its tab group's
    title, ``Ghostlight · claude-code 2``)."""
    tabs: int = 0
    active_calls: int = 0
    clients: int = 0
    """How many client streams hold it now."""
    expires_in: int | None = None
    """Whole seconds (rounded up) until it expires if nothing uses it; None while a client or
    a call holds it."""
    paused: bool = False
    """Repeated denials paused it (the attention circuit) until the user resumes it."""


@attrs.frozen
class StatusReport:
    """The answer to a ``StatusRequest``."""

    sequence: int
    service_version: str
    pid: int
    edges: int
    """Admitted MCP client connections."""
    browsers: list[BrowserSummary]
    workspaces: int
    active_work: int
    """Calls running now, on every connection."""
    held: bool = False
    panicked: bool = False
    quarantined: list[str] = attrs.Factory(list)
    """What no call may touch because an earlier action on it has an unknown outcome, as the
    agent names it (e.g. ``tab 4294967303``)."""
    workspace_list: list[WorkspaceEntry] = attrs.Factory(list)
    """Each live workspace, oldest first (empty from a service that predates it)."""
    audit_problem: str = ""
    """Why the audit trail cannot be written now, while calls that reach a page are refused
    for it ("" when it can, and from a service that predates it)."""


@attrs.frozen
class ControlCommand:
    """A user's safety command from the CLI: ``hold``, ``resume``, ``panic`` or ``reload``."""

    sequence: int
    command: str


@attrs.frozen
class ControlResult:
    """The service's answer to a ``ControlCommand``: whether it applied, in words."""

    sequence: int
    ok: bool
    message: str


@attrs.frozen
class Fatal:
    """The peer is closing this stream because of a protocol violation."""

    message: str


Message = (
    ClientHello
    | ServiceHello
    | ServiceProof
    | VersionMismatch
    | OpenWorkspace
    | WorkspaceOpened
    | ReleaseWorkspace
    | CatalogRequest
    | CatalogProjection
    | CatalogChanged
    | Start
    | Started
    | Rejected
    | Progress
    | Outcome
    | Cancel
    | StatusRequest
    | StatusReport
    | ControlCommand
    | ControlResult
    | Fatal
)

MESSAGE_TYPES: Final[dict[str, type[Any]]] = {cls.__name__: cls for cls in get_args(Message)}
"""Each message class by the name its frames carry in ``t``."""


def for_peer(message: Message, peer_minor: int) -> Message:
    """``message`` as a peer of the same major and ``peer_minor`` can read it: a field added
    in a later minor is left out (a 1.0 service would drop the stream over a key it does not
    know). A ``CatalogRequest``'s restriction (1.1) then falls back to the whole list, which
    the connector still answers as private."""
    if isinstance(message, CatalogRequest) and message.restriction is not None and peer_minor < 1:
        return CatalogRequest(sequence=message.sequence)
    return message
