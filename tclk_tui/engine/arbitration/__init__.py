"""Arbitration: the referee's console and its gates, the arbiter's and juror's desk (shares,
commit-reveal votes) and its gates, vote rounds, and the signed side lines beside the protocol.

Nothing is imported here: import the module you need, so a light caller stays light.
"""
