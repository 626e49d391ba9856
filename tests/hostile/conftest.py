"""The hostile suite's counts are summed and printed by tests/conftest.py (which the process
that prints the summary loads, also when the tests run in parallel)."""
