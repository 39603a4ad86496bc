"""Know when a coroutine's first step ends: it finished, failed, or is about to wait.

A call's answers are held back while other admitted calls have not taken their first step, so
that answers ready together leave in one write. Whoever takes the last first step must then
release them, whether that step finished the call or ended at its first wait; this driver is
how the engine learns that moment without a task or a scheduler pass of its own.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


@types.coroutine
def after_first_step(
    coroutine: Coroutine[Any, Any, T], step_ended: Callable[[], None]
) -> Generator[Any, Any, T]:
    """Await ``coroutine`` exactly as the task would, calling ``step_ended()`` once its first
    step is over (before the task first waits, or when it returned or raised at once)."""
    try:
        request = coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    finally:
        step_ended()
    # The rest is plain delegation: every request goes to the run loop, every reply (or
    # exception thrown in, such as cancellation) goes back into the coroutine.
    while True:
        try:
            reply = yield request
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as thrown:
            try:
                request = coroutine.throw(thrown)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                request = coroutine.send(reply)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
