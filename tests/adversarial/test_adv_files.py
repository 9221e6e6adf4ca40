"""The careless operator's files: a manifest, a keymap, a theme or an evm.json nested 50,000
deep (or otherwise unusable) is named with its reason; it never crashes the command that reads
it, nor hides the good files beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tclk_tui.cli import main
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.evm import load_evm_settings
from tclk_tui.tui.keymap import load_keymap
from tclk_tui.tui.themes import load_themes

DEEP_TOML = "tools = " + "[" * 5_000 + "]" * 5_000 + "\n"
DEEP_TABLE = "x = " + "{a = " * 5_000 + "1" + "}" * 5_000 + "\n"


def test_a_deep_manifest_is_refused_with_its_reason_and_the_others_still_load(tmp_path: Path,
                                                                              capsys):
    folder = tmp_path / "default" / "agents"
    folder.mkdir(parents=True)
    (folder / "deep.toml").write_text(DEEP_TOML, encoding="utf-8")
    (folder / "table.toml").write_text(DEEP_TABLE, encoding="utf-8")
    (folder / "good.toml").write_text('tools = ["board"]\n', encoding="utf-8")
    assert main(["--home", str(tmp_path), "agents", "check"]) == 1
    captured = capsys.readouterr()
    assert "good: ok" in captured.out, captured
    assert "deep: " in captured.out and "table: " in captured.out, captured
    assert "nested too deep" in captured.out, captured
    assert "unexpected" not in captured.err, captured


def test_a_deep_keymap_and_theme_keep_the_defaults_with_a_reason(tmp_path: Path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text(DEEP_TABLE, encoding="utf-8")
    loaded = load_keymap(keymap, {})
    assert loaded.problems and "nested too deep" in loaded.problems[0], loaded
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "deep.toml").write_text(DEEP_TABLE, encoding="utf-8")
    result = load_themes(user_folder=themes)
    assert result.themes and any("nested too deep" in p for p in result.problems), result


def test_a_deep_evm_json_is_an_engine_error(tmp_path: Path):
    (tmp_path / "evm.json").write_text("[" * 10_000 + "]" * 10_000, encoding="utf-8")
    with pytest.raises(EngineError, match="not usable"):
        load_evm_settings(tmp_path)
