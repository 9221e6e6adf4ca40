"""Command-line entry point (placeholder until the engine lands)."""

from __future__ import annotations

import argparse
import sys

from tclk_tui import __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tclk-tui")
    parser.add_argument("--version", action="version", version=f"tclk-tui {__version__}")
    parser.parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
