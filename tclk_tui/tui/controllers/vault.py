"""The vault: where the profile's secrets are kept, and the gated ways to read them.

It owns the vault's reads (its status and held secrets) and its registry commands: the master
seed's backup and restore, and one deal secret's reveal, each stated by the engine and behind
its gate (`GateScreen`), then run with the operator's confirmation; a value
shown is shown once, on a `SecretScreen`. Nothing a secret screen holds is ever copied to the
clipboard (`refuses_clipboard`). A new profile is told where its secrets are, and to back up.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.binding import Binding

from tclk_tui.engine.door import perform
from tclk_tui.engine.gates import GateRequest
from tclk_tui.engine.views import HeldSecret
from tclk_tui.tui.controllers.base import Controller
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.formatting import short_hex
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.panes import PANE_BY_ID
from tclk_tui.tui.restore_screen import RestoreScreen
from tclk_tui.tui.safe import clean
from tclk_tui.tui.secret_screen import SecretScreen
from tclk_tui.tui.vault_pane import VaultPane

SEED_WARNING = ("Write this down on paper now and keep it offline. Anyone who reads it can "
                "rebuild every secret of this profile. The Vault pane can show it again.")
SECRET_WARNING = "Anyone who reads this value can claim or prove this deal's lock."  # noqa: S105
FIRST_RUN_SECONDS = 60  # long enough to read, and to press 3 then b


class VaultController(Controller):
    """The vault pane, the seed's backup and restore, and secrets' reveals."""

    def refresh_vault(self) -> None:
        try:
            status = self.door.vault_status()
            secrets = self.door.held_secrets()
        except Exception as exc:
            self.report("vault", exc)
            return
        self.app.vault_pane.show(status, secrets)

    def first_run_notice(self) -> None:
        """A new profile: where its secrets are, and a nudge to back up the seed."""
        try:
            where = self.door.vault_status().backend
        except Exception as exc:
            where = f"a vault that cannot say where ({describe_error(exc)})"
        pane_key = self.app.keys_display(PANE_BY_ID["vault"].binding())
        backup_key = self.app.keys_display(next(binding for binding in VaultPane.BINDINGS
                                                if isinstance(binding, Binding)
                                                and binding.id == "vault.backup"))
        self.app.notify(f"New profile {clean(self.door.profile, max_len=40)}: its secrets are "
                        f"kept in {clean(where, max_len=160)}. Back up the master seed now: "
                        f"Vault pane ({pane_key}), then {backup_key}. That one backup restores "
                        "this identity and every live deal's secrets.", title="first run",
                        severity="warning", markup=False, timeout=FIRST_RUN_SECONDS)

    def backup_seed(self) -> None:
        door = self.door
        try:
            request = door.state("seed-backup")
        except Exception as exc:
            self.report("backup", exc)
            return

        async def confirm(newest: GateRequest, typed: str | None, _acknowledge: bool) -> str:
            return str((await perform(door, "seed-backup", {}, typed))["seed"])

        # No refresh: these facts do not move with time, and asking again would read the
        # vault's seed every second.
        self.open_dialog(GateScreen(request, confirm),
                         partial(self._show_secret, "Master seed backup", SEED_WARNING,
                                 grouped=True))

    def restore_seed(self) -> None:
        """The backup text, then the engine's gate: which seed it replaces, what derives
        from that one. The text stays in this closure until the operator confirms or backs
        out; the engine states and re-checks the restore from it each time."""
        door = self.door
        stated: list[tuple[str, GateRequest]] = []

        async def ask(text: str) -> None:
            stated.append((text, door.state("seed-restore", {"seed": text})))

        def confirmed(text: str) -> Any:
            async def confirm(newest: GateRequest, typed: str | None, _late: bool) -> str:
                answer = await perform(door, "seed-restore", {"seed": text}, typed)
                return str(answer["fingerprint"])

            return confirm

        def restore(done: bool | None) -> None:
            if done and stated:
                text, request = stated[-1]
                stated.clear()
                self.open_dialog(GateScreen(request, confirmed(text)), self._restored)

        self.open_dialog(RestoreScreen(ask), restore)

    def _restored(self, fingerprint: object) -> None:
        if fingerprint:
            self.say("master seed restored")
            self.refresh_vault()

    def reveal_secret(self, secret: HeldSecret) -> None:
        if secret.kind == "master":
            self.backup_seed()
            return
        door = self.door
        params = {"deal": secret.deal_id}
        try:
            request = door.state("secret-reveal", params)
        except Exception as exc:
            self.report("reveal", exc)
            return

        async def confirm(newest: GateRequest, typed: str | None, _acknowledge: bool) -> str:
            return str((await perform(door, "secret-reveal", params, typed))["secret"])

        title = f"{clean(secret.kind, max_len=20)} for deal {short_hex(secret.deal_id)}"
        self.open_dialog(GateScreen(request, confirm,
                                    refresh=partial(door.state, "secret-reveal", params)),
                         partial(self._show_secret, title, SECRET_WARNING))

    def reveal_highlighted(self) -> None:
        secret = self.app.vault_pane.highlighted()
        if secret is None:
            self.say("no secret highlighted on the Vault pane")
            return
        self.reveal_secret(secret)

    def _show_secret(self, title: str, warning: str, value: object, *,
                     grouped: bool = False) -> None:
        if isinstance(value, str) and value:
            self.open_dialog(SecretScreen(title, value, warning, grouped=grouped))

    def refuses_clipboard(self) -> bool:
        """Refuse whenever a secret is on screen or in the focused field."""
        app = self.app
        if getattr(app.screen, "HOLDS_SECRET", False) or getattr(app.focused, "HOLDS_SECRET",
                                                                 False):
            app.bell()
            self.say("secrets are never copied to the clipboard", "warning")
            return True
        return False
