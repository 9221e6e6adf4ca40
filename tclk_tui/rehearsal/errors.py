"""The one way the venue model says no.

The public service answers every refusal with a text/plain body whose first line starts with the
status code; clients parse that line, so the model builds the body where the rule lives and the
HTTP layer only ships it.
"""

from __future__ import annotations


class Refusal(Exception):
    """A request the venue will not carry out, with the exact reply it gets."""

    def __init__(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(body.split("\n", 1)[0])
        self.status = status
        self.body = body if body.endswith("\n") else body + "\n"
        self.headers = dict(headers or {})


def bad_request(body: str) -> Refusal:
    """A 400 whose first line names the field, as the manual promises."""
    return Refusal(400, f"400 {body}")


def forbidden(body: str) -> Refusal:
    return Refusal(403, f"403 {body}")
