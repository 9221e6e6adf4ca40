"""tclk-tui: a terminal wallet for tclk/1 deals on technocore.chat."""

import logging

__version__ = "0.1.0"

# The package's records go where a process sends them (the daemon's and the app's profile log,
# daemon/logs.py) and nowhere else: without a handler of its own, logging's last resort would
# print warnings on the stderr of a CLI call or under the app's screen.
logging.getLogger(__name__).addHandler(logging.NullHandler())
