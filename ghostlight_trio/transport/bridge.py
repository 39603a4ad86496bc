"""The private edge<->service bridge vocabulary: one attrs class per message, one cattrs converter.

Every frame body is a CBOR map ``{"t": <message name>, ...fields}``. The vocabulary is
protocol-neutral: no JSON-RPC ids, no MCP revision dates. ``specs/bridge.md`` documents it.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import attrs
import cattrs
import cbor2

BRIDGE_MAJOR: Final = 1
BRIDGE_MINOR: Final = 0

JsonValue = Any
"""A JSON-compatible value (CBOR carries it unchanged, key order preserved)."""


class BridgeProtocolError(Exception):
    """A frame could not be decoded into a known, well-typed bridge message."""


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
    """Ask for a workspace; ``reattach`` names one the edge held before a bridge loss."""

    sequence: int
    reattach: str | None = None
    client_label: str = ""


@attrs.frozen
class WorkspaceOpened:
    """The workspace handle; ``reattached`` is False when a fresh one had to be minted."""

    sequence: int
    workspace_id: str
    reattached: bool


@attrs.frozen
class ReleaseWorkspace:
    """Clean release of a workspace the edge opened (no answer)."""

    workspace_id: str


# --- catalog -------------------------------------------------------------------------------


@attrs.frozen
class ToolDescriptor:
    """One tool as the service advertises it; schemas keep their declaration key order."""

    name: str
    title: str
    description: str
    input_schema: dict[str, JsonValue]
    annotations: dict[str, JsonValue]
    workspace_use: Literal["creates", "uses", "independent"]
    output_schema: dict[str, JsonValue] | None = None


@attrs.frozen
class CatalogRequest:
    sequence: int


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


# --- work ----------------------------------------------------------------------------------


@attrs.frozen
class RequestContext:
    """Immutable facts about the caller that travel with one call; never authority by themselves."""

    client_label: str = ""
    wants_progress: bool = False
    restriction: dict[str, JsonValue] | None = None


@attrs.frozen
class Start:
    """Run ``operation`` (a catalog tool name) with ``arguments``."""

    sequence: int
    operation: str
    arguments: dict[str, JsonValue]
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
    """The service refused to start the call; nothing ran."""

    sequence: int
    code: RejectionCode
    message: str
    next_step: str = ""


@attrs.frozen
class Progress:
    work_id: str
    progress: float
    total: float | None = None
    message: str = ""


@attrs.frozen
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@attrs.frozen
class ImageBlock:
    data: bytes
    mime_type: str
    type: Literal["image"] = "image"


ContentBlock = TextBlock | ImageBlock

OutcomeKind = Literal[
    "ok",  # the tool ran and succeeded
    "tool_error",  # the tool ran (or validated) and failed in a way the agent can correct
    "denied",  # governance or ownership refused it; nothing ran
    "held",  # the user holds the wheel or panicked; nothing ran
    "outcome_unknown",  # it may have started; whether it took effect is not known
    "cancelled",  # cancellation acknowledged; no claim about effects
]


@attrs.frozen
class Outcome:
    """The one terminal message for a work id."""

    work_id: str
    kind: OutcomeKind
    content: list[ContentBlock] = attrs.Factory(list)
    structured: dict[str, JsonValue] | None = None
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
    slot: int
    browser_id: str
    generation: str
    extension_version: str
    features: list[str]


@attrs.frozen
class StatusReport:
    sequence: int
    service_version: str
    pid: int
    edges: int
    browsers: list[BrowserSummary]
    workspaces: int
    active_work: int
    held: bool = False
    panicked: bool = False


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
    | Fatal
)

MESSAGE_TYPES: Final[dict[str, type[Any]]] = {
    cls.__name__: cls
    for cls in (
        ClientHello,
        ServiceHello,
        ServiceProof,
        VersionMismatch,
        OpenWorkspace,
        WorkspaceOpened,
        ReleaseWorkspace,
        CatalogRequest,
        CatalogProjection,
        CatalogChanged,
        Start,
        Started,
        Rejected,
        Progress,
        Outcome,
        Cancel,
        StatusRequest,
        StatusReport,
        Fatal,
    )
}


def _strict(kind: type[Any]) -> Any:
    def structure(value: Any, _: Any) -> Any:
        # bool is an int subclass; refuse it where an int or float is expected.
        if isinstance(value, bool) and kind is not bool:
            raise TypeError(f"expected {kind.__name__}, got bool")
        if kind is float and isinstance(value, int):
            return float(value)
        if not isinstance(value, kind):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return structure


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True)
    for kind in (str, int, float, bool, bytes):
        conv.register_structure_hook(kind, _strict(kind))

    def structure_json_dict(value: Any, _: Any) -> dict[str, Any]:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise TypeError("expected a map with text keys")
        return value

    conv.register_structure_hook_func(lambda t: t == dict[str, JsonValue], structure_json_dict)

    def structure_block(value: Any, _: Any) -> ContentBlock:
        if not isinstance(value, dict):
            raise TypeError("content block must be a map")
        kind = value.get("type")
        if kind == "text":
            return conv.structure(value, TextBlock)
        if kind == "image":
            return conv.structure(value, ImageBlock)
        raise TypeError(f"unknown content block type {kind!r}")

    conv.register_structure_hook_func(lambda t: t == ContentBlock, structure_block)
    return conv


converter: Final = _make_converter()


def encode_message(message: Message) -> bytes:
    """Encode one message as a CBOR map body (without the length prefix)."""
    body = {"t": type(message).__name__}
    body.update(converter.unstructure(message))
    return cbor2.dumps(body)


def decode_message(body: bytes) -> Message:
    """Decode one frame body; any malformation raises BridgeProtocolError, never anything else."""
    try:
        raw = cbor2.loads(body)
    except Exception as exc:  # cbor2 raises several types on corrupt input
        raise BridgeProtocolError(f"frame is not valid CBOR: {exc}") from None
    if not isinstance(raw, dict) or not all(isinstance(key, str) for key in raw):
        raise BridgeProtocolError("frame is not a CBOR map with text keys")
    tag = raw.pop("t", None)
    cls = MESSAGE_TYPES.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise BridgeProtocolError(f"unknown bridge message {tag!r}")
    try:
        message: Message = converter.structure(raw, cls)
    except Exception as exc:
        raise BridgeProtocolError(f"malformed {tag}: {_describe(exc)}") from None
    return message


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    try:
        return str(exc) or type(exc).__name__
    except Exception:  # some library errors cannot render themselves for odd inputs
        return type(exc).__name__
