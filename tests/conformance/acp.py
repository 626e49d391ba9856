"""A tiny ACP (Agent Client Protocol) client: JSON-RPC 2.0 over stdio, one JSON per line.

Written for the conformance tests: it never hangs. Every wait is bounded, the agent
runs in its own process group, and ``close()`` (or leaving the ``with`` block) ends
that whole group: stdin closed, then SIGTERM, then SIGKILL.

    with AcpClient(["codex-acp"], env=env, cwd=home) as acp:
        acp.initialize()
        sid = acp.new_session(cwd=str(home))["sessionId"]
        result = acp.prompt(sid, "hi", timeout=60)
        print(acp.agent_text(sid))          # streamed agent_message_chunk text

Requests the agent sends to the client are answered by ``handle_agent_request``:
permission requests are rejected (cancelled), fs/terminal methods answer
"method not found", so a run can never wait on a human.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = 1


class AcpError(Exception):
    """The agent answered a request with a JSON-RPC error."""

    def __init__(self, method: str, error: Mapping[str, Any]) -> None:
        self.method = method
        self.error = dict(error)
        self.code = error.get("code")
        self.message = str(error.get("message", ""))
        self.data = error.get("data")
        super().__init__(f"{method}: error {self.code}: {self.message} {self.data or ''}".strip())


class AcpTimeout(Exception):
    """No answer in time (or the agent exited); carries the agent's stderr tail."""


class AcpClient:
    def __init__(
        self,
        argv: Sequence[str | os.PathLike[str]],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        default_timeout: float = 60.0,
        stderr_path: str | os.PathLike[str] | None = None,
        on_agent_request: Callable[[str, Any], Any] | None = None,
    ) -> None:
        self.argv = [os.fspath(a) for a in argv]
        self.default_timeout = default_timeout
        self._next_id = 0
        self._lock = threading.Lock()
        self._responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.notifications: list[dict[str, Any]] = []  # every message without an id
        self.agent_requests: list[dict[str, Any]] = []  # requests the agent sent us
        self.transcript: list[tuple[str, dict[str, Any]]] = []  # ("->"|"<-", message)
        self._note_cond = threading.Condition()
        self._on_agent_request = on_agent_request
        self._own_stderr = stderr_path is None  # a temp file of ours: removed by close()
        self._stderr_final: str | None = None
        if stderr_path is None:
            fd, name = tempfile.mkstemp(prefix="acp-stderr-", suffix=".log")
            os.close(fd)
            stderr_path = name
        self.stderr_path = Path(stderr_path)
        self._stderr_file = open(self.stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr_file,
            env=dict(env) if env is not None else None,
            cwd=os.fspath(cwd) if cwd is not None else None,
            start_new_session=True,  # own process group: close() kills grandchildren too
        )
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self._closed = False

    # -- context manager --

    def __enter__(self) -> AcpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- wire --

    def _send(self, msg: dict[str, Any]) -> None:
        line = json.dumps(msg, separators=(",", ":")) + "\n"
        self.transcript.append(("->", msg))
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as e:
            raise AcpTimeout(f"agent stdin closed ({e}); {self._exit_note()}") from e

    def _read_loop(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                self.transcript.append(("<-", {"_unparsed": line}))
                continue
            if not isinstance(msg, dict):
                continue
            self.transcript.append(("<-", msg))
            if "method" in msg and "id" in msg:
                self._answer_agent_request(msg)
            elif "method" in msg:
                with self._note_cond:
                    self.notifications.append(msg)
                    self._note_cond.notify_all()
            elif "id" in msg:
                with self._lock:
                    q = self._responses.get(msg["id"])
                if q is not None:
                    q.put(msg)
        with self._note_cond:  # wake waiters: the agent is gone
            self._note_cond.notify_all()

    def _answer_agent_request(self, msg: dict[str, Any]) -> None:
        self.agent_requests.append(msg)
        method, params = msg["method"], msg.get("params")
        try:
            if self._on_agent_request is not None:
                result = self._on_agent_request(method, params)
            else:
                result = self.handle_agent_request(method, params)
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
        except AcpError as e:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "error": e.error}
        with contextlib.suppress(AcpTimeout):
            self._send(reply)

    def handle_agent_request(self, method: str, params: Any) -> Any:
        """Default answers: never wait on a human, never touch the file system."""
        if method == "session/request_permission":
            opts = (params or {}).get("options") or []
            for o in opts:
                if o.get("kind") in ("reject_once", "reject_always"):
                    return {"outcome": {"outcome": "selected", "optionId": o["optionId"]}}
            return {"outcome": {"outcome": "cancelled"}}
        raise AcpError(method, {"code": -32601, "message": f"client does not support {method}"})

    # -- requests --

    def request(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """Send a request; return its result, raise AcpError on an error answer,
        AcpTimeout when no answer comes in `timeout` seconds or the agent exits."""
        timeout = self.default_timeout if timeout is None else timeout
        with self._lock:
            self._next_id += 1
            rid = self._next_id
            q: queue.Queue[dict[str, Any]] = queue.Queue()
            self._responses[rid] = q
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AcpTimeout(f"{method}: no answer in {timeout:.0f}s; {self._exit_note()}")
                try:
                    resp = q.get(timeout=min(left, 0.25))
                except queue.Empty:
                    if self.proc.poll() is not None and not self._reader.is_alive():
                        raise AcpTimeout(f"{method}: agent exited; {self._exit_note()}") from None
                    continue
                if "error" in resp:
                    raise AcpError(method, resp["error"])
                return resp.get("result")
        finally:
            with self._lock:
                self._responses.pop(rid, None)

    def notify(self, method: str, params: Any = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)

    # -- ACP verbs --

    def initialize(self, timeout: float | None = None, **client_caps: Any) -> Any:
        caps = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
        caps.update(client_caps)
        return self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "clientCapabilities": caps,
                "clientInfo": {"name": "skilltool-conformance", "version": "0"},
            },
            timeout,
        )

    def new_session(
        self,
        cwd: str | os.PathLike[str],
        mcp_servers: list[Any] | None = None,
        timeout: float | None = None,
        **extra: Any,
    ) -> Any:
        params = {"cwd": os.fspath(cwd), "mcpServers": mcp_servers or [], **extra}
        return self.request("session/new", params, timeout)

    def prompt(self, session_id: str, text: str, timeout: float | None = None) -> Any:
        return self.request(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
            timeout,
        )

    def cancel(self, session_id: str) -> None:
        with contextlib.suppress(AcpTimeout):
            self.notify("session/cancel", {"sessionId": session_id})

    # -- notifications --

    def updates(self, session_id: str | None = None) -> list[dict[str, Any]]:
        """`session/update` payloads (params.update), optionally for one session."""
        with self._note_cond:
            notes = list(self.notifications)
        out = []
        for n in notes:
            if n.get("method") != "session/update":
                continue
            p = n.get("params") or {}
            if session_id is None or p.get("sessionId") == session_id:
                out.append(p.get("update") or {})
        return out

    def agent_text(self, session_id: str | None = None) -> str:
        """Concatenated text of every agent_message_chunk so far."""
        parts = []
        for u in self.updates(session_id):
            if u.get("sessionUpdate") == "agent_message_chunk":
                c = u.get("content") or {}
                if c.get("type") == "text":
                    parts.append(c.get("text", ""))
        return "".join(parts)

    def wait_notification(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 30.0
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._note_cond:
            while True:
                for n in self.notifications:
                    if pred(n):
                        return n
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AcpTimeout(f"no matching notification in {timeout}s")
                if self.proc.poll() is not None and not self._reader.is_alive():
                    raise AcpTimeout(f"agent exited; {self._exit_note()}")
                self._note_cond.wait(timeout=min(left, 0.25))

    # -- teardown --

    def stderr_text(self) -> str:
        """The agent's stderr so far (kept after close())."""
        if self._stderr_final is not None:
            return self._stderr_final
        try:
            self._stderr_file.flush()
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def _exit_note(self) -> str:
        rc = self.proc.poll()
        tail = "\n".join(self.stderr_text().strip().splitlines()[-15:])
        state = "running" if rc is None else f"exit {rc}"
        return f"agent {state}; stderr tail:\n{tail}"

    def close(self, grace: float = 3.0) -> int | None:
        """End the agent and its whole process group; bounded, idempotent."""
        if self._closed:
            return self.proc.returncode
        self._closed = True
        with contextlib.suppress(OSError, ValueError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=grace)
        # The group may outlive its leader (codex app-server, pi under pi-acp): signal the
        # group whether or not the leader already left.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=grace)
        time.sleep(0.2)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=grace)
        self._reader.join(timeout=grace)
        self._stderr_final = self.stderr_text()
        with contextlib.suppress(OSError):
            self._stderr_file.close()
        if self._own_stderr:
            with contextlib.suppress(OSError):
                self.stderr_path.unlink()
        if self.proc.stdout is not None:
            with contextlib.suppress(OSError):
                self.proc.stdout.close()
        return self.proc.returncode
