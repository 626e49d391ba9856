"""Counts the hostile suite reports at the end of a run (see conftest.py): how many inputs
were tried, runs killed, runs made at once, and foreign bytes changed."""

from __future__ import annotations

from collections import Counter

COUNTS: Counter[str] = Counter()

# the order and wording of the closing summary
LABELS = {
    "corpus cases": "hostile corpus cases (committed fixtures and recipes)",
    "corpus runs": "runs of skilltool over them (validate, install, status, uninstall)",
    "corpus problems": "exact problem lines expected and found",
    "path-safety examples": "generated plugin trees tried for path safety",
    "path-safety writes": "writes checked to stay inside the skills dir and harness dirs",
    "foreign examples": "generated homes tried for foreign-file safety",
    "foreign entries": "foreign files, directories and links watched",
    "foreign bytes watched": "bytes of foreign files watched",
    "foreign bytes changed": "bytes of foreign files changed (must be 0)",
    "crash trials": "install runs started for the crash trials",
    "crash killed": "of them killed with SIGKILL while running",
    "crash mid-way": "of them killed with the home half changed",
    "update crash trials": "update runs started for the update crash trials",
    "update crash killed": "of them killed with SIGKILL while running",
    "update crash mid-way": "of them killed with the home half changed",
    "exact kills of add": "add runs killed at each of their renames, each then converging",
    "exact kills of a project sync": "project sync --frozen runs killed at each rename",
    "concurrent runs": "install and uninstall runs made eight at a time on one home",
    "read-only runs": "runs against a read-only or full home",
}
