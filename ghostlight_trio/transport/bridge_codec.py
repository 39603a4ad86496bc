"""The bridge codec: one frame body, a CBOR map ``{"t": <message name>, ...fields}``, to one
message of the vocabulary in ``bridge`` and back, through one cattrs converter.

Decoding is strict: a field takes only its own type (no bool for a number, no extra keys),
and anything malformed is a ``BridgeProtocolError``, never another exception. Fields that
carry JSON (a call's arguments, a result's structured content, schemas) go to the encoder as
they are, walked without recursion: a client may nest them hundreds of levels deep.
"""

from __future__ import annotations

from typing import Any, Final

import cattrs
import cbor2

from .bridge import (
    MESSAGE_TYPES,
    CatalogRequest,
    ContentBlock,
    ImageBlock,
    JsonObject,
    Message,
    TextBlock,
)


class BridgeProtocolError(Exception):
    """A frame could not be decoded into a known, well-typed bridge message."""


def encode_message(message: Message) -> bytes:
    """Encode one message as a CBOR map body (without the length prefix)."""
    body: dict[str, Any] = {"t": type(message).__name__}
    body.update(_CONVERTER.unstructure(message))
    return cbor2.dumps(body)


def decode_message(body: bytes) -> Message:
    """Decode one frame body; any malformation raises BridgeProtocolError, never anything else."""
    try:
        raw = cbor2.loads(body)
    except Exception as exc:  # cbor2 raises several types on corrupt input
        raise BridgeProtocolError(f"frame is not valid CBOR: {exc}") from None
    return structure(raw)


def structure(raw: Any) -> Message:
    """The message a decoded frame body (a map, its ``t`` naming the message) stands for."""
    if not isinstance(raw, dict):
        raise BridgeProtocolError("frame is not a CBOR map with text keys")
    tag = raw.pop("t", None)
    if not all(isinstance(key, str) for key in raw):
        raise BridgeProtocolError("frame is not a CBOR map with text keys")
    cls = MESSAGE_TYPES.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise BridgeProtocolError(f"unknown bridge message {tag!r}")
    try:
        message: Message = _CONVERTER.structure(raw, cls)
    except Exception as exc:
        raise BridgeProtocolError(f"malformed {tag}: {describe_error(exc)}") from None
    return message


def describe_error(exc: BaseException) -> str:
    """An exception (or a group of them) in words, even one that cannot render itself."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe_error(e) for e in exc.exceptions)
    try:
        return str(exc) or type(exc).__name__
    except Exception:  # some library errors cannot render themselves for odd inputs
        return type(exc).__name__


# --- the converter -------------------------------------------------------------------------


def _strict(kind: type[Any]) -> Any:
    def structure_scalar(value: Any, _: Any) -> Any:
        # bool is an int subclass; refuse it where an int or float is expected.
        if isinstance(value, bool) and kind is not bool:
            raise TypeError(f"expected {kind.__name__}, got bool")
        if kind is float and isinstance(value, int):
            return float(value)
        if not isinstance(value, kind):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return structure_scalar


def _structure_json_object(value: Any, _: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise TypeError("expected a map with text keys")
    return value


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> bool:
    """True for JSON-shaped data, which the encoder takes as it is. Walked without recursion."""
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


def _converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True)
    for kind in (str, int, float, bool, bytes):
        conv.register_structure_hook(kind, _strict(kind))
    conv.register_structure_hook_func(lambda t: t == JsonObject, _structure_json_object)

    def unstructure_json(value: Any) -> Any:
        # Anything not JSON-shaped (never sent in practice) is copied the general way.
        return value if _plain(value) else conv.unstructure(value)

    conv.register_unstructure_hook_func(
        lambda t: t == JsonObject or t == JsonObject | None, unstructure_json
    )

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

    def unstructure_catalog_request(message: CatalogRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"sequence": message.sequence}
        if message.restriction is not None:  # added in 1.1: a 1.0 peer refuses the key
            body["restriction"] = unstructure_json(message.restriction)
        return body

    conv.register_unstructure_hook(CatalogRequest, unstructure_catalog_request)
    return conv


_CONVERTER: Final = _converter()
