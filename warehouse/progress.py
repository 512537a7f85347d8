"""Progress of long work, for whoever watches it: the library reports steps (runs evaluated,
comparisons tested) to the callable a caller set with reported_to, and does nothing otherwise. The
irw command sets one that draws a bar on stderr when stderr is a terminal (a walk waited 52 s for
`irw eval` of a new measure over 10,000 runs, and 5 minutes for a first leaderboard, with no word)."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

# what(label, done, total): label says what is counted ("runs evaluated")
Callback = Callable[[str, int, int], None]
_CALLBACK: ContextVar[Callback | None] = ContextVar("irw_progress", default=None)


@contextmanager
def reported_to(callback: Callback | None) -> Iterator[None]:
    """Within the block, long work reports its steps to callback (None: to no one)."""
    token = _CALLBACK.set(callback)
    try:
        yield
    finally:
        _CALLBACK.reset(token)


def step(label: str, done: int, total: int) -> None:
    """done of total units of the work label names are done (a caller's callback, if any, hears it)."""
    callback = _CALLBACK.get()
    if callback is not None:
        callback(label, done, total)
