"""A loopback stub of Augment's own API, for Auggie (which talks to no other model API),
recording every request as `stub.OpenAIStub` does.

Auggie is pointed at it by its session: ``AUGMENT_SESSION_AUTH`` = `stub.session`, whose
``tenantURL`` is this server. It answers, on 127.0.0.1 only:

- ``POST /get-models``: one model, and the feature flags that turn Auggie's subagents on
  (``beachhead_enable_sub_agent_tool``) and its plugin loader (``enable_plugin_marketplace``);
- ``POST /chat-stream``: the reply as NDJSON lines (``{"text": …}``, then a stop reason). A
  reply ``{"call": NAME, "arguments": {…}}`` is one tool call (a ``tool_use`` node);
- anything else (settings, remote tools, error reports): ``{}``, recorded.

A chat-stream request (kind ``"chat-stream"``) holds what Auggie loaded: ``skills[]`` (name,
description, location), ``tool_definitions[]`` (its tools, each subagent as
``sub-agent-<name>``, each MCP tool), and in a subagent's own request (one with a
``parent_conversation_id``) the agent's body at the end of ``user_guidelines``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.conformance.stub import OpenAIStub, Recorded, _Handler, _parts

MODEL = "stub-model"
FLAGS = {"enable_plugin_marketplace": True, "beachhead_enable_sub_agent_tool": True}
END_TURN, TOOL_USE = 1, 3  # Augment's stop reasons
TOOL_USE_NODE = 5


class AugmentStub(OpenAIStub):
    """Loopback Augment API: ``AUGMENT_SESSION_AUTH=stub.session``."""

    def _handler_base(self) -> type[_Handler]:
        return _AugmentHandler

    @property
    def session(self) -> str:
        """The session JSON Auggie reads from AUGMENT_SESSION_AUTH, naming this server."""
        return json.dumps(
            {"accessToken": "stub", "tenantURL": f"{self.origin}/", "scopes": ["email"]}
        )

    def chats(self) -> list[Recorded]:
        return [r for r in self.snapshot() if r.kind == "chat-stream"]


def tools_of(request: Recorded) -> dict[str, dict[str, Any]]:
    """The tools a chat-stream request offers, by name."""
    return {t["name"]: t for t in request.json.get("tool_definitions", [])}


def skills_of(request: Recorded) -> dict[str, dict[str, Any]]:
    """The skills a chat-stream request lists, by name."""
    return {s["name"]: s for s in request.json.get("skills", [])}


def is_subagent(request: Recorded) -> bool:
    return "parent_conversation_id" in request.json


class _AugmentHandler(_Handler):
    def classify(self, path: str) -> str:
        return path.strip("/") or "other"

    def do_POST(self) -> None:
        rec = self._read()
        if rec.kind == "get-models":
            model = {"name": MODEL, "suggested_prefix_char_count": 0}
            model["suggested_suffix_char_count"] = 0
            answer = {"default_model": MODEL, "models": [model], "languages": []}
            self._send_json(200, dict(answer, feature_flags=FLAGS))
        elif rec.kind == "chat-stream":
            self._chat_stream(rec)
        else:
            self._send_json(200, {})

    do_GET = do_POST

    def _chat_stream(self, rec: Recorded) -> None:
        lines: list[dict[str, Any]] = []
        stop = END_TURN
        for n, part in enumerate(_parts(self.owner.reply_for(rec))):
            if isinstance(part, str):
                lines.append({"text": part})
                continue
            use = {"tool_use_id": f"stub{len(self.owner.snapshot())}_{n}"}
            use.update(tool_name=part["call"], input_json=json.dumps(part.get("arguments", {})))
            node = {"id": n + 1, "type": TOOL_USE_NODE, "content": "", "tool_use": use}
            lines.append({"text": "", "nodes": [node]})
            stop = TOOL_USE
        lines.append({"text": "", "stop_reason": stop})
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
