"""Settlement rails: the interface and the two rails that move no value (memory, paper)."""

from .base import Clock, SettlementError, SettlementRail, rail_now, wall_clock_ms
from .memory import MemoryRail
from .notes import MemoryNoteStore, NoteStore
from .paper import PAPER_RECORD_PREFIX, PaperRail, PaperRecord

__all__ = [
    "PAPER_RECORD_PREFIX",
    "Clock",
    "MemoryNoteStore",
    "MemoryRail",
    "NoteStore",
    "PaperRail",
    "PaperRecord",
    "SettlementError",
    "SettlementRail",
    "rail_now",
    "wall_clock_ms",
]
