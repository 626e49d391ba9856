"""Helpers for the hook tests (`test_hooks_<harness>.py`): a recorder hook command and an
OpenAI-compatible stub whose scripted reply is a tool call.

The recorder is a small Python script written into the test's tmp (outside any repository).
Configured as a hook command `python3 <rec> <label> [<exit code> [<stdout file>]]`, it
appends one JSON line to `$HOOK_LOG` (set by the test in the harness's environment, so the
hook inherits it): its label, argv, cwd, stdin (parsed when JSON), and the environment
variables whose names say hook, plugin, project, session or a harness. Then it prints the
stdout file's content (a JSON answer) if one is named, and exits with the exit code (stderr
says `blocked by recorder` when the code is not 0).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conformance.stub import OpenAIStub, Recorded, _Handler

RECORDER = r"""
import json, os, sys
raw = sys.stdin.read()
try:
    data = json.loads(raw) if raw.strip() else None
except ValueError:
    data = raw
words = ("HOOK", "PLUGIN", "PROJECT", "SESSION", "CLAUDE", "GEMINI", "CODEX", "COPILOT")
env = {k: v for k, v in os.environ.items() if any(w in k.upper() for w in words)}
line = {"label": sys.argv[1], "argv": sys.argv, "cwd": os.getcwd(), "stdin": data, "env": env}
with open(os.environ["HOOK_LOG"], "a") as f:
    f.write(json.dumps(line) + "\n")
if len(sys.argv) > 3:
    sys.stdout.write(open(sys.argv[3]).read())
code = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if code:
    sys.stderr.write("blocked by recorder\n")
sys.exit(code)
"""


def recorder(root: Path) -> Path:
    path = root / "rec.py"
    path.write_text(RECORDER)
    return path


def command(rec: Path, label: str, code: int = 0, answer: Path | None = None) -> str:
    """The hook command line for the recorder."""
    line = f"python3 {rec} {label} {code}"
    return f"{line} {answer}" if answer else line


def entries(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(x) for x in log.read_text().splitlines() if x.strip()]


def labels(log: Path) -> list[str]:
    return [e["label"] for e in entries(log)]


def first(log: Path, label: str) -> dict[str, Any]:
    found = [e for e in entries(log) if e["label"] == label]
    assert found, f"no {label} hook fired; log: {labels(log)}"
    return found[0]


def wait_for_label(log: Path, label: str, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if label in labels(log):
            return True
        time.sleep(0.1)
    return False


# -- an OpenAI-compatible stub that can answer with a function call ---------------------------


class ToolCallStub(OpenAIStub):
    """Like `OpenAIStub`, but a reply that is a dict `{"call": NAME, "arguments": {...}}`
    is answered as one function call: Chat Completions `tool_calls` or a Responses
    `function_call` item (streamed or not). Anything else is answered as `OpenAIStub` does."""

    def _handler_base(self) -> type[_Handler]:
        return _ToolCallHandler


def _call(stub: OpenAIStub, rec: Recorded) -> dict[str, Any] | None:
    value = stub.reply_for(rec)
    if isinstance(value, dict) and "call" in value:
        return value
    return None


class _ToolCallHandler(_Handler):
    def _chat(self, rec: Recorded) -> None:
        call = _call(self.owner, rec)
        if call is None:
            super()._chat(rec)
            return
        model = (rec.json or {}).get("model") or self.owner.model
        cid = f"call_stub{len(self.owner.snapshot())}"
        args = json.dumps(call["arguments"])
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        tool = {
            "id": cid,
            "type": "function",
            "function": {"name": call["call"], "arguments": args},
        }
        base = {"id": "chatcmpl-stub", "created": int(time.time()), "model": model}
        if not rec.streaming:
            message = {"role": "assistant", "content": None, "tool_calls": [tool]}
            choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
            self._send_json(
                200, dict(base, object="chat.completion", choices=[choice], usage=usage)
            )
            return

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return dict(base, object="chat.completion.chunk", choices=[choice])

        def events() -> Iterator[tuple[str | None, Any]]:
            yield None, chunk({"role": "assistant", "content": None}, None)
            yield None, chunk({"tool_calls": [dict(tool, index=0)]}, None)
            last = chunk({}, "tool_calls")
            last["usage"] = usage
            yield None, last
            yield None, "[DONE]"

        self._send_sse(events())

    def _responses(self, rec: Recorded) -> None:
        call = _call(self.owner, rec)
        if call is None:
            super()._responses(rec)
            return
        model = (rec.json or {}).get("model") or self.owner.model
        n = len(self.owner.snapshot())
        item = {
            "type": "function_call",
            "id": f"fc_stub{n}",
            "call_id": f"call_stub{n}",
            "name": call["call"],
            "arguments": json.dumps(call["arguments"]),
            "status": "completed",
        }
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 2,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 12,
        }
        base: dict[str, Any] = {
            "id": f"resp_stub{n}",
            "object": "response",
            "created_at": int(time.time()),
            "model": model,
            "output": [],
            "status": "in_progress",
        }
        done = dict(base, status="completed", output=[item], usage=usage)
        if not rec.streaming:
            self._send_json(200, done)
            return

        def events() -> Iterator[tuple[str | None, Any]]:
            seq = iter(range(1_000_000))

            def ev(name: str, **kw: Any) -> tuple[str, Any]:
                return name, {"type": name, "sequence_number": next(seq), **kw}

            yield ev("response.created", response=base)
            yield ev("response.output_item.added", output_index=0, item=item)
            yield ev("response.output_item.done", output_index=0, item=item)
            yield ev("response.completed", response=done)

        self._send_sse(events())
