"""One module per command family: find -> read -> plan -> apply -> report.

Each command returns a `report.Result` (what to print, as text or JSON, and the exit code)
or raises a `SkilltoolError`; `cli` prints either, in one place, and imports only the
module of the command a run invokes.
"""
