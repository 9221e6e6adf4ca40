import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Label, Static

from tclk_tui.tui.safe import ESCAPE_STYLE, clean, join, literal
from tests.tui.conftest import FORBIDDEN_CHARS, HOSTILE, screen_text

HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def test_markup_is_never_parsed():
    text = literal("[b]bold[/b] [@click=app.quit]quit[/]")
    assert text.plain == "[b]bold[/b] [@click=app.quit]quit[/]"
    assert text.spans == []


def test_escape_sequences_become_visible_escapes():
    text = literal("\x1b[31mred\x1b]0;title\x07")
    assert "\x1b" not in text.plain and "\x07" not in text.plain
    assert text.plain == "\\x1b[31mred\\x1b]0;title\\x07"


def test_c1_del_and_newlines_are_escaped():
    assert clean("a\x9bb\x7fc\nd\te") == "a\\x9bb\\x7fc\\x0ad\\x09e"


def test_bidi_zero_width_and_other_format_characters_are_escaped():
    assert clean("\u202eabc\u202c") == "\\u202eabc\\u202c"
    assert clean("\u2066x\u2069") == "\\u2066x\\u2069"
    assert clean("a\u200bb\u200dc\ufeff") == "a\\u200bb\\u200dc\\ufeff"
    assert clean("\u2028\u2029") == "\\u2028\\u2029"
    assert clean("\U000e0041") == "\\U000e0041"
    assert clean("\ue000") == "\\ue000"
    assert clean("\ud800") == "\\ud800"
    assert clean("\u3164") == "\\u3164"


def test_escapes_are_drawn_differently_from_typed_backslashes():
    forged = literal("\\x1b")  # a sender typing the four characters
    real = literal("\x1b")
    assert forged.plain == real.plain
    assert forged.spans == []
    assert [span.style for span in real.spans] == [ESCAPE_STYLE]


def test_ordinary_text_is_untouched():
    for value in ("did:key:z6Mkabc", "1000 FLOP", "héllo wörld", "日本語", "emoji 🙂"):
        assert literal(value).plain == value


def test_max_len_truncates_with_an_ellipsis():
    assert literal("abcdefghij", max_len=5).plain == "abcd…"
    assert clean("abcdefghij", max_len=5) == "abcd…"
    assert literal("abc", max_len=5).plain == "abc"


def test_non_strings_and_none():
    assert literal(None).plain == ""
    assert literal(42).plain == "42"


def test_join_appends_labels_as_text():
    out = join("label [b]", literal("[i]x"))
    assert out.plain == "label [b] [i]x"
    assert out.spans == []


@settings(max_examples=300)
@given(st.text())
def test_no_hidden_character_survives(value):
    plain = literal(value).plain
    assert plain == clean(value)
    for char in plain:
        assert unicodedata.category(char) not in HIDDEN
        assert not (0x80 <= ord(char) <= 0x9F)


@settings(max_examples=200)
@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E)))
def test_printable_ascii_is_kept_exactly(value):
    assert literal(value).plain == value


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(literal(HOSTILE), id="static")
        yield Label(literal(HOSTILE), id="label")


async def test_widgets_draw_hostile_text_literally_and_keep_running():
    app = Host()
    async with app.run_test(size=(200, 12)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "[@click=app.quit]x[/]" in text
        assert "[b]bold[/b]" in text
        assert "\\x1b[31mred" in text
        for char in FORBIDDEN_CHARS:
            assert char not in text
        await pilot.click("#static", offset=(1, 0))
        await pilot.click("#label", offset=(1, 0))
        await pilot.pause()
        assert app.is_running
        # The "[b]" text is not bold anywhere on screen.
        strips = app.screen._compositor.render_strips()
        for strip in strips:
            for segment in strip:
                if "bold" in segment.text and segment.style is not None:
                    assert not segment.style.bold


def test_literal_returns_rich_text():
    assert isinstance(literal("x"), Text)
