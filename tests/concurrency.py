"""Races on PostgreSQL: threads, each with its own database connection, started together."""

import threading

from django.db import connections


def run_threads(n, target):
    """``target(i)`` for i in 0..n-1, each in its own thread, all released at once by a barrier; returns
    what the threads raised (as text, naming the thread). Each thread's connections are closed after it."""
    errors, barrier = [], threading.Barrier(n)

    def body(i):
        try:
            barrier.wait()
            target(i)
        except Exception as exc:  # noqa: BLE001 (reported below, with the thread)
            errors.append(f"thread {i}: {type(exc).__name__}: {exc}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return errors
