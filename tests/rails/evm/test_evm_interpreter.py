"""Importing the EVM rail must not change how the interpreter treats hostile input."""

import subprocess
import sys

SCRIPT = """
import sys
limit = sys.getrecursionlimit()
import tclk_tui.rails.evm
import tclk_tui.engine.wallet
assert sys.getrecursionlimit() == limit, sys.getrecursionlimit()
from tclk_tui.technocore.records import loads_strict
try:
    loads_strict(b"[" * 100_000 + b"]" * 100_000)
except ValueError as exc:
    print("refused:", exc)
"""


def test_deep_json_is_refused_after_the_evm_rail_is_imported():
    # eth-account's import raises the recursion limit to 100000, under which this body would
    # overflow the C stack (a segfault) instead of being refused; run it in a child process.
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "refused: JSON nested too deeply" in result.stdout


LIGHT = """
import sys
import tclk_tui.cli, tclk_tui.engine.wallet, tclk_tui.demo.session, tclk_tui.tui.app
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("eth_account", "eth_abi", "py_ecc"))
print(heavy)
"""


def test_a_profile_without_the_evm_rail_never_loads_the_ethereum_libraries():
    # They cost seconds of start-up for every CLI call and the paper demo.
    result = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
