"""A crash report never prints local variables (a caller may be holding a secret)."""

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp


async def test_a_crash_report_shows_the_error_but_no_locals(wallet):
    app = TclkApp(LocalDoor(wallet))
    marker = "s3cr3t-l0cal"

    def explode() -> None:
        secret_local = marker
        raise RuntimeError(f"boom {len(secret_local)}")

    async with app.run_test():
        try:
            explode()
        except RuntimeError:
            app._fatal_error()
        rendered = "".join(seg.text for r in app._exit_renderables for seg in r.segments)
    assert "boom 12" in rendered
    assert marker not in rendered


async def test_an_app_that_crashed_ends_with_a_failing_exit_status(wallet, monkeypatch):
    """Textual prints its report and returns; the status is what tells a shell or a service
    manager that the app did not simply quit."""
    import gc
    from functools import partialmethod

    from tclk_tui.tui import run

    def broken(self: TclkApp) -> None:
        raise RuntimeError("a pane that cannot be drawn")

    monkeypatch.setattr(TclkApp, "run_async", partialmethod(TclkApp.run_async, headless=True))
    monkeypatch.setattr(TclkApp, "on_mount", broken)
    monkeypatch.setattr(run, "_theme_memory", lambda _wallet: (None, lambda _name: None))
    try:
        assert await run._run_app(LocalDoor(wallet)) == 1

        monkeypatch.setattr(TclkApp, "on_mount", lambda self: self.exit())
        assert await run._run_app(LocalDoor(wallet)) == 0
    finally:
        gc.unfreeze()  # `_run_app` keeps what it found out of later collections
