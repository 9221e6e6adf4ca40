"""Recompile the contracts and rewrite their artifacts: `python3 -m tclk_tui.rails.evm.build`.

The wallet never compiles at run time; it deploys and checks the bytes in `HtlcEscrow.json`
(and the demo deploys `TestToken.json`). This module exists so anyone can reproduce those
bytes from the `.vy` sources with the pinned compiler (the test suite does, and fails on any
difference). Given paths, it compiles those sources instead (the test suite's own tokens:
`python3 -m tclk_tui.rails.evm.build tests/rails/evm/contracts/*.vy`), each artifact written
beside its source.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "HtlcEscrow.vy"
ARTIFACT = HERE / "HtlcEscrow.json"
SHIPPED = (SOURCE, HERE / "TestToken.vy")
VYPER_VERSION = "0.4.3"
EVM_VERSION = "cancun"


def artifact_path(source: Path) -> Path:
    return source.with_suffix(".json")


def compile_contract(source: Path) -> dict:
    """ABI and deployment bytecode of one source, as the pinned vyper makes them."""
    import vyper  # a development dependency only: the installed wallet ships the output
    from vyper.compiler import compile_code
    from vyper.compiler.settings import OptimizationLevel, Settings

    if vyper.__version__ != VYPER_VERSION:
        raise RuntimeError(f"the contracts are pinned to vyper {VYPER_VERSION}, "
                           f"found {vyper.__version__}")
    settings = Settings(optimize=OptimizationLevel.GAS, evm_version=EVM_VERSION)
    out = compile_code(source.read_text(encoding="utf-8"), contract_path=source.name,
                       output_formats=["abi", "bytecode", "bytecode_runtime"], settings=settings)
    return {"compiler": f"vyper {VYPER_VERSION}", "evm_version": EVM_VERSION,
            "optimize": "gas", "abi": out["abi"], "bytecode": out["bytecode"],
            "bytecode_runtime": out["bytecode_runtime"]}


def compile_escrow() -> dict:
    return compile_contract(SOURCE)


def main(argv: list[str] | None = None) -> int:
    sources = [Path(arg) for arg in (sys.argv[1:] if argv is None else argv)] or list(SHIPPED)
    for source in sources:
        target = artifact_path(source)
        target.write_text(json.dumps(compile_contract(source), indent=1, sort_keys=True) + "\n",
                          encoding="utf-8")
        print(f"wrote {target.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
