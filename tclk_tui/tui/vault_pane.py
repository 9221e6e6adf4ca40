"""The vault pane: which backend holds the secrets and whether it is healthy, the secrets held
(names and public statements only, never values), backup and restore of the master seed, and
reveal of one secret behind a typed confirmation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from tclk_tui.engine.views import HeldSecret, VaultStatus
from tclk_tui.tui.formatting import short_hex
from tclk_tui.tui.keymap import bound_keys
from tclk_tui.tui.safe import join, literal


def status_text(status: VaultStatus | None) -> Text:
    if status is None:
        return Text("vault: unknown")
    health = Text("healthy", style="bold") if status.healthy else \
        Text("NOT HEALTHY", style="bold reverse")
    return join("vault backend", literal(status.backend, style="bold"), "·", health, "·",
                literal(status.detail, max_len=200))


class VaultPane(Vertical):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "backup", "Back up seed", id="vault.backup"),
        Binding("t", "restore", "Restore seed", id="vault.restore"),
        Binding("v", "reveal", "Show secret", id="vault.reveal"),
    ]

    DEFAULT_CSS = """
    VaultPane { height: 1fr; }
    VaultPane #vault-status { height: auto; padding: 0 1; }
    VaultPane.-unhealthy #vault-status { color: $error; }
    VaultPane #vault-secrets { height: 1fr; }
    VaultPane #vault-detail { height: 3; padding: 0 1; border-top: solid $panel; }
    VaultPane #vault-hint { height: 1; padding: 0 1; color: $text-muted; }
    """

    class BackupRequested(Message):
        pass

    class RestoreRequested(Message):
        pass

    class RevealRequested(Message):
        def __init__(self, secret: HeldSecret) -> None:
            super().__init__()
            self.secret = secret

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.status: VaultStatus | None = None
        self.secrets: tuple[HeldSecret, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(status_text(None), id="vault-status")
        yield DataTable(id="vault-secrets", cursor_type="row", zebra_stripes=False)
        yield Static(Text(""), id="vault-detail")
        yield Static(Text(self._hint()), id="vault-hint")

    def _hint(self) -> str:
        """The keys bound now (a keymap file may have moved them), not the defaults."""
        def key(binding_id: str) -> str:
            return bound_keys(self, binding_id, self.BINDINGS)

        return (f"{key('vault.backup')} backs up the master seed · {key('vault.restore')} "
                f"restores it · {key('vault.reveal')} shows the highlighted secret")

    def on_mount(self) -> None:
        table = self.query_one("#vault-secrets", DataTable)
        table.add_column(Text("kind"), key="kind", width=11)
        table.add_column(Text("deal"), key="deal", width=13)
        table.add_column(Text("name"), key="name")
        table.add_column(Text("statement (public)"), key="statement")

    def show(self, status: VaultStatus, secrets: Iterable[HeldSecret]) -> None:
        self.status = status
        self.set_class(not status.healthy, "-unhealthy")
        self.query_one("#vault-status", Static).update(status_text(status))
        secrets = tuple(secrets)
        if secrets == self.secrets:
            return
        self.secrets = secrets
        table = self.query_one("#vault-secrets", DataTable)
        keep = table.cursor_row
        table.clear()
        for secret in secrets:
            table.add_row(literal(secret.kind, max_len=11),
                          Text(short_hex(secret.deal_id, keep=12)),
                          literal(secret.name, max_len=24),
                          literal(secret.statement or "-", max_len=20))
        if secrets:
            table.move_cursor(row=min(keep, len(secrets) - 1), animate=False)
        self._show_detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail()

    def _show_detail(self) -> None:
        secret = self.highlighted()
        detail = self.query_one("#vault-detail", Static)
        if secret is None:
            detail.update(Text("no secrets held"))
            return
        detail.update(join(literal(secret.kind, style="bold"), literal(secret.name), "· deal",
                           literal(secret.deal_id or "-"), "\nstatement",
                           literal(secret.statement or "-")))

    def highlighted(self) -> HeldSecret | None:
        table = self.query_one("#vault-secrets", DataTable)
        if not self.secrets or not 0 <= table.cursor_row < len(self.secrets):
            return None
        return self.secrets[table.cursor_row]

    def action_backup(self) -> None:
        self.post_message(self.BackupRequested())

    def action_restore(self) -> None:
        self.post_message(self.RestoreRequested())

    def action_reveal(self) -> None:
        secret = self.highlighted()
        if secret is not None:
            self.post_message(self.RevealRequested(secret))
