"""Who holds a deal's secret (SPEC §8), named inside the offer so the contract id commits to it.

tclk/1 has no field for a referee, and a decoder rejects unknown keys, so the panel rides the
offer's optional `job.context`: `arbiter:<did>` for one arbiter who mints and holds the secret
(§8.1), `panel:<did>,<did>,...` for a unanimous committee (§8.2), either optionally followed by
`;vote-by:<unix ms>` (the close of a commit-reveal round's commit phase, §8.3; the default is the
offer's claimByMs). The offer id hashes the job, so neither side can swap referees later.

Who mints the statement: the arbiter alone, or for a point lock each juror its own share
Y_i = y_i·G, the statement being ΣY_i (no dealer: nobody ever holds y); for a hash lock the first
juror deals (mints s, splits it into XOR shares, hands each juror its share, forgets s). Every
statement or share is published as a signed side-line on the board, and both parties check it
against the panel before they accept or lock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from tclk_tui.protocol import secp
from tclk_tui.protocol.didkey import DID_RE
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.hexutil import bytes_to_hex
from tclk_tui.protocol.locks import is_valid_statement

PanelKind = Literal["arbiter", "committee"]
MAX_JURORS = 16


@dataclass(frozen=True, slots=True)
class Panel:
    kind: PanelKind
    members: tuple[str, ...]  # the arbiter, or the jurors in share order
    vote_by_ms: int | None = None

    @property
    def dealer(self) -> str:
        """Who mints a hash-lock secret for the panel (the arbiter, or the first juror)."""
        return self.members[0]

    def index_of(self, did: str) -> int | None:
        return self.members.index(did) if did in self.members else None


def panel_context(members: list[str] | tuple[str, ...], vote_by_ms: int | None = None) -> str:
    """The `job.context` naming one arbiter or a unanimous committee."""
    members = tuple(m.strip() for m in members)
    if not members:
        raise TclkError("tclk: a panel names at least one DID")
    if len(members) > MAX_JURORS:
        raise TclkError(f"tclk: a committee has at most {MAX_JURORS} jurors")
    for did in members:
        if DID_RE.fullmatch(did) is None:
            raise TclkError(f"tclk: panel member {did[:20]!r} is not an Ed25519 did:key")
    if len(set(members)) != len(members):
        raise TclkError("tclk: a juror is named twice")
    text = f"arbiter:{members[0]}" if len(members) == 1 else "panel:" + ",".join(members)
    if vote_by_ms is not None:
        text += f";vote-by:{int(vote_by_ms)}"
    return text


def parse_panel(context: str) -> Panel | None:
    """The panel a job context names; None when it names none; TclkError when malformed."""
    if not context.startswith(("arbiter:", "panel:")):
        return None
    body, _, option = context.partition(";")
    vote_by: int | None = None
    if option:
        name, _, value = option.partition(":")
        if name != "vote-by" or not value.isascii() or not value.isdigit() or len(value) > 16:
            raise TclkError("tclk: a panel's only option is vote-by:<unix ms>")
        vote_by = int(value)
    kind, _, names = body.partition(":")
    members = tuple(names.split(",")) if names else ()
    if not members or any(DID_RE.fullmatch(m) is None for m in members):
        raise TclkError("tclk: the panel names something that is not an Ed25519 did:key")
    if kind == "arbiter" and len(members) != 1:
        raise TclkError("tclk: arbiter: names exactly one DID")
    if kind == "panel" and not 2 <= len(members) <= MAX_JURORS:
        raise TclkError(f"tclk: a committee has 2 to {MAX_JURORS} jurors")
    if len(set(members)) != len(members):
        raise TclkError("tclk: a juror is named twice")
    return Panel("arbiter" if kind == "arbiter" else "committee", members, vote_by)


def panel_of(offer: Mapping) -> Panel | None:
    """The panel an offer frame names (via job.context), if any."""
    job = offer.get("job")
    if not isinstance(job, Mapping) or not isinstance(job.get("context"), str):
        return None
    return parse_panel(job["context"])


def vote_deadline(offer: Mapping, panel: Panel) -> int:
    """When the commit phase closes: the panel's vote-by, or the offer's claimByMs."""
    return panel.vote_by_ms if panel.vote_by_ms is not None else int(offer["claimByMs"])


def sum_points(points: list[str]) -> str | None:
    """ΣY_i as a compressed point, or None when a share is not a point or the sum is infinity."""
    total: bytes | None = None
    for point in points:
        if not is_valid_statement("point", point):
            return None
        raw = bytes.fromhex(point[2:])
        total = raw if total is None else secp.point_add(total, raw)
        if total is None:
            return None
    return None if total is None else bytes_to_hex(total)


@dataclass(frozen=True, slots=True)
class Provenance:
    """Whether a statement is the one the offer's panel minted, from signed board lines."""

    statement: str | None  # what the panel's signed lines give (None until complete)
    missing: tuple[str, ...]  # panel members whose line is not on the board yet
    reason: str


def panel_statement(offer: Mapping, panel: Panel, lines: Mapping[str, str]) -> Provenance:
    """The statement the panel published: `lines` maps a member's DID to its signed line's
    statement (the arbiter's statement, a juror's Y_i, or the dealer's statement)."""
    lock = offer["lock"]
    if panel.kind == "arbiter" or lock == "hash":
        who = panel.dealer
        statement = lines.get(who)
        if statement is None:
            return Provenance(None, (who,), "the arbiter has not published its statement yet"
                              if panel.kind == "arbiter" else
                              "the dealer has not published the statement yet")
        if not is_valid_statement(lock, statement):
            return Provenance(None, (), f"the published statement does not fit a {lock} lock")
        return Provenance(statement, (), "signed by the "
                          + ("arbiter" if panel.kind == "arbiter" else "dealing juror"))
    missing = tuple(m for m in panel.members if m not in lines)
    if missing:
        return Provenance(None, missing, f"{len(missing)} of {len(panel.members)} jurors "
                          "have not published their share point yet")
    total = sum_points([lines[m] for m in panel.members])
    if total is None:
        return Provenance(None, (), "the jurors' share points do not add up to a statement")
    return Provenance(total, (), f"the sum of {len(panel.members)} jurors' signed share points")


def check_statement(offer: Mapping, statement: str | None,
                    lines: Mapping[str, str]) -> tuple[bool | None, str]:
    """(True, why) when the statement is the panel's; (False, why) when it is not; (None, "")
    when the offer names no panel."""
    try:
        panel = panel_of(offer)
    except TclkError as exc:
        return False, str(exc).removeprefix("tclk: ")
    if panel is None:
        return None, ""
    found = panel_statement(offer, panel, lines)
    if found.statement is None:
        return False, found.reason
    if statement is None or statement.lower() != found.statement:
        return False, "the contract's statement is not the one the panel published"
    return True, found.reason


__all__ = [
    "MAX_JURORS",
    "Panel",
    "Provenance",
    "check_statement",
    "panel_context",
    "panel_of",
    "panel_statement",
    "parse_panel",
    "sum_points",
    "vote_deadline",
]
