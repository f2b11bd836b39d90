"""Run one ``transform()`` call as a task that reads its input and fills its own output.

:func:`spawn_transform` wires the lifecycle every local transformer needs: the
work coroutine gets a fresh :class:`~genx.stream.StreamBuilder`; when it returns
the output ends with Done (unless it ended the output itself); when it raises,
the output ends with that exception; when the consumer closes the output, the
task is cancelled; the input stream is always closed at the end. Tasks are kept
in a module set so they are not garbage-collected while running.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from genx.errors import StreamClosedError
from genx.stream import Stream, StreamBuilder

log = logging.getLogger(__name__)

_running: set[asyncio.Task[None]] = set()


def spawn_transform(source: Stream, work: Callable[[StreamBuilder], Awaitable[None]], name: str) -> Stream:
    out = StreamBuilder()

    async def runner() -> None:
        try:
            await work(out)
            if not out.ended:
                out.done()
        except asyncio.CancelledError:
            if not out.ended:
                out.abort(StreamClosedError(f"{name} (cancelled)"))
            raise
        except Exception as exc:  # the call's own failure ends its output, nothing else
            if not out.ended:
                out.abort(exc)
            elif not out.closed_by_consumer:
                log.debug("%s failed after its output ended: %r", name, exc)
        finally:
            await source.close()

    loop = asyncio.get_running_loop()
    task = loop.create_task(runner(), name=name)
    _running.add(task)
    task.add_done_callback(_running.discard)

    def cancel(_exc: BaseException | None) -> None:
        # A task cancelled before its first step never runs its ``finally``: close the input here too.
        task.cancel()
        closer = loop.create_task(source.close(), name=f"{name}.close-input")
        _running.add(closer)
        closer.add_done_callback(_running.discard)

    out.on_close(cancel)
    return out.stream
