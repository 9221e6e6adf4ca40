"""One deal, in five parts stacked one on another, each in its own module:

- `fold` (DealFold): the records in, folded as they arrive; the accept the deal is bound to;
  the views of its records. It knows no rail and no gate.
- `rail` (DealRail): what the rails hold for the contract, the payee's check of the lock, the
  quote of what a lock would take from the account.
- `answers` (DealAnswers): which actions are legal now (the dry-run) and the whole deal view.
- `actions` (DealActions): lock, claim and reveal, refund, cancel, heartbeat, receipt; the
  rail_moved wording; transactions that wait for the fee.
- `gates` (DealGates): requests and confirmations, their facts and blockers, the acting lock.

`DealSession` (session.py) is the top of the stack. Why layers of one object and not
collaborators: a deal is one state (the fold's ContractState, the rail's last word, the quote)
that every part reads, and some fifteen modules across the engine and the faces hold one
session and about fifty of its names. Collaborators would each need a handle on that state
and the session a façade re-declaring every name; as layers, each part is a class of its own
that uses only the parts beneath it (the gates confirm by calling the actions below them),
while callers see one deal. The one word passed upward is the fold's `_transcript_moved`: the
rail layer forgets a check read against an older transcript.

A new deal action: its frame and its dry-run in `engine.legal`, what it does in `actions`, and,
if it commits money or a secret, its request and confirmation in `gates`.
"""

from tclk_tui.engine.deal.answers import UNKNOWN
from tclk_tui.engine.deal.gates import LOCK_MARGIN_MS
from tclk_tui.engine.deal.rail import LockCheck, RailCheck, claim_message
from tclk_tui.engine.deal.session import DealSession
from tclk_tui.engine.deal.text import describe_frame, short

__all__ = ["LOCK_MARGIN_MS", "UNKNOWN", "DealSession", "LockCheck", "RailCheck",
           "claim_message", "describe_frame", "short"]
