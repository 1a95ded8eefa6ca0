"""Runs every browser test (test_*.py here) against one shared server and browser; prints `N passed, M failed`
last and exits non-zero on any failure."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import World  # noqa: E402


def main():
    start = time.monotonic()
    suite = unittest.defaultTestLoader.discover(os.path.dirname(os.path.abspath(__file__)), pattern="test_*.py")
    if len(sys.argv) > 1:  # optional name filters: run.py drag wheel
        suite = unittest.TestSuite(t for t in iterate(suite) if any(word in t.id() for word in sys.argv[1:]))
    try:
        result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    finally:
        World.close_shared()
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - len(result.skipped)
    print(f"browser tests: {passed} passed, {failed} failed in {time.monotonic() - start:.1f} s")
    return 0 if failed == 0 and not result.skipped and result.testsRun > 0 else 1


def iterate(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from iterate(item)
        else:
            yield item


if __name__ == "__main__":
    sys.exit(main())
