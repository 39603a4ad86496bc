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


def test_a_reused_middle_never_stands_in_for_values_of_another_type():
    def record(action, work_id="1.abc", duration=0.25):
        return AuditRecord(
            time=1.5, work_id=work_id, operation="computer", workspace=None, outcome="ok",
            reported="ok", duration=duration, effects_dispatched=1, client="c", action=action,
        )

    first, again = record("1"), record("1", work_id="2.abc", duration=1.0)
    assert call_line(first) == _encoded_call_line(first)
    assert call_line(again) == _encoded_call_line(again)  # the same middle, its own call fields
    assert json.loads(call_line(again))["call"] == "2.abc"
    for other in (1, True, 1.0):  # equal-looking values of other types take the encoder path
        line = call_line(record(other))
        assert line == _encoded_call_line(record(other))
        assert json.loads(line)["action"] == other and type(json.loads(line)["action"]) is type(other)
