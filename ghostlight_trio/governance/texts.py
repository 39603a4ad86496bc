"""What governance tells the agent when the user has stopped it, worded once."""

from __future__ import annotations

HELD = (
    "Paused: the user has taken control of the browser. This call was NOT executed. Stop and"
    " wait for the user; do not retry."
)
HELD_LONG = HELD + " Only the user can resume (ghostlight resume)."
HOLD_HINT_AFTER = 120.0
PANICKED = (
    "The user ended the browser session (kill switch). This call was NOT executed. Stop; do not"
    " retry until the user resumes."
)
PANICKED_AFTER_DISPATCH = (
    "The user ended the browser session (kill switch) while this call was running. What it had"
    " already sent to the browser was stopped there or allowed to finish, so it may or may not"
    " have taken effect; inspect the browser before doing anything else. Do not retry."
)
ATTENTION = (
    "Attention required: repeated denials paused this workspace. This call was NOT executed and"
    " retrying will not help. Tell the user what you were trying to do; only the user can resume."
)
ATTENTION_CARRIED = (
    "Attention required: repeated denials paused a workspace this client was using, and a new"
    " workspace starts paused too. This call was NOT executed and retrying will not help. Tell"
    " the user what you were trying to do; only the user can resume."
)
HOLD_AFTER_DISPATCH = (
    "Paused: the user has taken control of the browser. An effect already dispatched was allowed"
    " to finish; inspect the browser later. Do not retry."
)
