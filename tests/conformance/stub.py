"""A loopback OpenAI-compatible HTTP stub that records every request.

It answers, on 127.0.0.1 only:

- ``POST …/chat/completions`` (Chat Completions; ``"stream": true`` gives SSE chunks
  ending in ``data: [DONE]``),
- ``POST …/responses`` (Responses API; streaming gives the ``response.*`` SSE events
  Codex reads, otherwise one JSON object),
- ``GET …/models`` (a model list),
- anything else: 404 (still recorded).

Any path prefix is accepted (``/v1/chat/completions``, ``/chat/completions``,
``/openai/v1/responses`` …), so a harness can be pointed at ``stub.base_url``
(``http://127.0.0.1:PORT/v1``) whatever it appends.

Every request is recorded (method, path, headers, raw body, parsed JSON) before it
is answered. Use it as a context manager from pytest::

    with OpenAIStub(reply="ok") as stub:
        env["OPENAI_BASE_URL"] = stub.base_url
        ...run the harness...
        req = stub.wait_for(lambda r: r.kind == "chat", timeout=30)
        assert "my instructions" in req.text

Two more stubs share the recording and the API (``snapshot``, ``model_requests``,
``wait_for``, ``Recorded.system_texts``):

- ``AnthropicStub``: the Anthropic Messages API for Claude Code and claude-agent-acp
  (``ANTHROPIC_BASE_URL=stub.origin``): ``POST /v1/messages`` (SSE when
  ``"stream": true``), ``POST /v1/messages/count_tokens``, ``GET /v1/models``.
  Recorded kind ``"messages"``.
- ``GeminiStub``: the Gemini API for Gemini CLI (``GOOGLE_GEMINI_BASE_URL=stub.origin``):
  ``POST /v1beta/models/M:generateContent``, ``…:streamGenerateContent`` (SSE with
  ``?alt=sse``, else a JSON array), ``…:countTokens``, ``…:embedContent``,
  ``GET /v1beta/models``. Recorded kind ``"generate"``.

A reply may be scripted: ``reply`` is a string or a callable ``(Recorded) -> reply``,
where a reply is a string (one text part), a dict (one part/content block as the API
spells it: ``{"functionCall": …}`` for Gemini, ``{"type": "tool_use", …}`` for
Anthropic; for ``OpenAIStub`` ``{"call": NAME, "arguments": {…}}``, one function call:
Chat Completions ``tool_calls`` or a Responses ``function_call`` item), or a list of
those. ``Recorded.texts()`` gives every ``"text"`` string in
a request (system, messages, tool results) for ``in`` checks.

Nothing here needs a network beyond loopback; the server thread is a daemon and is
shut down on exit.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

ReplyPart = str | dict[str, Any]
ReplyValue = ReplyPart | list[ReplyPart]
Reply = ReplyValue | Callable[["Recorded"], ReplyValue]
MODEL_KINDS = ("chat", "responses", "messages", "generate")
Stub = TypeVar("Stub", bound="OpenAIStub")


@dataclass
class Recorded:
    """One request the stub received."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    json: Any = None
    kind: str = "other"  # chat | responses | messages | generate | count_tokens | models | other
    time: float = field(default_factory=time.time)

    @property
    def text(self) -> str:
        """The body as text (for `in` checks on instructions and prompts)."""
        return self.raw.decode("utf-8", "replace")

    @property
    def streaming(self) -> bool:
        return isinstance(self.json, dict) and bool(self.json.get("stream"))

    def system_texts(self) -> list[str]:
        """Every system/developer text the request carries, in order.

        Chat: ``messages[].role in (system, developer)``; Responses: ``instructions``
        and ``input[]`` items with role system/developer; Anthropic: ``system`` (a
        string or text blocks); Gemini: ``systemInstruction.parts[].text``.
        """
        out: list[str] = []
        body = self.json if isinstance(self.json, dict) else {}
        if isinstance(body.get("instructions"), str):
            out.append(body["instructions"])
        if self.kind == "messages" and "system" in body:
            out.extend(_content_texts(body["system"]))
        for key in ("systemInstruction", "system_instruction"):
            instruction = body.get(key)
            if isinstance(instruction, dict):
                out.extend(_content_texts(instruction.get("parts")))
            elif isinstance(instruction, str):
                out.append(instruction)
        items = body.get("messages") or body.get("input") or []
        if isinstance(items, list):
            for m in items:
                if isinstance(m, dict) and m.get("role") in ("system", "developer"):
                    out.extend(_content_texts(m.get("content")))
        return out

    def texts(self) -> list[str]:
        """Every string value of a ``"text"`` key anywhere in the JSON body, in order."""
        out: list[str] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                for key, value in node.items():
                    if key == "text" and isinstance(value, str):
                        out.append(value)
                    else:
                        walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)

        walk(self.json)
        return out


def _content_texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append(part["text"])
            elif isinstance(part, str):
                out.append(part)
    return out


class OpenAIStub:
    """Loopback OpenAI-compatible server in a thread; a context manager."""

    def __init__(
        self,
        reply: Reply = "stub reply",
        model: str = "stub-model",
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("the stub only listens on loopback")
        self.reply = reply
        self.model = model
        self._host = host
        self._port = port
        self.requests: list[Recorded] = []
        self._cond = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --

    def __enter__(self: Stub) -> Stub:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handler_base(self) -> type[_Handler]:
        return _Handler

    def start(self) -> None:
        stub = self

        class Handler(self._handler_base()):  # type: ignore[misc]
            owner = stub

        self._server = _Server((self._host, self._port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # -- addresses --

    @property
    def port(self) -> int:
        assert self._server is not None, "stub not started"
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: what OPENAI_BASE_URL / base_url take."""
        return f"{self.origin}/v1"

    # -- recorded requests --

    def _record(self, rec: Recorded) -> None:
        with self._cond:
            self.requests.append(rec)
            self._cond.notify_all()

    def snapshot(self) -> list[Recorded]:
        with self._cond:
            return list(self.requests)

    def model_requests(self) -> list[Recorded]:
        """Requests that asked a model for a completion (any API)."""
        return [r for r in self.snapshot() if r.kind in MODEL_KINDS]

    def wait_for(
        self, pred: Callable[[Recorded], bool] | None = None, timeout: float = 30.0
    ) -> Recorded:
        """The first recorded request matching `pred` (default: any model request).

        Raises TimeoutError after `timeout` seconds.
        """
        pred = pred or (lambda r: r.kind in MODEL_KINDS)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for r in self.requests:
                    if pred(r):
                        return r
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [f"{r.method} {r.path}" for r in self.requests]
                    raise TimeoutError(f"no matching request in {timeout}s; saw {seen}")
                self._cond.wait(timeout=min(left, 0.5))

    def reply_for(self, rec: Recorded) -> ReplyValue:
        return self.reply(rec) if callable(self.reply) else self.reply

    def tool_call(self, rec: Recorded) -> dict[str, Any] | None:
        """The reply when it is one function call, `{"call": NAME, "arguments": {...}}` (an
        `"id"` may name the call; else `call_stub<n>`, n the requests recorded so far)."""
        value = self.reply_for(rec)
        return value if isinstance(value, dict) and "call" in value else None

    def reply_text(self, rec: Recorded) -> str:
        """The reply as plain text (the OpenAI APIs here answer text only)."""
        value = self.reply_for(rec)
        parts = value if isinstance(value, list) else [value]
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in parts)


def opencode_provider(stub: OpenAIStub) -> dict[str, Any]:
    """The config that points OpenCode (and Kilo, built from it) at the stub as its model."""
    return {
        "model": "stub/stub-model",
        "small_model": "stub/stub-model",
        "provider": {
            "stub": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Stub",
                "options": {"baseURL": stub.base_url, "apiKey": "dummy"},
                "models": {"stub-model": {"name": "Stub Model"}},
            }
        },
    }


class _Server(ThreadingHTTPServer):
    """A harness that hangs up mid-request (its own timeout, its process ended) is no failure
    of the stub: nothing is printed for it; any other error is, as socketserver prints it."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionResetError | BrokenPipeError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    owner: OpenAIStub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- plumbing --

    def _read(self) -> Recorded:
        length = int(self.headers.get("Content-Length") or 0)
        raw = b""
        if length:
            raw = self.rfile.read(length)
        elif self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = self._read_chunked()
        body: Any = None
        enc = self.headers.get("Content-Encoding", "").lower()
        data = raw
        if enc in ("gzip", "zstd", "br", "deflate"):
            data = _decompress(raw, enc)
        if data:
            try:
                body = json.loads(data)
            except ValueError:
                body = None
        kind = self.classify(self.path.split("?", 1)[0].rstrip("/"))
        rec = Recorded(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=data,
            json=body,
            kind=kind,
        )
        self.owner._record(rec)
        return rec

    def classify(self, path: str) -> str:
        if path.endswith("/chat/completions"):
            return "chat"
        if path.endswith("/responses"):
            return "responses"
        if path.endswith("/models"):
            return "models"
        return "other"

    def _read_chunked(self) -> bytes:
        out = b""
        while True:
            line = self.rfile.readline(65537).strip()
            size = int(line.split(b";")[0] or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()

    def _send_json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_sse(self, events: Iterator[tuple[str | None, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            chunk = ""
            if name:
                chunk += f"event: {name}\n"
            chunk += f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
            self.wfile.write(chunk.encode())
            self.wfile.flush()
        self.close_connection = True

    # -- verbs --

    def do_GET(self) -> None:
        rec = self._read()
        if rec.kind == "models":
            m = self.owner.model
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [{"id": m, "object": "model", "created": 0, "owned_by": "stub"}],
                    "models": [{"slug": m, "display_name": m}],
                },
            )
        else:
            self._send_json(404, {"error": {"message": f"stub: no route {self.path}"}})

    def do_POST(self) -> None:
        rec = self._read()
        if rec.kind == "chat":
            self._chat(rec)
        elif rec.kind == "responses":
            self._responses(rec)
        else:
            self._send_json(404, {"error": {"message": f"stub: no route {self.path}"}})

    def do_HEAD(self) -> None:
        self._read()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    # -- chat completions --

    def _chat(self, rec: Recorded) -> None:
        call = self.owner.tool_call(rec)
        if call is not None:
            self._chat_call(rec, call)
            return
        text = self.owner.reply_text(rec)
        model = (rec.json or {}).get("model") or self.owner.model
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        if not rec.streaming:
            self._send_json(
                200,
                {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
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
            yield None, chunk({"role": "assistant", "content": ""}, None)
            yield None, chunk({"content": text}, None)
            last = chunk({}, "stop")
            last["usage"] = usage
            yield None, last
            yield None, "[DONE]"

        self._send_sse(events())

    def _chat_call(self, rec: Recorded, call: dict[str, Any]) -> None:
        """One function call as Chat Completions `tool_calls` (JSON or SSE)."""
        model = (rec.json or {}).get("model") or self.owner.model
        cid = call.get("id") or f"call_stub{len(self.owner.snapshot())}"
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        tool = {
            "id": cid,
            "type": "function",
            "function": {"name": call["call"], "arguments": json.dumps(call["arguments"])},
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

    def _responses_call(self, rec: Recorded, call: dict[str, Any]) -> None:
        """One function call as a Responses `function_call` item (JSON or SSE)."""
        model = (rec.json or {}).get("model") or self.owner.model
        n = len(self.owner.snapshot())
        item = {
            "type": "function_call",
            "id": f"fc_stub{n}",
            "call_id": call.get("id") or f"call_stub{n}",
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

    # -- responses --

    def _responses(self, rec: Recorded) -> None:
        call = self.owner.tool_call(rec)
        if call is not None:
            self._responses_call(rec, call)
            return
        text = self.owner.reply_text(rec)
        model = (rec.json or {}).get("model") or self.owner.model
        rid, mid = "resp_stub", "msg_stub"
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 2,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 12,
        }
        item_done = {
            "type": "message",
            "id": mid,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        base: dict[str, Any] = {
            "id": rid,
            "object": "response",
            "created_at": int(time.time()),
            "model": model,
            "output": [],
            "status": "in_progress",
        }
        if not rec.streaming:
            self._send_json(
                200,
                dict(base, status="completed", output=[item_done], usage=usage, output_text=text),
            )
            return

        def events() -> Iterator[tuple[str | None, Any]]:
            seq = iter(range(1_000_000))

            def ev(name: str, **kw: Any) -> tuple[str, Any]:
                return name, {"type": name, "sequence_number": next(seq), **kw}

            yield ev("response.created", response=base)
            yield ev("response.in_progress", response=base)
            yield ev(
                "response.output_item.added",
                output_index=0,
                item={
                    "type": "message",
                    "id": mid,
                    "role": "assistant",
                    "status": "in_progress",
                    "content": [],
                },
            )
            yield ev(
                "response.content_part.added",
                item_id=mid,
                output_index=0,
                content_index=0,
                part={"type": "output_text", "text": "", "annotations": []},
            )
            yield ev(
                "response.output_text.delta",
                item_id=mid,
                output_index=0,
                content_index=0,
                delta=text,
            )
            yield ev(
                "response.output_text.done",
                item_id=mid,
                output_index=0,
                content_index=0,
                text=text,
            )
            yield ev(
                "response.content_part.done",
                item_id=mid,
                output_index=0,
                content_index=0,
                part={"type": "output_text", "text": text, "annotations": []},
            )
            yield ev("response.output_item.done", output_index=0, item=item_done)
            yield ev(
                "response.completed",
                response=dict(base, status="completed", output=[item_done], usage=usage),
            )

        self._send_sse(events())


# -- Anthropic Messages API (Claude Code, claude-agent-acp) ----------------------------------


def _parts(value: ReplyValue) -> list[ReplyPart]:
    return list(value) if isinstance(value, list) else [value]


class AnthropicStub(OpenAIStub):
    """Loopback Anthropic Messages API: ``ANTHROPIC_BASE_URL=stub.base_url`` (no ``/v1``).

    A reply part that is a dict is an Anthropic content block, e.g.
    ``{"type": "tool_use", "name": "Agent", "input": {...}}`` (``id`` is filled in); a
    reply holding a ``tool_use`` block ends with ``stop_reason: tool_use``.
    """

    def __init__(
        self, reply: Reply = "stub reply", model: str = "claude-sonnet-4-5", **kw: Any
    ) -> None:
        super().__init__(reply=reply, model=model, **kw)

    def _handler_base(self) -> type[_Handler]:
        return _AnthropicHandler

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: what ANTHROPIC_BASE_URL takes (the client adds /v1)."""
        return self.origin


class _AnthropicHandler(_Handler):
    def classify(self, path: str) -> str:
        if path.endswith("/messages/count_tokens"):
            return "count_tokens"
        if path.endswith("/messages"):
            return "messages"
        if path.endswith("/models"):
            return "models"
        return "other"

    def _error(self, status: int, kind: str) -> None:
        message = f"stub: no route {self.command} {self.path}"
        self._send_json(status, {"type": "error", "error": {"type": kind, "message": message}})

    def do_GET(self) -> None:
        rec = self._read()
        if rec.kind != "models":
            self._error(404, "not_found_error")
            return
        m = self.owner.model
        model = {"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
        self._send_json(200, {"data": [model], "has_more": False, "first_id": m, "last_id": m})

    def do_POST(self) -> None:
        rec = self._read()
        if rec.kind == "messages":
            self._messages(rec)
        elif rec.kind == "count_tokens":
            self._send_json(200, {"input_tokens": 10})
        else:
            self._error(404, "not_found_error")

    def _messages(self, rec: Recorded) -> None:
        blocks: list[dict[str, Any]] = []
        for n, part in enumerate(_parts(self.owner.reply_for(rec))):
            if isinstance(part, str):
                blocks.append({"type": "text", "text": part})
            else:
                block = dict(part)
                if block.get("type") == "tool_use":
                    block.setdefault("id", f"toolu_stub{len(self.owner.snapshot())}_{n}")
                    block.setdefault("input", {})
                blocks.append(block)
        tool = any(b.get("type") == "tool_use" for b in blocks)
        stop = "tool_use" if tool else "end_turn"
        model = (rec.json or {}).get("model") or self.owner.model
        usage = {"input_tokens": 10, "output_tokens": 2,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}  # fmt: skip
        message: dict[str, Any] = {
            "id": f"msg_stub{len(self.owner.snapshot())}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }
        if not rec.streaming:
            self._send_json(200, message)
            return

        def events() -> Iterator[tuple[str | None, Any]]:
            start = dict(message, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
            yield "message_start", {"type": "message_start", "message": start}
            for i, block in enumerate(blocks):
                if block.get("type") == "text":
                    opening: dict[str, Any] = {"type": "text", "text": ""}
                    delta = {"type": "text_delta", "text": block["text"]}
                elif block.get("type") == "tool_use":
                    opening = dict(block, input={})
                    delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
                else:
                    opening, delta = block, None
                yield "content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": opening}  # fmt: skip
                if delta is not None:
                    yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                                  "delta": delta}  # fmt: skip
                yield "content_block_stop", {"type": "content_block_stop", "index": i}
            yield "message_delta", {"type": "message_delta",
                                    "delta": {"stop_reason": stop, "stop_sequence": None},
                                    "usage": {"output_tokens": 2}}  # fmt: skip
            yield "message_stop", {"type": "message_stop"}

        self._send_sse(events())


# -- Gemini API (Gemini CLI with an API key) -------------------------------------------------


class GeminiStub(OpenAIStub):
    """Loopback Gemini API: ``GOOGLE_GEMINI_BASE_URL=stub.base_url`` (no ``/v1beta``).

    A reply part that is a dict is a Gemini part, e.g. ``{"functionCall": {"name": …,
    "args": {…}}}``.
    """

    def __init__(
        self, reply: Reply = "stub reply", model: str = "gemini-2.5-pro", **kw: Any
    ) -> None:
        super().__init__(reply=reply, model=model, **kw)

    def _handler_base(self) -> type[_Handler]:
        return _GeminiHandler

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: what GOOGLE_GEMINI_BASE_URL takes."""
        return self.origin


def gemini_model(rec: Recorded) -> str:
    """The model a Gemini request names in its path (``…/models/<model>:verb``)."""
    path = rec.path.split("?", 1)[0]
    return path.rsplit("/models/", 1)[-1].split(":", 1)[0] if "/models/" in path else ""


class _GeminiHandler(_Handler):
    def classify(self, path: str) -> str:
        if path.endswith((":generateContent", ":streamGenerateContent")):
            return "generate"
        if path.endswith(":countTokens"):
            return "count_tokens"
        if path.endswith((":embedContent", ":batchEmbedContents")):
            return "embed"
        if path.endswith("/models"):
            return "models"
        return "other"

    def _error(self, status: int) -> None:
        message = f"stub: no route {self.command} {self.path}"
        self._send_json(
            status, {"error": {"code": status, "message": message, "status": "NOT_FOUND"}}
        )

    def do_GET(self) -> None:
        rec = self._read()
        if rec.kind != "models":
            self._error(404)
            return
        m = self.owner.model
        self._send_json(200, {"models": [{"name": f"models/{m}", "displayName": m,
                                          "supportedGenerationMethods": ["generateContent"]}]})  # fmt: skip

    def do_POST(self) -> None:
        rec = self._read()
        path = self.path.split("?", 1)[0]
        if rec.kind == "generate":
            self._generate(rec, stream=path.endswith(":streamGenerateContent"))
        elif rec.kind == "count_tokens":
            self._send_json(200, {"totalTokens": 10})
        elif rec.kind == "embed":
            vector = {"values": [0.0] * 8}
            body = rec.json if isinstance(rec.json, dict) else {}
            if path.endswith(":batchEmbedContents"):
                self._send_json(200, {"embeddings": [vector for _ in body.get("requests") or [0]]})
            else:
                self._send_json(200, {"embedding": vector})
        else:
            self._error(404)

    def _generate(self, rec: Recorded, stream: bool) -> None:
        parts = [
            {"text": p} if isinstance(p, str) else dict(p)
            for p in _parts(self.owner.reply_for(rec))
        ]
        response = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 2,
                "totalTokenCount": 12,
            },
            "modelVersion": gemini_model(rec) or self.owner.model,
            "responseId": f"stub{len(self.owner.snapshot())}",
        }
        if not stream:
            self._send_json(200, response)
        elif "alt=sse" in self.path:
            self._send_sse(iter([(None, response)]))
        else:
            self._send_json(200, [response])


def _decompress(raw: bytes, enc: str) -> bytes:
    try:
        if enc == "gzip":
            import gzip

            return gzip.decompress(raw)
        if enc == "deflate":
            import zlib

            return zlib.decompress(raw)
        if enc == "zstd":
            try:
                import zstandard  # type: ignore[import-not-found]
            except ImportError:
                return raw
            return bytes(zstandard.ZstdDecompressor().decompress(raw, max_output_size=1 << 26))
    except Exception:
        return raw
    return raw


if __name__ == "__main__":  # manual use: python stub.py [PORT]; prints each request
    import sys

    with OpenAIStub(port=int(sys.argv[1]) if len(sys.argv) > 1 else 0) as s:
        print(f"stub on {s.base_url}", flush=True)
        seen = 0
        try:
            while True:
                time.sleep(0.5)
                reqs = s.snapshot()
                for r in reqs[seen:]:
                    print(f"{r.method} {r.path} {len(r.raw)} bytes", flush=True)
                seen = len(reqs)
        except KeyboardInterrupt:
            pass


# -- a stdio MCP server (a script the harness starts) -----------------------------------------

_MCP_SERVER = """import json, os, sys
__RECORD__for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": message.get("params", {}).get("protocolVersion", "2024-11-05"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "recorder", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": __TOOLS__}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""
_PING = '[{"name": "ping", "description": "ping", "inputSchema": {"type": "object", "properties": {}}}]'  # fmt: skip


def mcp_server(record: str = "", ping: bool = False) -> str:
    """The source of a stdio MCP server that runs `record` (Python lines, recording that it
    was started) and then answers `initialize` and `tools/list` (no tool, or one, `ping`:
    a harness's startup may wait for both) until stdin closes."""
    return _MCP_SERVER.replace("__RECORD__", record).replace("__TOOLS__", _PING if ping else "[]")


def mcp_log_recorder(log: str, cwd: bool = False) -> str:
    """An MCP server that appends its first argument (then ` <its cwd>` if `cwd`) as a line
    to the file `log` beside the script."""
    line = 'sys.argv[1] + " " + os.getcwd() + "\\n"' if cwd else 'sys.argv[1] + "\\n"'
    return mcp_server(
        f'with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "{log}"), "a") as log:\n'
        f"    log.write({line})\n",
        ping=cwd,
    )


# an MCP server that only answers; one that writes `started` to the file its first argument
# names (a flag: the file exists once the harness started it)
MCP_STUB = mcp_server()
MCP_FLAG_RECORDER = mcp_server(
    'with open(sys.argv[1], "a") as f:\n    f.write("started\\n")\n', ping=True
)
