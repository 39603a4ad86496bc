"""The private edge<->service bridge vocabulary: one attrs class per message, one cattrs converter.

Every frame body is a CBOR map ``{"t": <message name>, ...fields}``. The vocabulary is
protocol-neutral: no JSON-RPC ids, no MCP revision dates. ``specs/bridge.md`` documents it.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, Final, Literal

import attrs
import cbor2

from .jsonshape import MAX_SAFE_INTEGER, describe, json_problem

if TYPE_CHECKING:
    import cattrs

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
    sequence: int
    service_version: str
    pid: int
    edges: int
    browsers: list[BrowserSummary]
    workspaces: int
    active_work: int
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
        ControlCommand,
        ControlResult,
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


@cache
def _converter() -> cattrs.Converter:
    """The general converter, built on first use: the per-call messages have fast paths
    below, so a process that only ever sees those (an edge answering its handshake) never pays
    for importing and configuring cattrs."""
    import cattrs

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


def encode_message(message: Message) -> bytes:
    """Encode one message as a CBOR map body (without the length prefix)."""
    fast = _FAST_UNSTRUCTURE.get(type(message))
    body = fast(message) if fast is not None else None
    if body is None:
        body = {"t": type(message).__name__}
        body.update(_converter().unstructure(message))
    return cbor2.dumps(body)


def decode_message(body: bytes) -> Message:
    """Decode one frame body; any malformation raises BridgeProtocolError, never anything else."""
    try:
        raw = cbor2.loads(body)
    except Exception as exc:  # cbor2 raises several types on corrupt input
        raise BridgeProtocolError(f"frame is not valid CBOR: {exc}") from None
    return _structure(raw)


def _structure(raw: Any) -> Message:
    if not isinstance(raw, dict):
        raise BridgeProtocolError("frame is not a CBOR map with text keys")
    tag = raw.pop("t", None)
    cls = MESSAGE_TYPES.get(tag) if isinstance(tag, str) else None
    fast = _FAST_STRUCTURE.get(cls) if cls is not None else None
    if fast is not None:
        # A fast path accepts only its own known text keys, so it needs no key scan first.
        quick: Message | None = fast(raw)
        if quick is not None:
            return quick
    if not all(isinstance(key, str) for key in raw):
        raise BridgeProtocolError("frame is not a CBOR map with text keys")
    if cls is None:
        raise BridgeProtocolError(f"unknown bridge message {tag!r}")
    try:
        message: Message = _converter().structure(raw, cls)
    except Exception as exc:
        raise BridgeProtocolError(f"malformed {tag}: {_describe(exc)}") from None
    return message


# --- what the service takes from a connector ---------------------------------------------


class UnfitValues(BridgeProtocolError):
    """A well-formed ``Start`` whose arguments or restriction hold values JSON cannot. Not a
    fault of the stream: the call is answered as one with bad arguments, the stream goes on.
    ``start`` is the call with those fields emptied, so nothing of them goes further."""

    def __init__(self, start: Start, field: str, problem: str) -> None:
        super().__init__(problem)
        self.start = start
        self.field = field
        """``arguments`` or ``restriction``."""
        self.problem = problem


@attrs.frozen
class RefusedTag:
    """Stands where a CBOR tag was: the service decodes none (no big numbers, dates, sets, or
    shared and cyclic references, whose values JSON has no room for)."""

    tag: int

    @property
    def json_misfit(self) -> str:
        return f"a CBOR tag ({self.tag})"


def _refused_tag(tag: int) -> Any:
    def decode(*_: Any) -> RefusedTag:
        return RefusedTag(tag)

    return decode


_BUILT_IN_TAGS: Final = (0, 1, 2, 3, 4, 5, 25, 28, 29, 30, 35, 36, 37, 52, 54, 100, 256, 258, 260,
                         261, 1004, 43000, 55799)  # fmt: skip
"""The tags cbor2 decodes itself (probed: any other reaches ``tag_hook``)."""
_REFUSED_TAGS: Final = {tag: _refused_tag(tag) for tag in _BUILT_IN_TAGS}


def _unknown_tag(tag: Any, *_: Any) -> RefusedTag:
    return RefusedTag(getattr(tag, "tag", -1))


CLIENT_LABEL_LIMIT: Final = 200
"""Characters of a client's self-reported label the service keeps (audit, status, tab groups)."""


def decode_from_client(body: bytes) -> Message:
    """Decode one frame from a connector, as the service takes it: ``decode_message``, and
    nothing past JSON reaches the service. CBOR tags are not decoded (they stand as
    ``RefusedTag``, so a shared reference can neither loop nor multiply), map keys are text or
    byte strings (cbor2 refuses the others before hashing them), and a ``Start``'s arguments and
    restriction must be JSON (``jsonshape.json_problem``): else ``UnfitValues``, for that call
    alone. Anything else wrong is a ``BridgeProtocolError``, for the stream: the typed fields
    take only their own types, which no tag or odd value is. Client labels are cut to
    ``CLIENT_LABEL_LIMIT`` characters, with control characters escaped."""
    try:
        raw = cbor2.loads(
            body,
            tag_hook=_unknown_tag,
            semantic_decoders=_REFUSED_TAGS,
            strict_hashable_types=True,
        )
    except Exception as exc:  # cbor2 raises several types on corrupt input
        raise BridgeProtocolError(f"frame is not valid CBOR: {_describe(exc)}") from None
    if isinstance(raw, dict):
        for key, value in raw.items():  # the typed numbers (sequences, versions) too
            if type(value) is int and not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
                raise BridgeProtocolError(f"malformed {raw.get('t')!r}: {key!r} is {describe(value)}")
    message = _structure(raw)
    if isinstance(message, Start):
        return _fit_start(message)
    if isinstance(message, OpenWorkspace):
        label = client_label(message.client_label)
        if label is not message.client_label:
            return attrs.evolve(message, client_label=label)
    return message


def _fit_start(message: Start) -> Start:
    context = message.context
    label = client_label(context.client_label)
    if label is not context.client_label:
        context = attrs.evolve(context, client_label=label)
        message = attrs.evolve(message, context=context)
    for field, value in (("arguments", message.arguments), ("restriction", context.restriction)):
        problem = json_problem(value, where=field)
        if problem is not None:
            emptied = attrs.evolve(
                message, arguments={}, context=attrs.evolve(context, restriction=None)
            )
            raise UnfitValues(emptied, field, problem)
    return message


_ESCAPED: Final = {
    code: f"\\u{code:04x}"
    for code in (
        *range(0x00, 0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F, 0x2028, 0x2029,
        *range(0x202A, 0x202F), *range(0x2066, 0x206A),
    )
}  # fmt: skip
"""Control characters, line and paragraph separators and bidirectional controls: text that
would break a line of the audit, the log or the terminal, or turn what follows around."""


def client_label(text: str) -> str:
    """A client's self-reported label as the service keeps it: at most
    ``CLIENT_LABEL_LIMIT`` characters, control characters escaped (``\\u001b``). The same
    object when it is fine as it is."""
    if len(text) <= CLIENT_LABEL_LIMIT and text.isprintable():
        return text
    escaped = text[: CLIENT_LABEL_LIMIT * 6].translate(_ESCAPED)
    if len(escaped) <= CLIENT_LABEL_LIMIT:
        return escaped if escaped != text else text
    cut = escaped[:CLIENT_LABEL_LIMIT]
    tail = cut.rfind("\\u", CLIENT_LABEL_LIMIT - 5)
    return cut[:tail] if tail >= 0 else cut  # never half an escape


# --- fast paths for the per-call messages --------------------------------------------------
#
# Each one handles only the plain, well-formed shape and returns None for anything else, which
# then goes through the converter above. They build exactly what the converter would: the same
# map, in the same key order, so the same bytes (JSON-shaped fields are handed to the encoder
# as they are rather than copied); the same message from the same map.


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> bool:
    """True for JSON-shaped data, which the converter would copy unchanged. Walked without
    recursion: a client may nest its arguments hundreds of levels deep."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue
        if kind is list:
            pending.extend(item)
        elif kind is dict:
            if not all(type(key) is str for key in item):
                return False
            pending.extend(item.values())
        else:
            return False
    return True


def _unstructure_started(message: Started) -> dict[str, Any]:
    return {"t": "Started", "sequence": message.sequence, "work_id": message.work_id}


def _unstructure_start(message: Start) -> dict[str, Any] | None:
    context = message.context
    if (
        type(context) is not RequestContext
        or not _plain(message.arguments)
        or type(message.arguments) is not dict
        or not (context.restriction is None or type(context.restriction) is dict)
        or not _plain(context.restriction)
    ):
        return None
    return {
        "t": "Start",
        "sequence": message.sequence,
        "operation": message.operation,
        "arguments": message.arguments,
        "workspace_id": message.workspace_id,
        "context": {
            "client_label": context.client_label,
            "wants_progress": context.wants_progress,
            "restriction": context.restriction,
        },
    }


def _unstructure_outcome(message: Outcome) -> dict[str, Any] | None:
    if type(message.content) is not list:
        return None
    content: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            content.append({"text": block.text, "type": block.type})
        elif isinstance(block, ImageBlock):
            content.append({"data": block.data, "mime_type": block.mime_type, "type": block.type})
        else:
            return None
    structured = message.structured
    if structured is not None and (type(structured) is not dict or not _plain(structured)):
        return None
    return {
        "t": "Outcome",
        "work_id": message.work_id,
        "kind": message.kind,
        "content": content,
        "structured": structured,
        "workspace_id": message.workspace_id,
    }


_START_KEYS = frozenset({"sequence", "operation", "arguments", "workspace_id", "context"})
_CONTEXT_KEYS = frozenset({"client_label", "wants_progress", "restriction"})
_OUTCOME_KEYS = frozenset({"work_id", "kind", "content", "structured", "workspace_id"})
_OUTCOME_KINDS = frozenset(OutcomeKind.__args__)  # type: ignore[attr-defined]


def _text_keyed_map(value: Any) -> bool:
    return type(value) is dict and all(type(key) is str for key in value)


def _optional_text(raw: dict[str, Any], key: str) -> bool:
    value = raw.get(key)
    return value is None or type(value) is str


def _structure_start(raw: dict[str, Any]) -> Start | None:
    if (
        len(raw) < 3
        or not raw.keys() <= _START_KEYS
        or type(raw.get("sequence")) is not int
        or type(raw.get("operation")) is not str
        or not _text_keyed_map(raw.get("arguments"))
        or not _optional_text(raw, "workspace_id")
    ):
        return None
    fields = dict(raw)
    if "context" in raw:
        context = raw["context"]
        if (
            type(context) is not dict
            or not context.keys() <= _CONTEXT_KEYS
            or type(context.get("client_label", "")) is not str
            or type(context.get("wants_progress", False)) is not bool
            or not (context.get("restriction") is None or _text_keyed_map(context["restriction"]))
        ):
            return None
        fields["context"] = RequestContext(**context)
    return Start(**fields)


def _structure_started(raw: dict[str, Any]) -> Started | None:
    if (
        len(raw) != 2
        or type(raw.get("sequence")) is not int
        or type(raw.get("work_id")) is not str
    ):
        return None
    return Started(sequence=raw["sequence"], work_id=raw["work_id"])


def _structure_outcome(raw: dict[str, Any]) -> Outcome | None:
    if (
        not raw.keys() <= _OUTCOME_KEYS
        or type(raw.get("work_id")) is not str
        or type(raw.get("kind")) is not str
        or raw["kind"] not in _OUTCOME_KINDS
        or not _optional_text(raw, "workspace_id")
        or not (raw.get("structured") is None or _text_keyed_map(raw["structured"]))
    ):
        return None
    fields = dict(raw)
    if "content" in raw:
        blocks = raw["content"]
        if type(blocks) is not list:
            return None
        content: list[ContentBlock] = []
        for block in blocks:
            if type(block) is not dict:
                return None
            kind = block.get("type")
            if kind == "text" and type(kind) is str and block.keys() <= {"text", "type"}:
                if type(block.get("text")) is not str:
                    return None
                content.append(TextBlock(text=block["text"]))
            elif kind == "image" and type(kind) is str and block.keys() <= {
                "data",
                "mime_type",
                "type",
            }:
                if type(block.get("data")) is not bytes or type(block.get("mime_type")) is not str:
                    return None
                content.append(ImageBlock(data=block["data"], mime_type=block["mime_type"]))
            else:
                return None
        fields["content"] = content
    return Outcome(**fields)


_FAST_UNSTRUCTURE: Final[dict[type[Any], Any]] = {
    Started: _unstructure_started,
    Start: _unstructure_start,
    Outcome: _unstructure_outcome,
}
_FAST_STRUCTURE: Final[dict[type[Any], Any]] = {
    Start: _structure_start,
    Started: _structure_started,
    Outcome: _structure_outcome,
}


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    try:
        return str(exc) or type(exc).__name__
    except Exception:  # some library errors cannot render themselves for odd inputs
        return type(exc).__name__
