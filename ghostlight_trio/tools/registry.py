"""The one place every tool's handler is built, once, from the service's shared instances.

What the tools keep between calls (the page channel, the screenshot coordinate models, the kept
screenshots, the GIF recordings, the recorded steps, the plans) exists once, in ``ToolState``, and every tool that
reads it gets that same instance: a screenshot ``computer`` takes is the one ``upload_image``
places, and ``act_on`` acts through the very ``computer`` and ``form_input`` the catalog offers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import attrs

from ..browser.tab_journal import TabJournal
from ..catalog.registry import load_specs
from ..engine.contracts import ToolHandler, WorkspaceId
from ..governance.explain import explain_handler
from ..governance.governor import Governor
from .act_on import ActOn
from .browser_batch import run_batch
from .computer.tool import ComputerTool
from .dialog import Dialog
from .file_upload import FileUpload
from .find import Find
from .form_fill.tool import FormFill
from .form_input import FormInput
from .get_page_text import GetPageText
from .gif_creator.recorder import Recorder
from .gif_creator.tool import GifCreator
from .javascript_tool import JavascriptTool
from .narrate import Narrate
from .navigate import Navigate
from .read_console_messages import ReadConsoleMessages
from .read_network_requests import ReadNetworkRequests
from .read_page import ReadPage
from .record_actions.book import ActionBook
from .record_actions.hook import StepTaker
from .record_actions.tool import RecordActions
from .resize_window import ResizeWindow
from .script import run_script
from .shared.channel import PageChannel
from .shared.guard import guarded
from .shared.image_store import ImageStore
from .shared.protocols import BrowserRequests, Workspaces
from .shared.screenshots import ContextBook
from .shared.tab_changes import noting_tab_changes
from .tab_control import TabControl
from .tabs import TabTools
from .update_plan import PlanBook
from .upload_image import UploadImage
from .wait_for import WaitFor

MaySee = Callable[[str | None, int], Awaitable[bool]]


@attrs.frozen
class ToolState:
    """What the tools keep between calls, one instance of each."""

    channel: PageChannel
    contexts: ContextBook
    """The screenshot coordinate models, per tab."""
    images: ImageStore
    """Screenshots kept for upload_image."""
    recorder: Recorder
    """GIF recordings; its ``after_call`` adds frames, its ``pages`` tells governance what a
    recording shows."""
    plans: PlanBook
    steps: ActionBook = attrs.Factory(ActionBook)
    """record_actions' recordings, one per workspace."""
    may_see: MaySee | None = None
    """The policy's word on seeing a tab's page now (none: every page may be seen)."""

    @classmethod
    def over(cls, browser: BrowserRequests, *, may_see: MaySee | None = None) -> ToolState:
        """Fresh state over ``browser``. ``may_see`` is the policy's word on seeing a tab's page
        as it is now (for frames recorded after calls)."""
        channel, contexts = PageChannel(browser), ContextBook()
        recorder = Recorder(channel, contexts, may_see=may_see)
        return cls(channel, contexts, ImageStore(), recorder, PlanBook(), may_see=may_see)

    def forget_workspace(self, workspace: WorkspaceId) -> None:
        """A workspace went: its kept screenshots, recordings and plan go with it."""
        self.images.forget_workspace(workspace)
        self.steps.forget_workspace(workspace)
        self.recorder.forget_workspace(workspace)
        self.plans.forget_workspace(workspace)


def _always() -> bool:
    return True


@attrs.frozen
class ToolDeps:
    """Everything the handlers are built from."""

    browser: BrowserRequests
    workspaces: Workspaces
    governor: Governor = attrs.Factory(Governor)
    """The policy ``explain`` states (by default an all-open one)."""
    state: ToolState = attrs.Factory(lambda deps: ToolState.over(deps.browser), takes_self=True)
    journal: TabJournal | None = None
    """The browser's tab events: with it, a call's answer names the tabs that opened from its
    tab and the workspace's tabs that closed while it ran."""
    redact: Callable[[], bool] = _always
    """Whether read_page hides password-like values now (the user's setting)."""


def tool_handlers(deps: ToolDeps) -> dict[str, ToolHandler]:
    """Every tool of the catalog, each handler built once."""
    state, channel, workspaces = deps.state, deps.state.channel, deps.workspaces
    tabs = TabTools(workspaces, deps.browser)
    computer = ComputerTool(channel, state.contexts, state.images)
    form_input = guarded(FormInput(channel))
    wait_for = guarded(WaitFor(channel))
    browser_tools: dict[str, ToolHandler] = {
        "tabs_context_mcp": tabs.tabs_context,
        "tabs_create_mcp": tabs.tabs_create,
        "navigate": Navigate(deps.browser),
        "computer": computer,
        "find": guarded(Find(channel)),
        "form_input": form_input,
        "get_page_text": guarded(GetPageText(channel)),
        "javascript_tool": guarded(JavascriptTool(channel)),
        "read_console_messages": guarded(ReadConsoleMessages(channel)),
        "read_network_requests": guarded(ReadNetworkRequests(channel)),
        "read_page": guarded(ReadPage(channel, deps.redact)),
        "resize_window": guarded(ResizeWindow(channel, state.contexts)),
        "narrate": guarded(Narrate(channel)),
        "wait_for": wait_for,
        "form_fill": guarded(FormFill(channel, computer)),
        "act_on": guarded(ActOn(channel, computer, form_input, wait_for)),
        "dialog": guarded(Dialog(channel)),
        "tab_control": guarded(TabControl(channel, workspaces)),
        "file_upload": guarded(FileUpload(channel)),
        "upload_image": guarded(UploadImage(channel, state.images, state.contexts)),
        "gif_creator": guarded(GifCreator(channel, state.recorder, state.contexts, workspaces)),
    }
    steps = StepTaker(state.steps, channel, state.contexts, state.may_see)
    browser_tools = steps.wrap(browser_tools)
    if deps.journal is not None:
        browser_tools = noting_tab_changes(browser_tools, deps.journal, workspaces)
    return {
        "update_plan": state.plans.update_plan,
        **browser_tools,
        "script": run_script,
        "record_actions": RecordActions(state.steps),
        "browser_batch": run_batch,
        "explain": explain_handler(deps.governor, load_specs()),
    }
