"""A Python engine's call, on a thread of its own.

The crate's runner waits for the call (`Call.done`) until the run's time
limit or Ctrl-C. A Python function cannot be stopped from outside: when
either comes first, the run ends without it, `Call.stop` is set (the
function sees it through `serverpick.stop_requested()`), and the call runs
on until it returns, its answer dropped.

The thread is not a daemon thread: the interpreter waits for it at exit,
as it waits for `concurrent.futures` workers, and then finalises as usual
(open files flushed). A daemon thread would be stopped wherever it is when
the interpreter exits, and a thread stopped inside compiled code (a
serverpick call) aborts the process. Only Python runs on this thread
besides what the function itself calls.
"""

import threading
from typing import Any, Callable, Optional

_current = threading.local()


class Call:
    """`fn(view)` started on its own thread: `done` is set once it returned
    (`answer`) or raised (`error`: any exception, KeyboardInterrupt and
    SystemExit included, which end this call, not the program); `stop` is
    set when the run ended without it."""

    def __init__(self, fn: Callable[[Any], Any], view: Any, name: str) -> None:
        self.done = threading.Event()
        self.stop = threading.Event()
        self.answer: Any = None
        self.error: Optional[BaseException] = None
        self._fn: Optional[Callable[[Any], Any]] = fn
        self._view: Any = view
        # Explicitly not a daemon: a thread inherits the flag of the one
        # that starts it, here the runner's (a daemon in Python's eyes).
        thread = threading.Thread(target=self._run, name=f"serverpick engine {name}", daemon=False)
        thread.start()

    def _run(self) -> None:
        fn, view = self._fn, self._view
        self._fn = self._view = None
        _current.call = self
        try:
            self.answer = fn(view)  # type: ignore[misc]
        except BaseException as e:  # noqa: BLE001 (reported as the run's error)
            self.error = e
        finally:
            _current.call = None
            self.done.set()


def stop_requested() -> bool:
    """True inside a Python engine whose run has ended (its time limit
    passed, or Ctrl-C): the function should return; what it returns now is
    dropped. False elsewhere."""
    call = getattr(_current, "call", None)
    return call is not None and call.stop.is_set()
