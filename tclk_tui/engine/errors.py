"""Engine errors: one sentence an operator can act on, never a secret, never a traceback."""


class EngineError(Exception):
    """The engine refused or could not do what was asked; the message says why."""


class ProfileBusy(EngineError):
    """Another process owns the profile: a face attaches to it (`pid` is the owner) or stops."""

    def __init__(self, message: str, pid: int | None) -> None:
        super().__init__(message)
        self.pid = pid
