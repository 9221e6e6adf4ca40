"""A crash report never prints local variables (a caller may be holding a secret)."""

from tclk_tui.tui.app import TclkApp


async def test_a_crash_report_shows_the_error_but_no_locals(wallet):
    app = TclkApp(wallet)
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
