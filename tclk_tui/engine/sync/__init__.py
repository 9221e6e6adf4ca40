"""Following the venue: the read scheduler and its policy, the board and deal rooms synced and
journaled, the outbox, the sealed mail and private deals, and the wallet's venue budget.

Nothing is imported here: import the module you need, so a light caller stays light.
"""
