"""Running calls at the same instant from several threads, for the PostgreSQL lock tests."""

import threading

from django.db import connections


def at_once(*calls, refusals=()):
    """Run the calls in threads released together; returns their results in order.

    An exception of a type in `refusals` is a legitimate outcome and becomes the result;
    any other exception fails the test. Each thread uses, then closes, its own connection.
    """
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)
    errors = []

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except refusals as exc:
            results[index] = exc
        except Exception as exc:  # reported to the test below, not swallowed
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return results
