"""The demo: a rehearsal venue, a scripted counterparty and a throwaway profile, in one process.

It sits above the engine (it drives real wallets) and beside the rehearsal venue (it starts one),
so the engine never imports the rehearsal server: `engine/` is the wallet a user runs against a
real venue, and this package is the stage a demo or a test sets around it.
"""
