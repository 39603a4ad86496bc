"""How the service takes a connector's frames: as ``bridge_codec`` decodes them, and nothing
past JSON. CBOR tags stay undecoded, huge numbers are refused, a call's values must be JSON
(else that call alone is answered as one with bad arguments) and client labels are cut and
escaped before anything keeps them.
"""

from __future__ import annotations

from typing import Any, Final

import attrs
import cbor2

from ..untrusted.jsonshape import MAX_SAFE_INTEGER, describe, json_problem
from .bridge import CatalogRequest, Message, OpenWorkspace, Start
from .bridge_codec import BridgeProtocolError, describe_error, structure


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
        raise BridgeProtocolError(f"frame is not valid CBOR: {describe_error(exc)}") from None
    if isinstance(raw, dict):
        for key, value in raw.items():  # the typed numbers (sequences, versions) too
            if type(value) is int and not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
                raise BridgeProtocolError(f"malformed {raw.get('t')!r}: {key!r} is {describe(value)}")
    message = structure(raw)
    if isinstance(message, Start):
        return _fit_start(message)
    if isinstance(message, CatalogRequest) and message.restriction is not None:
        if json_problem(message.restriction, where="restriction") is not None:
            return attrs.evolve(message, restriction={"invalid": True})  # denies, as for a call
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
