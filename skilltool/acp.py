"""`skilltool acp AGENT --harness H`: a harness started as a plugin's agent over ACP from one
plain command line, which is all an ACP host runs (an argv, no environment of its own).

- Where the environment is enough (OpenCode, Kilo, Codex's adapter, pi's adapter, Mistral
  Vibe, Hermes), skilltool sets it up and replaces itself with the harness's ACP server
  (`os.execvpe`): nothing of skilltool stays between the host and the agent.
- Gemini CLI and Qwen Code have no agent option over ACP: the agent's body, written into
  skilltool's own cache, replaces their system prompt (`GEMINI_SYSTEM_MD`, `QWEN_SYSTEM_MD`).
- Where the agent is chosen inside the session (Claude Code's adapter, Copilot CLI), a relay
  passes every message through as it is, and after each session the host opens or loads,
  chooses the agent with `session/set_config_option` before the host sees that session.
- Before any of these, a failure is one line on stderr and exit 1. Nothing is written to
  stdout but the agent's own.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilltool.errors import SkilltoolError

if TYPE_CHECKING:
    from skilltool.commands.common import Options

# the requests that open a session, whose answer the agent is chosen in before the host has it
OPENING = frozenset({"session/new", "session/load", "session/resume"})
MARKS = tuple(f'"{method}"'.encode() for method in sorted(OPENING))
CHUNK = 1 << 16


def run(agent_name: str, harness_name: str, extra: Sequence[str], opts: Options) -> int:
    """`skilltool acp`: as `start`, a failure one line on stderr (stdout is the agent's
    alone, as an ACP host reads it); the exit code."""
    try:
        return start(agent_name, harness_name, extra, opts)
    except SkilltoolError as err:
        print(f"skilltool acp: {err.message}", file=sys.stderr, flush=True)
        return err.exit_code


def start(agent_name: str, harness_name: str, extra: Sequence[str], opts: Options) -> int:
    """Set up the harness for the agent and hand over to its ACP server: by exec, which does
    not return, or through the relay, whose exit code (the agent's) is returned."""
    from skilltool import discover, plan
    from skilltool.commands.render import _agent_for, launch_of

    warnings: list[str] = []
    catalogue, caches = discover.found(opts.where, warnings)
    agent, harness = _agent_for(agent_name, harness_name, opts, warnings, catalogue)
    how = launch_of(agent, harness)
    only = f"skilltool plugins install --only {harness.name}"
    # read back from disk when it is there as it would be made now: nothing rendered anew
    renderings, current = caches.renders.made(harness.name, harness.places(), agent, harness.render)
    for rendering in [] if current else renderings:
        state, _, _ = plan.file_state(rendering.target, rendering.content, rendering.placeholders)
        if state in ("missing", "stale"):
            shown = harness.home.show(rendering.target)
            raise SkilltoolError(f"{shown} is not rendered for {harness.title}: run '{only}'")
    caches.save()
    binary = how.command[0]
    if shutil.which(binary) is None:
        raise SkilltoolError(f"{binary} is not on PATH: {harness.title} is not installed here")
    env = dict(os.environ)
    for name, value in how.env.items():
        env[name] = _merged(os.environ.get(name), _value(value, opts))
    if how.prompt is not None:
        variable, text = how.prompt
        env[variable] = str(_prompt_file(opts, harness.name, agent.name, text))
    argv = [*how.command, *extra]
    if not how.choose:
        sys.stdout.flush()
        os.execvpe(binary, argv, env)
    return relay(argv, env, agent.name)


def _value(value: str, opts: Options) -> str:
    """A Launch variable's value: `{file:PATH}` is the file's content (Codex's session)."""
    if not (value.startswith("{file:") and value.endswith("}")):
        return value
    path = opts.where.expand(value[len("{file:") : -1])
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise SkilltoolError(f"{path}: cannot read it ({err.strerror}): run install") from None


def _prompt_file(opts: Options, harness: str, agent: str, text: str) -> Path:
    """The agent's system prompt in skilltool's own cache, written (atomically) only when it
    is not already there as it is now."""
    from skilltool.fs import replace_regular

    path = opts.where.cache_dir / "acp" / harness / f"{agent}.md"
    data = text.encode("utf-8")
    with contextlib.suppress(OSError):
        if path.read_bytes() == data:
            return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_regular(path, data, 0o644)
    except OSError as err:
        raise SkilltoolError(f"{path}: cannot write the agent's prompt ({err.strerror})") from None
    return path


def _merged(theirs: str | None, ours: str) -> str:
    """A variable the harness reads as a JSON object of settings (OpenCode's and Kilo's config
    content, Codex's session) that the host set too: the host's, with skilltool's over it."""
    if not theirs:
        return ours
    try:
        host, mine = json.loads(theirs), json.loads(ours)
    except ValueError:
        return ours
    if not (isinstance(host, dict) and isinstance(mine, dict)):
        return ours
    return json.dumps(_deep(host, mine), separators=(",", ":"), ensure_ascii=False)


def _deep(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        if isinstance(below, dict) and isinstance(value, Mapping):
            merged[key] = _deep(below, value)
        else:
            merged[key] = value
    return merged


def relay(argv: Sequence[str], env: Mapping[str, str], agent: str) -> int:
    """Run the ACP server `argv` between this process's stdin and stdout, choosing `agent`
    in each session opened; return its exit code (128 + the signal that ended it)."""
    try:
        child = subprocess.Popen(
            list(argv), env=dict(env), stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
    except OSError as err:
        raise SkilltoolError(f"{argv[0]}: could not start ({err.strerror or err})") from None
    assert child.stdin is not None and child.stdout is not None
    session = _Relay(agent, child.stdin.fileno(), 1)
    forwarded = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for number in forwarded:
        signal.signal(number, lambda sig, _: child.send_signal(sig))
    up = threading.Thread(target=session.host_to_agent, args=(0, child.stdin), daemon=True)
    up.start()
    session.agent_to_host(child.stdout.fileno())  # until the agent closes its stdout
    code = child.wait()
    return 128 - code if code < 0 else code


class _Relay:
    """The two directions of the relay; what it holds of a session until the agent is chosen."""

    def __init__(self, agent: str, to_agent: int, to_host: int) -> None:
        self.agent = agent
        self.to_agent = to_agent
        self.to_host = to_host
        self.lock = threading.Lock()  # the agent's stdin is written from both directions
        self.opening: dict[Any, Any] = {}  # a host request opening a session -> its sessionId
        self.choosing: dict[str, dict[str, Any]] = {}  # our request's id -> the held answer
        self.held: list[bytes] = []  # what the agent said after an answer held, in order
        self.count = 0
        self.host_lock = threading.Lock()  # the host's stdin is written from both directions

    def host_to_agent(self, source: int, sink: Any) -> None:
        for line in _lines(source):
            if any(method in line for method in MARKS):  # else not even parsed
                message = _parsed(line)
                if message is not None and message.get("method") in OPENING:
                    if not _valid_id(message.get("id")):  # JSON-RPC: a string or a number
                        self._to_host(_invalid(message.get("id")))
                        continue
                    params = message.get("params")
                    sid = params.get("sessionId") if isinstance(params, dict) else None
                    self.opening[message.get("id")] = sid
            self._to_agent(line)
        with contextlib.suppress(OSError):
            sink.close()  # the host is done: the agent sees its stdin end

    def agent_to_host(self, source: int) -> None:
        for line in _lines(source):
            message = _parsed(line) if (self.opening or self.choosing) else None
            if message is not None and "method" not in message and _valid_id(message.get("id")):
                if message.get("id") in self.choosing:
                    self._chosen(message)
                    continue
                if message.get("id") in self.opening and "result" in message:
                    self._choose(message)
                    continue
            if self.choosing:
                self.held.append(line)
            else:
                self._to_host(line)
        # the agent ended before it answered a choice: the host's request still gets its
        # answer, an error, and what the agent said meanwhile follows it
        for answer in self.choosing.values():
            said = f"skilltool acp: the agent ended before {self.agent!r} could be chosen"
            error = {"code": -32603, "message": said}
            self._to_host(_dumped({"jsonrpc": "2.0", "id": answer.get("id"), "error": error}))
        self.choosing.clear()
        for line in self.held:
            self._to_host(line)

    def _choose(self, answer: dict[str, Any]) -> None:
        """Ask the agent to be `agent` in the session just opened; hold its answer."""
        sid = self.opening.pop(answer.get("id"))
        result = answer["result"] if isinstance(answer["result"], dict) else {}
        sid = result.get("sessionId", sid)
        self.count += 1
        ours = f"skilltool-acp-{self.count}"
        self.choosing[ours] = answer
        params = {"sessionId": sid, "configId": "agent", "value": self.agent}
        request = {"jsonrpc": "2.0", "id": ours, "method": "session/set_config_option"}
        self._to_agent(_dumped({**request, "params": params}))

    def _chosen(self, reply: dict[str, Any]) -> None:
        """The agent's answer to our choice: the host's answer goes on, with the options as
        they now are, or as an error that says why the agent could not be chosen."""
        answer = self.choosing.pop(reply["id"])
        if "error" in reply:
            said = reply["error"].get("message", "") if isinstance(reply["error"], dict) else ""
            error = {"code": -32603, "message": f"skilltool acp: agent {self.agent!r}: {said}"}
            answer = {"jsonrpc": "2.0", "id": answer.get("id"), "error": error}
        elif isinstance(reply.get("result"), dict) and "configOptions" in reply["result"]:
            result = {**answer["result"], "configOptions": reply["result"]["configOptions"]}
            answer = {**answer, "result": result}
        self._to_host(_dumped(answer))
        if not self.choosing:
            held, self.held = self.held, []
            for line in held:
                self._to_host(line)

    def _to_agent(self, line: bytes) -> None:
        with self.lock, contextlib.suppress(OSError):  # a gone agent's exit ends the relay
            _write(self.to_agent, line)

    def _to_host(self, line: bytes) -> None:
        with self.host_lock:
            _write(self.to_host, line)


def _valid_id(value: object) -> bool:
    """A JSON-RPC id: a string or a number (not a list, an object or a boolean)."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _invalid(value: object) -> bytes:
    """The answer to a request whose id is not one JSON-RPC allows (its id unknown: null)."""
    error = {
        "code": -32600,
        "message": f"invalid request: its id must be a string or a number, not {value!r}",
    }
    return _dumped({"jsonrpc": "2.0", "id": None, "error": error})


def _lines(fd: int) -> Iterator[bytes]:
    """Each line read from `fd`, as soon as its newline arrives (a last one without)."""
    reader = io.BufferedReader(io.FileIO(fd, "rb", closefd=False), CHUNK)
    while True:
        try:
            line = reader.readline()
        except OSError:
            return
        if not line:
            return
        yield line


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _dumped(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
