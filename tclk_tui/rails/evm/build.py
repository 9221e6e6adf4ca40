"""Recompile the escrow and rewrite its shipped artifact: `python3 -m tclk_tui.rails.evm.build`.

The wallet never compiles at run time; it deploys and checks the bytes in `HtlcEscrow.json`.
This module exists so anyone can reproduce those bytes from `HtlcEscrow.vy` with the pinned
compiler (the test suite does, and fails on any difference).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "HtlcEscrow.vy"
ARTIFACT = HERE / "HtlcEscrow.json"
VYPER_VERSION = "0.4.3"
EVM_VERSION = "cancun"


def compile_escrow() -> dict:
    """ABI and deployment bytecode of the escrow, as the pinned vyper makes them."""
    import vyper  # a development dependency only: the installed wallet ships the output
    from vyper.compiler import compile_code
    from vyper.compiler.settings import OptimizationLevel, Settings

    if vyper.__version__ != VYPER_VERSION:
        raise RuntimeError(f"the escrow is pinned to vyper {VYPER_VERSION}, "
                           f"found {vyper.__version__}")
    settings = Settings(optimize=OptimizationLevel.GAS, evm_version=EVM_VERSION)
    out = compile_code(SOURCE.read_text(encoding="utf-8"), contract_path="HtlcEscrow.vy",
                       output_formats=["abi", "bytecode", "bytecode_runtime"], settings=settings)
    return {"compiler": f"vyper {VYPER_VERSION}", "evm_version": EVM_VERSION,
            "optimize": "gas", "abi": out["abi"], "bytecode": out["bytecode"],
            "bytecode_runtime": out["bytecode_runtime"]}


def main() -> int:
    ARTIFACT.write_text(json.dumps(compile_escrow(), indent=1, sort_keys=True) + "\n",
                        encoding="utf-8")
    print(f"wrote {ARTIFACT.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
