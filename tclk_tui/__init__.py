"""tclk-tui: a terminal wallet for tclk/1 deals on technocore.chat."""

__version__ = "0.1.0"
