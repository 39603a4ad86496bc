"""The direct audit line builder is byte-identical to the JSON encoder path it replaces."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from ghostlight_trio.audit.records import CALL_KEYS, _encoded_call_line, call_line
from ghostlight_trio.engine.audit import AuditRecord

_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_maybe = st.none() | _text


@settings(max_examples=400, deadline=None)
@given(
    epoch=st.floats(min_value=0, max_value=4e9),
    duration=st.floats(min_value=0, max_value=1e5),
    effects=st.integers(min_value=0, max_value=50),
    client=_text,
    workspace=_maybe,
    host=_maybe,
    action=_maybe,
    decision=_maybe,
    manifest=_maybe,
    rule=_text,
)
def test_direct_line_equals_the_encoder_line(
    epoch, duration, effects, client, workspace, host, action, decision, manifest, rule
):
    record = AuditRecord(
        time=epoch, work_id="1.abc", operation="navigate", workspace=workspace, outcome="ok",
        reported="outcome_unknown", duration=duration, effects_dispatched=effects, client=client,
        action=action, host=host, decision=decision, rule=rule, manifest=manifest,
    )
    line = call_line(record)
    assert line == _encoded_call_line(record)
    assert list(json.loads(line)) == list(CALL_KEYS)


def test_an_unexpected_field_type_takes_the_encoder_path():
    record = AuditRecord(
        time=1.5, work_id="1.abc", operation="navigate", workspace=None, outcome="ok",
        reported="ok", duration=0.25, effects_dispatched=True, client="c",  # bool, not int
    )
    assert call_line(record) == _encoded_call_line(record)
    assert json.loads(call_line(record))["effects"] is True
