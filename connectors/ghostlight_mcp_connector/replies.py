"""Error answers that both revisions give word for word: bad params, busy ids, failed calls.

Only the shape of a successful result differs between the revisions, so the one place that
renders a result (a corrective refusal) takes the revision's own wrapper.
"""

from __future__ import annotations

from collections.abc import Callable

from . import failures, jsonrpc
from .actions import Reply, WriteMessage
from .correlation import Completed, Refused
from .jsonrpc import JsonObject, RequestId
from .pagination import INVALID_CURSOR_MESSAGE
from .rendering import corrective_result, joined_text

ID_IN_USE_MESSAGE = "Invalid Request: this id is already in use by an active request"


def invalid_params(request_id: RequestId, message: str) -> Reply:
    return Reply([WriteMessage(jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, message))])


def id_in_use(request_id: RequestId) -> Reply:
    return Reply(
        [WriteMessage(jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, ID_IN_USE_MESSAGE))]
    )


def invalid_cursor(request_id: RequestId) -> WriteMessage:
    """A cursor this catalog did not issue: the client lists again from the start."""
    return WriteMessage(jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, INVALID_CURSOR_MESSAGE))


def unavailable(request_id: RequestId, message: str) -> WriteMessage:
    """Nothing was sent, so nothing ran: safe to retry."""
    data = {"nextStep": failures.UNAVAILABLE_NEXT_STEP}
    return WriteMessage(jsonrpc.error(request_id, failures.SERVICE_UNAVAILABLE, message, data))


def uncertain_outcome(completed: Completed) -> WriteMessage | None:
    """The error for an outcome that may or may not have taken effect; None for a result."""
    outcome, request_id = completed.outcome, completed.call.request_id
    if outcome.kind not in ("outcome_unknown", "cancelled"):
        return None
    message = (
        failures.UNKNOWN_MESSAGE
        if outcome.kind == "outcome_unknown"
        else failures.CANCELLED_MESSAGE
    )
    data: JsonObject = {"outcome": outcome.kind, "nextStep": failures.UNKNOWN_NEXT_STEP}
    detail = joined_text(outcome.content)
    if detail:
        data["detail"] = detail
        if outcome.kind == "cancelled":
            # Why it was cancelled (the user's kill switch, say), whether anything of it ran
            # and what ran before the stop belong in the message itself, and its own advice on
            # retrying stands.
            message = f"{failures.CANCELLED_LEAD} {detail}"
            data["nextStep"] = failures.CANCELLED_NEXT_STEP
    return WriteMessage(jsonrpc.error(request_id, failures.OUTCOME_UNKNOWN, message, data))


def refusal(refused: Refused, wrap_result: Callable[[JsonObject], JsonObject]) -> WriteMessage:
    """The service would not start the call; a refusal the model can fix is a result, wrapped
    in the revision's result shape by ``wrap_result``."""
    rejected, request_id = refused.rejected, refused.call.request_id
    data: JsonObject = {"reason": rejected.code}
    if rejected.next_step:
        data["nextStep"] = rejected.next_step
    if rejected.code in ("unknown_tool", "invalid_request"):
        return WriteMessage(
            jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, rejected.message, data)
        )
    if rejected.code in ("workspace_required", "unknown_workspace"):
        return WriteMessage(jsonrpc.result(request_id, wrap_result(corrective_result(rejected))))
    data.setdefault("nextStep", failures.UNAVAILABLE_NEXT_STEP)
    return WriteMessage(
        jsonrpc.error(request_id, failures.SERVICE_UNAVAILABLE, rejected.message, data)
    )
