"""The offers board: the live model of `tclk-offers`, reading a whole ring, its filter
line, the offer desk (our offers, and accepting someone else's) and the dry run of an accept.

Nothing is imported here: import the module you need, so a light caller stays light.
"""
