"""Who is on the other end of the control socket: only this user may drive the wallet."""

from __future__ import annotations

import os
import socket
import struct
import sys

_UCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


def peer_uid(sock: socket.socket) -> int | None:
    """The connecting process's uid from the kernel (SO_PEERCRED, or getpeereid on BSDs)."""
    if hasattr(socket, "SO_PEERCRED"):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
        _pid, uid, _gid = _UCRED.unpack(raw)
        return uid
    if sys.platform == "darwin" or "bsd" in sys.platform:  # pragma: no cover - not Linux
        local_peercred = getattr(socket, "LOCAL_PEERCRED", 0x001)
        raw = sock.getsockopt(0, local_peercred, 4 + 4 + 16 * 4)
        return struct.unpack_from("Ii", raw)[1]
    return None


def peer_refusal(uid: int | None, own_uid: int | None = None) -> str | None:
    """Why a peer with this uid is refused, or None when it is this user."""
    own = os.getuid() if own_uid is None else own_uid
    if uid is None:
        return "the peer's user cannot be checked on this system"
    if uid != own:
        return f"the control socket serves user {own} only (peer is user {uid})"
    return None
