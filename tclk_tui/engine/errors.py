"""Engine errors: one sentence an operator can act on, never a secret, never a traceback."""


class EngineError(Exception):
    """The engine refused or could not do what was asked; the message says why."""
