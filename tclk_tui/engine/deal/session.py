"""One contract's whole life, as payer or payee, on either lock kind.

A deal's state is always the fold of the signed transcript it has seen (the same
`fold_transcript` an offline auditor runs); nothing here sets a status by hand. Actions that
commit money or a secret go through gates, re-checked at confirmation time.
"""

from __future__ import annotations

from dataclasses import dataclass

from tclk_tui.engine.deal.gates import DealGates


@dataclass
class DealSession(DealGates):
    """A deal: its fold, the rail's word, the legal answers and view, the actions and gates
    (see the package's docstring for how the parts stack)."""
