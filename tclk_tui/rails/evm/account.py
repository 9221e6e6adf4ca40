"""eth-account's `Account`, imported without its side effect on the interpreter.

Importing eth-account imports py_ecc, which raises the process-wide recursion limit to 100000.
Under that limit a deeply nested JSON body (venue input is written by strangers) overflows the C
stack inside `json.loads` and kills the process, where the default limit makes it raise
`RecursionError`, which the venue client turns into a refusal. So the limit is put back.
Import `Account` from here, never from eth_account directly.
"""

from __future__ import annotations

import sys

_limit = sys.getrecursionlimit()
try:
    from eth_account import Account
finally:
    sys.setrecursionlimit(_limit)

__all__ = ["Account"]
