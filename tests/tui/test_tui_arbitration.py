"""The arbitration desk's calculators, through the door: each is a registry command, and the
ones that show a secret (split, combine, commit vote) show it only after the engine's gate."""

from textual.app import App, ComposeResult
from textual.widgets import Input, Select

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.arb_combine import CombineForm, split_shares
from tclk_tui.tui.arb_split import SplitForm
from tclk_tui.tui.arb_tally import TallyForm
from tclk_tui.tui.arb_verify import VerifyForm
from tclk_tui.tui.arb_vote import VoteForm
from tclk_tui.tui.arbitration_pane import ArbitrationPane
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.secret_screen import SecretScreen
from tests.tui.conftest import screen_text, wait_for
from tests.tui.contract_wallet import ContractWallet


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"
        self.wallet = ContractWallet()

    def compose(self) -> ComposeResult:
        yield ArbitrationPane(LocalDoor(self.wallet), id="arb")


def fill(app: App, values: dict[str, str]) -> None:
    for selector, value in values.items():
        app.query_one(selector, Input).value = value


def held_anywhere(widget: object, needle: str) -> bool:
    """Whether `needle` sits in any attribute of `widget` (a form must not keep a secret)."""
    return any(needle in repr(value) for value in vars(widget).values())


async def confirm_gate(app: App, pilot) -> GateScreen:
    """The gate the engine stated, confirmed with y (none of these asks a code)."""
    await wait_for(pilot, lambda: isinstance(app.screen, GateScreen) and app.screen.focused,
                   what="the gate")
    gate = app.screen
    assert isinstance(gate, GateScreen) and gate.request.confirm_code is None
    await pilot.press("y")
    return gate


async def close_secret(app: App, pilot) -> str:
    """The text the secret screen shows, then close it (Esc) and wait until it is gone."""
    await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen)
                   and app.screen.query("#secret-value"), what="secret screen")
    shown = app.screen.query_one("#secret-value").render().plain
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(app.screen, SecretScreen), what="closed")
    return shown


async def test_split_shows_the_shares_once_and_forgets_them():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        fill(app, {"#split-secret": "0x" + "ab" * 32, "#split-parts": "3"})
        await pilot.click("#split-go")
        gate = await confirm_gate(app, pilot)
        assert gate.request.action == "arbiter-split"
        await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen))
        text = screen_text(app)
        assert " 1. pshare1-abab" in text and " 3. pshare3-abab" in text
        assert "3 shares" in text
        assert "0x" + "ab" * 32 not in text  # the secret field is masked
        assert app.screen.HOLDS_SECRET and not app.screen.query_one("#secret-value").allow_select
        shown = await close_secret(app, pilot)
        assert "pshare2-abab" in shown
        # Gone from the main screen, from the form, and from the field it was typed into.
        assert "pshare" not in screen_text(app)
        form = app.query_one(SplitForm)
        assert not held_anywhere(form, "pshare")
        assert app.query_one("#split-secret", Input).value == ""


async def test_split_refusal_is_shown():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        fill(app, {"#split-secret": "0x1", "#split-parts": "1"})
        await pilot.click("#split-go")
        await wait_for(pilot, lambda: "parts must be at least 2" in screen_text(app))
        assert not isinstance(app.screen, SecretScreen)
        assert app.query_one("#split-secret", Input).value == "0x1"  # kept to correct


def test_split_shares_accepts_any_separator():
    assert split_shares(" a, b;c\nd  ") == ["a", "b", "c", "d"]


async def test_combine_shows_the_value_once_and_says_whether_it_opens():
    app = Host()
    combined = "0x" + "77" * 32
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(ArbitrationPane).show_section("combine")
        await pilot.pause()
        app.query_one("#combine-kind", Select).value = "witness"
        fill(app, {"#combine-shares": "s1 s2 s3", "#combine-statement": "0xgood"})
        await pilot.click("#combine-go")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen))
        # The gate says, before anything is shown, whether the value opens the statement.
        assert "the rebuilt value opens the statement" in screen_text(app)
        await confirm_gate(app, pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen))
        assert "witness" in screen_text(app)
        assert await close_secret(app, pilot) == combined
        form = app.query_one(CombineForm)
        assert form.opens is True
        assert "OPENS the statement" in screen_text(app)
        assert combined not in screen_text(app) and not held_anywhere(form, "7777")
        assert app.query_one("#combine-shares", Input).value == ""
        fill(app, {"#combine-shares": "s1 s2", "#combine-statement": "0xbad"})
        form.combine()
        await confirm_gate(app, pilot)
        await close_secret(app, pilot)
        assert "does NOT open the statement" in screen_text(app)
        fill(app, {"#combine-shares": "s1 s2", "#combine-statement": ""})
        form.combine()
        await confirm_gate(app, pilot)
        await close_secret(app, pilot)
        assert "no statement given" in screen_text(app)
        form.combine()  # no shares: refused, nothing shown
        await wait_for(pilot, lambda: "combine needs shares" in screen_text(app))
        assert not isinstance(app.screen, SecretScreen) and form.opens is None


async def test_vote_commit_keeps_the_commitment_and_shows_the_salt_once():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(ArbitrationPane).show_section("vote")
        await pilot.pause()
        fill(app, {"#vote-contract": "0xabc", "#vote-verdict": "claimed"})
        await pilot.click("#vote-go")
        await confirm_gate(app, pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen))
        assert "private until the reveal" in screen_text(app)
        assert await close_secret(app, pilot) == "0x" + "5a" * 16
        form = app.query_one(VoteForm)
        assert form.commitment == "0x" + "c0" * 32
        text = screen_text(app)
        assert "commitment (post this now): 0x" + "c0" * 10 in text
        assert "5a5a" not in text and not held_anywhere(form, "5a5a")
        fill(app, {"#vote-verdict": "a|b"})
        form.commit_vote()
        await pilot.pause()
        assert form.commitment is None
        assert not isinstance(app.screen, SecretScreen)
        assert "tclk: verdict must not contain '|'" in screen_text(app)


async def test_verify_says_match_or_not():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(ArbitrationPane).show_section("verify")
        await pilot.pause()
        fill(app, {"#verify-commitment": "0x" + "c0" * 32, "#verify-contract": "0xabc",
                   "#verify-verdict": "claimed", "#verify-salt": "0x" + "5a" * 16})
        await pilot.click("#verify-go")
        form = app.query_one(VerifyForm)
        await wait_for(pilot, lambda: form.verdict_ok is True)
        assert "MATCHES" in screen_text(app)
        fill(app, {"#verify-salt": "0x00"})
        form.verify()
        await wait_for(pilot, lambda: form.verdict_ok is False)
        assert "DOES NOT MATCH" in screen_text(app)


async def test_tally_reads_the_round():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(ArbitrationPane).show_section("tally")
        await pilot.pause()
        fill(app, {"#tally-contract": "0xabc"})
        await pilot.click("#tally-go")
        form = app.query_one(TallyForm)
        await wait_for(pilot, lambda: form.tally is not None)
        text = screen_text(app)
        assert "2 commitments, 1 opened reveal" in text
        assert "   1  claimed" in text
        assert "not revealed yet: z6Mk…MEme" in text
        assert "problem: seq 9: late commitment" in text


async def test_split_shows_its_shares_only_after_the_gate_is_confirmed():
    """Backing out of the split's gate shows nothing: no secret screen, no share anywhere;
    the secret stays in its masked field to try again."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        fill(app, {"#split-secret": "0x" + "ab" * 32, "#split-parts": "3"})
        await pilot.click("#split-go")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen) and app.screen.focused)
        text = screen_text(app)
        assert "3 shares of a preimage" in text and "pshare" not in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.default_screen, what="backed out")
        await pilot.pause()
        assert not isinstance(app.screen, SecretScreen) and "pshare" not in screen_text(app)
        assert not held_anywhere(app.query_one(SplitForm), "pshare")
        assert app.query_one("#split-secret", Input).value == "0x" + "ab" * 32


def test_a_command_refusal_reads_in_its_own_words():
    """A registry refusal is its message; a gate's loses the "refused: " the registry puts
    first, since every place that shows one says it already."""
    from tclk_tui.engine.commands import CommandError
    from tclk_tui.tui.errors import describe_error

    assert describe_error(CommandError("refused", "refused: this case was withheld")) == (
        "this case was withheld")
    assert describe_error(CommandError("usage", "combine needs shares")) == (
        "combine needs shares")
