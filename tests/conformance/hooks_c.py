"""Shared by the hook tests of pi, Mistral Vibe and Hermes (test_hooks_<harness>.py).

- `ToolCallStub(calls)`: the loopback OpenAI stub whose Chat Completions answer is the
  next scripted tool call (`tool_calls` with one function call): the n-th call while the
  request carries n-1 tool results, then `final` as text. JSON or SSE, as asked.
- `write_recorder(dir, rules)`: a tiny Python hook command, outside any repository, that
  appends one JSON line per call (argv, stdin parsed, the environment's `CLAUDE_*`/
  `PI_*`/`HERMES_*`/`VIBE_*`/`PLUGIN_*` variables, cwd) to `calls.jsonl` beside it. Its
  first argument names the event it was configured for; the first rule whose `event` is
  that name and whose `contains` is in stdin answers: `stdout`, `stderr`, `exit`.
"""

from __future__ import annotations

import json
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conformance.stub import OpenAIStub, Recorded, _Handler

RECORDER = r"""#!{python}
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
raw = sys.stdin.read()
try:
    payload = json.loads(raw) if raw.strip() else None
except ValueError:
    payload = {{"unparsed": raw}}
keep = ("CLAUDE_", "PI_", "HERMES_", "VIBE_", "PLUGIN_")
env = {{k: v for k, v in os.environ.items() if k.startswith(keep)}}
line = {{"argv": sys.argv[1:], "stdin": payload, "env": env, "cwd": os.getcwd()}}
with open(os.path.join(here, "calls.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps(line) + "\n")
try:
    with open(os.path.join(here, "rules.json"), encoding="utf-8") as f:
        rules = json.load(f)
except OSError:
    rules = []
for rule in rules:
    if sys.argv[1:2] == [rule["event"]] and rule.get("contains", "") in raw:
        sys.stdout.write(rule.get("stdout", ""))
        sys.stderr.write(rule.get("stderr", ""))
        sys.exit(rule.get("exit", 0))
"""


# the system's Python when there is one: the recorder depends on nothing of the repository
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").is_file() else sys.executable


def write_recorder(directory: Path, rules: list[dict[str, Any]] | None = None) -> Path:
    """The recorder script in `directory` (created); its calls land in `calls.jsonl`."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "recorder.py"
    script.write_text(RECORDER.format(python=PYTHON), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    (directory / "rules.json").write_text(json.dumps(rules or []), encoding="utf-8")
    return script


def calls(directory: Path) -> list[dict[str, Any]]:
    log = directory / "calls.jsonl"
    if not log.is_file():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def fired(directory: Path) -> list[str]:
    """The event names the recorder was called for, in order."""
    return [c["argv"][0] for c in calls(directory)]


def tool_results_in(rec: Recorded) -> int:
    messages = (rec.json or {}).get("messages") or []
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "tool")


class ToolCallStub(OpenAIStub):
    """Chat Completions: the scripted tool calls one per request, then `final` as text."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]], final: str = "hooks done") -> None:
        super().__init__(reply=final)
        self.calls = calls

    def _handler_base(self) -> type[_Handler]:
        return _ToolCallHandler

    def tool_results(self) -> list[str]:
        """The tool messages' contents of the last model request, in order."""
        out: list[str] = []
        requests = self.model_requests()
        for m in (requests[-1].json or {}).get("messages") or [] if requests else []:
            if isinstance(m, dict) and m.get("role") == "tool":
                content = m.get("content")
                if isinstance(content, list):
                    content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
                out.append(str(content))
        return out


class _ToolCallHandler(_Handler):
    owner: ToolCallStub

    def _chat(self, rec: Recorded) -> None:
        stub = self.owner
        done = tool_results_in(rec)
        if done >= len(stub.calls) or not (rec.json or {}).get("tools"):
            super()._chat(rec)
            return
        name, arguments = stub.calls[done]
        model = (rec.json or {}).get("model") or stub.model
        call = {
            "index": 0,
            "id": f"call_stub_{done}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        if not rec.streaming:
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            self._send_json(
                200,
                {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                    "usage": usage,
                },
            )
            return

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": "chatcmpl-stub",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        def events() -> Iterator[tuple[str | None, Any]]:
            yield None, chunk({"role": "assistant", "content": None, "tool_calls": [call]}, None)
            last = chunk({}, "tool_calls")
            last["usage"] = usage
            yield None, last
            yield None, "[DONE]"

        self._send_sse(events())
