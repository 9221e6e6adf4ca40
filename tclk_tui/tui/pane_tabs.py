"""The main pane tabs, which say when the operator chose a tab on the strip itself.

A tab clicked or reached with the arrow keys leaves focus on the tab strip, where no pane key
works. The app hands focus to the chosen pane, but it must react only to the operator's choice:
a switch made in code (number keys, opening a deal) already places focus, and Textual re-activates
the pane of whatever widget gets focus, so a second focus call there makes two switches fight.
"""

from __future__ import annotations

from textual.message import Message
from textual.widgets import TabbedContent, Tabs
from textual.widgets.tabbed_content import ContentTab, ContentTabs


class PaneTabs(TabbedContent):
    class Chosen(Message):
        """The operator chose `pane` on the tab strip (mouse or keys)."""

        def __init__(self, pane: str) -> None:
            super().__init__()
            self.pane = pane

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        # Only the strip's own activations arrive as Tabs.TabActivated: setting `active` in
        # code updates the strip with that message suppressed. TabbedContent's own handler
        # still runs after this one and does the switch.
        tabs = event.tabs
        if isinstance(tabs, ContentTabs) and tabs.parent is self and event.tab.id:
            self.post_message(self.Chosen(ContentTab.sans_prefix(event.tab.id)))
