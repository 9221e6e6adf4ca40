from pathlib import Path

import pytest

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.themes import (
    ThemeFileError,
    bundled_themes_dir,
    load_theme_file,
    load_themes,
    theme_from_mapping,
)
from tests.tui.conftest import wait_for


def test_shipped_themes_load():
    loaded = load_themes()
    names = {theme.name for theme in loaded.themes}
    assert {"tclk-dark", "tclk-light", "tclk-high-contrast"} <= names
    assert loaded.problems == ()
    light = next(theme for theme in loaded.themes if theme.name == "tclk-light")
    assert light.dark is False


REPO = Path(__file__).resolve().parents[2]


def test_bundled_themes_are_package_data_and_the_top_level_folder_shows_them():
    bundled = bundled_themes_dir()
    assert (bundled / "dark.toml").is_file()
    # Read from inside the package (importlib.resources), not from a data-files prefix.
    assert Path(str(bundled)).resolve() == (REPO / "tclk_tui" / "themes").resolve()
    top = REPO / "themes"
    assert sorted(p.name for p in top.glob("*.toml")) == sorted(
        entry.name for entry in bundled.iterdir() if entry.name.endswith(".toml"))


def test_user_themes_load_beside_the_bundled_ones(tmp_path: Path):
    (tmp_path / "mine.toml").write_text('name = "mine"\nprimary = "#123456"\n')
    (tmp_path / "broken.toml").write_text('name = "broken"\nprimary = "nope"\n')
    (tmp_path / "dark-again.toml").write_text('name = "tclk-dark"\nprimary = "#123456"\n')
    (tmp_path / "notes.txt").write_text("not a theme")
    loaded = load_themes(user_folder=tmp_path)
    names = [theme.name for theme in loaded.themes]
    assert {"tclk-dark", "tclk-light", "tclk-high-contrast", "mine"} <= set(names)
    assert names.count("tclk-dark") == 1
    assert len(loaded.problems) == 2
    assert f"{tmp_path / 'broken.toml'}: primary is not a colour: 'nope'" in loaded.problems
    assert any(p.startswith(str(tmp_path / "dark-again.toml")) and "duplicate" in p
               for p in loaded.problems)
    assert load_themes(user_folder=tmp_path / "absent").problems == ()


def test_unknown_key_is_refused():
    with pytest.raises(ThemeFileError, match="unknown key"):
        theme_from_mapping({"name": "x", "primary": "#fff", "colour": "#000"})


def test_missing_primary_is_refused():
    with pytest.raises(ThemeFileError, match="primary"):
        theme_from_mapping({"name": "x"})


def test_bad_colour_is_refused():
    with pytest.raises(ThemeFileError, match="not a colour"):
        theme_from_mapping({"name": "x", "primary": "not-a-colour"})


def test_wrong_type_is_refused():
    with pytest.raises(ThemeFileError, match="wrong type"):
        theme_from_mapping({"name": "x", "primary": "#fff", "dark": "yes"})
    with pytest.raises(ThemeFileError, match="wrong type"):
        theme_from_mapping({"name": "x", "primary": "#fff", "text_alpha": True})


def test_bad_name_is_refused():
    with pytest.raises(ThemeFileError, match="name"):
        theme_from_mapping({"name": "a b", "primary": "#fff"})


def test_bad_files_are_reported_and_skipped(tmp_path: Path):
    (tmp_path / "a.toml").write_text('name = "ok"\nprimary = "#123456"\n')
    (tmp_path / "b.toml").write_text("this is = = not toml")
    (tmp_path / "c.toml").write_text('name = "ok"\nprimary = "#654321"\n')
    loaded = load_themes(tmp_path)
    assert [theme.name for theme in loaded.themes] == ["ok"]
    assert any(p.startswith("b.toml: not valid TOML") for p in loaded.problems)
    assert any("duplicate" in p for p in loaded.problems)


def test_missing_folder_is_a_problem_not_a_crash(tmp_path: Path):
    loaded = load_themes(tmp_path / "nope")
    assert loaded.themes == ()
    assert loaded.problems


def test_load_theme_file(tmp_path: Path):
    path = tmp_path / "t.toml"
    path.write_text('name = "t"\nprimary = "#112233"\n[variables]\nborder = "#ffffff"\n')
    assert load_theme_file(path).variables == {"border": "#ffffff"}


async def test_app_uses_default_theme_and_switches_at_runtime(wallet, clock):
    remembered: list[str] = []
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, on_theme_change=remembered.append)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.theme == "tclk-dark"
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: remembered, what="theme callback")
        assert app.theme == remembered[-1]
        assert remembered[-1] in app.theme_names
        app.action_set_theme("tclk-light")
        await wait_for(pilot, lambda: remembered[-1] == "tclk-light", what="light theme")


async def test_app_starts_with_the_remembered_theme(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, theme="tclk-high-contrast")
    async with app.run_test(size=(80, 24)):
        assert app.theme == "tclk-high-contrast"


async def test_unknown_theme_falls_back_with_a_notice(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, theme="no-such-theme")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "tclk-dark"
        assert any("no-such-theme" in n.message for n in app._notifications)


async def test_theme_callback_failure_is_reported_not_fatal(wallet, clock):
    def broken(_name: str) -> None:
        raise OSError("disk full")

    app = TclkApp(LocalDoor(wallet), clock_ms=clock, on_theme_change=broken)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_set_theme("tclk-light")
        await wait_for(pilot, lambda: any("remember the theme" in n.message
                                          for n in app._notifications), what="notice")
        assert app.is_running


async def test_a_user_theme_is_offered_and_a_bad_one_reported_by_path(wallet, clock,
                                                                       tmp_path: Path):
    (tmp_path / "mine.toml").write_text('name = "mine"\nprimary = "#123456"\n')
    (tmp_path / "bad.toml").write_text("name = [")
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, user_themes_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: any(str(tmp_path / "bad.toml") in n.message
                                          for n in app._notifications), what="notice")
        notice = next(n.message for n in app._notifications if "bad.toml" in n.message)
        assert "not valid TOML" in notice
        assert "mine" in app.theme_names
        assert app.is_running
        app.action_set_theme("mine")
        await wait_for(pilot, lambda: app.theme == "mine", what="user theme")


async def test_switching_theme_says_which_theme_is_on(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not any(n.message.startswith("Theme:") for n in app._notifications)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: any(n.message == f"Theme: {app.theme}"
                                          for n in app._notifications), what="theme notice")
        assert app.theme != "tclk-dark"
