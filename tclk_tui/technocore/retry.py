"""When to try a venue request again, and how long to wait first.

A 429 says how long to wait, so the client waits that long, within a total budget. A 5xx, a 408
or no answer at all is retried a bounded number of times with exponential backoff and jitter,
so a fleet of clients that failed together does not come back together. A 422 is never retried:
the same bytes are refused again whatever the wait. The sleep and the randomness are
parameters, so tests drive the policy without waiting.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    """Retry rules for one request (and the backoff a follower uses between failures).

    - `attempts`: total tries for a retryable failure (5xx, 408, timeout, malformed 2xx).
    - `base_delay_s` doubles per retry up to `max_delay_s`; `jitter` is the fraction of each
      delay that is randomised (0 = fixed, 1 = anywhere from 0 to the full delay).
    - `rate_limit_budget_s`: total seconds one request may spend waiting out 429s; a 429 asking
      for more than what is left is raised at once as RateLimited.
    - `rate_limit_floor_s`: the least a 429 wait counts (and sleeps), whatever the reply says.
    - `rate_limit_retries`: how many 429s one request may wait out before it gives up.
    """

    attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 10.0
    jitter: float = 0.5
    rate_limit_budget_s: float = 60.0
    rate_limit_floor_s: float = 0.5
    rate_limit_retries: int = 8
    sleep: Sleep = field(default=asyncio.sleep, repr=False, compare=False)
    random: Callable[[], float] = field(default=random.random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("attempts must be at least 1")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError("jitter is a fraction between 0 and 1")
        if (self.base_delay_s < 0 or self.max_delay_s < 0 or self.rate_limit_budget_s < 0
                or self.rate_limit_floor_s < 0 or self.rate_limit_retries < 0):
            raise ValueError("delays, budgets and counts are non-negative")

    def rate_limit_wait(self, asked_s: float) -> float:
        """What a 429 asking for `asked_s` costs: at least the floor (NaN and negatives too)."""
        if not math.isfinite(asked_s):
            return math.inf if asked_s > 0 else self.rate_limit_floor_s
        return max(asked_s, self.rate_limit_floor_s)

    def backoff(self, attempt: int) -> float:
        """Delay before retry number `attempt` (0-based): capped exponential with jitter."""
        delay = min(self.max_delay_s, self.base_delay_s * (2 ** min(attempt, 32)))
        fixed = delay * (1.0 - self.jitter)
        return fixed + delay * self.jitter * self.random()
