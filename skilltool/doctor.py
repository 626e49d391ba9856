"""`skilltool doctor`: each harness set up here asked, through its own binary, whether it
loads what skilltool installed for it, and for what it does not, why.

- Nothing leaves the machine: a probe runs with every proxy on a dead loopback port, the
  user's keys and base URLs never passed (placeholders where a binary wants one).
- Nothing of the user's changes: each probe runs in a throwaway home holding a copy of the
  harness's own folder (its sessions, logs, caches and files over 2 MiB left out) and of the
  skills dir's links, with that home's XDG folders, so that what a harness writes as it lists
  (logs, ids, state) lands there.
- The probes run in parallel, each command cut off after `TIMEOUT` seconds.

What a harness does not load is compared with what it lists (`Harness.probes`), with its
version against the one skilltool is proven with, and with what is on disk.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from skilltool import discover, plan, report, settings
from skilltool.errors import FAILED, OK, SkilltoolError
from skilltool.harnesses import HOME_VARIABLES, ROOTS, Listing, default_root, moved_root
from skilltool.report import Result

if TYPE_CHECKING:
    from skilltool.commands.common import Options
    from skilltool.harnesses import Harness
    from skilltool.model import Catalogue
    from skilltool.paths import Scope

TIMEOUT = 60.0  # seconds, any one command of a harness (Kilo takes 30 s beside nine others)
BIGGEST = 2 * 1024 * 1024  # a file of a harness's folder larger than this is not copied
# a harness's folders of state, never copied into the throwaway home
STATE = frozenset(
    {
        ".git", "archived_sessions", "cache", "debug", "file-history", "history", "ide", "log",
        "logs", "node_modules", "pkg", "projects", "session-state", "sessions",
        "shell-snapshots", "snapshots", "statsig", "tmp", "todos",
    }
)  # fmt: skip
ROOT = "SKILLTOOL_DOCTOR_ROOT"  # where the harness's folder is in the throwaway home
KEPT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "USER", "LOGNAME", "SSL_CERT_FILE")
DEAD = "http://127.0.0.1:9"  # a loopback port nothing listens on
# what the loopback model answers a harness's first request: an error it stops at
REFUSED = b'{"type": "error", "error": {"type": "invalid_request_error", "message": "doctor"}}'
QUIET = {
    "HTTP_PROXY": DEAD, "HTTPS_PROXY": DEAD, "ALL_PROXY": DEAD,
    "http_proxy": DEAD, "https_proxy": DEAD, "all_proxy": DEAD,
    "NO_PROXY": "127.0.0.1,localhost,::1", "no_proxy": "127.0.0.1,localhost,::1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "KILO_DISABLE_AUTOUPDATE": "1", "KILO_DISABLE_MODELS_FETCH": "1",
    "KILO_TELEMETRY_LEVEL": "off", "COPILOT_AUTO_UPDATE": "false", "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "NO_UPDATE_NOTIFIER": "1",
    "npm_config_offline": "true", "NO_COLOR": "1", "CI": "true",
}  # fmt: skip


class Expected(NamedTuple):
    """What skilltool installed for a harness that it should load: name -> the file or link."""

    skills: dict[str, Path]
    agents: dict[str, Path]
    not_installed: dict[tuple[str, str], Path]  # (kind, name) -> where it should be, missing
    called: dict[str, str]  # a skill's folder -> the name its frontmatter gives it
    # a skill linked for the other harnesses that `validate` says this one skips: name -> why
    refused: dict[str, str]
    # (kind, name) not installed -> where an install put it before a variable moved the home
    before: dict[tuple[str, str], Path]


class Missing(NamedTuple):
    kind: str  # "skill" or "agent"
    name: str
    why: str  # one line, with the fix
    foreseen: bool = False  # `validate` says so already: the plugin's to fix, not the home's

    def line(self, harness: str) -> str:
        said = "skipped" if self.foreseen else "missing"
        return f"{said:<9} {harness:<8} {self.kind} {self.name}: {self.why}"


class Probed(NamedTuple):
    """One harness asked: its version, what it listed, what it does not load and why."""

    harness: str
    title: str
    version: str | None
    proven: str
    listing: Listing
    missing: tuple[Missing, ...]
    failed: str | None  # why the harness could not be asked
    seconds: float
    expected: Expected

    def line(self) -> str:
        if self.failed is not None:
            return f"failed    {self.harness}: {self.failed}"
        version = self.version or "version unknown"
        said = f"{self.harness} {version} (proven {self.proven})"
        loads = []
        if self.listing.skills is not None:
            count = len(self.expected.skills) - sum(m.kind == "skill" for m in self.missing)
            loads.append(f"{count} of {len(self.expected.skills)} skill(s)")
        if self.listing.agents is not None:
            count = len(self.expected.agents) - sum(m.kind == "agent" for m in self.missing)
            loads.append(f"{count} of {len(self.expected.agents)} agent(s)")
        what = " and ".join(loads) or "nothing it lists"
        return f"probed    {said}: loads {what}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "version": self.version,
            "proven": self.proven,
            "failed": self.failed,
            "seconds": round(self.seconds, 2),
            "skills": None if self.listing.skills is None else sorted(self.expected.skills),
            "agents": None if self.listing.agents is None else sorted(self.expected.agents),
            "not_loaded": [m._asdict() for m in self.missing],
            "errors": list(self.listing.errors),
        }


def doctor(opts: Options, only: str | None, item: str | None) -> Result:
    from skilltool.harnesses import harnesses

    home = opts.where
    if home.kind != "home":
        raise SkilltoolError("doctor asks the harnesses of a home: run it without --project")
    warnings: list[str] = []
    catalogue = discover.find(home, warnings, keep=False)  # not even a cache is written
    found = [h for h in harnesses(home, only) if h.present()]
    if only is not None and not found:
        raise SkilltoolError(f"{only} is not set up here: nothing to ask")
    asked = [h for h in found if h.probes() and shutil.which(h.binary or h.name)]
    unasked = [h for h in found if h not in asked]
    started = time.monotonic()
    with (
        report.progress(opts.json or opts.verbosity == "quiet") as progress,
        ThreadPoolExecutor(max(1, len(asked))) as pool,
    ):
        progress.say(f"asking {', '.join(h.name for h in asked)}")
        jobs = [pool.submit(probe, home, h, expected(home, catalogue, h, item)) for h in asked]
        results = []
        for job in jobs:  # in the order asked; the line says who is still being waited for
            results.append(job.result())
            waiting = ", ".join(h.name for h, j in zip(asked, jobs, strict=True) if not j.done())
            if waiting:
                progress.say(f"asked {len(results)} of {len(asked)}; waiting for {waiting}")
    seconds = time.monotonic() - started
    lines = [home.line()]
    for result in results:
        lines.append(result.line())
        lines += [m.line(result.harness) for m in result.missing]
    for harness in unasked:
        why = (
            f"`{harness.binary or harness.name}` is not on PATH"
            if harness.probes()
            else harness.not_probed
        )
        lines.append(f"{'unasked':<9} {harness.name}: {why}")
    not_loaded = sum(not m.foreseen for r in results for m in r.missing)
    foreseen = sum(m.foreseen for r in results for m in r.missing)
    failed = sum(r.failed is not None for r in results)
    tail = f"{not_loaded} item(s) not loaded" if not_loaded else "everything asked for loads"
    if foreseen:
        tail += f"; {foreseen} skipped as 'skilltool plugins validate' says"
    if failed:
        tail += f", {failed} harness(es) could not be asked"
    lines.append(f"doctor    {len(results)} harness(es) asked in {seconds:.1f} s: {tail}")
    data = {
        "home": str(home.path),
        "scope": home.kind,
        "seconds": round(seconds, 2),
        "harnesses": [r.as_dict() for r in results],
        "unasked": [h.name for h in unasked],
    }
    code = FAILED if not_loaded or failed else OK
    return Result(code, data, tuple(lines), warnings=tuple(warnings))


def expected(home: Scope, catalogue: Catalogue, harness: Harness, item: str | None) -> Expected:
    """The skills and agents skilltool installed for `harness` that it should load: the
    winners, less what the user turned off there and what `validate` says it skips."""
    from skilltool.harnesses import NAMES

    chosen = settings.applied(home, catalogue.plugins, NAMES, settings.renames_in(catalogue))
    skills: dict[str, Path] = {}
    agents: dict[str, Path] = {}
    missing: dict[tuple[str, str], Path] = {}
    refused: dict[str, str] = {}
    folder = harness.own_skills_dir() or home.skills_dir
    # a harness asked only through its request to a model shows it no skill the model may not
    # call (Gemini CLI lists its skills, and only its agents come from such a request)
    to_model = all(p.model for p in harness.probes())
    called: dict[str, str] = {}
    owner = {s.path: p.name for p in catalogue.plugins for s in p.skills}
    owner.update({a.path: p.name for p in catalogue.plugins for a in p.agents})
    for name, skill in plan.winning_skills(catalogue)[0].items():
        verdict = harness.skill_verdict(skill)
        plugin = owner.get(skill.path, "")
        off = chosen.off("skills", name, harness.name) or chosen.off(
            "plugins", plugin, harness.name
        )
        if off or item not in (None, name):
            continue
        if to_model and skill.fields.get("disable-model-invocation") is True:
            continue
        if isinstance(skill.fields.get("name"), str):
            called[name] = skill.fields["name"]
        link = folder / name
        ours = os.path.realpath(link) == os.path.realpath(skill.path)
        if verdict is not None and verdict.skips:
            if ours:  # linked for the other harnesses: asked whether this one skips it
                skills[name], refused[name] = link, verdict.why
        elif ours:
            skills[name] = link
        else:
            missing[("skill", name)] = link
    for agent in plan.winning_agents(catalogue)[0]:
        verdict = harness.agent_verdict(agent)
        if (verdict is not None and verdict.skips) or item not in (None, agent.name):
            continue
        plugin = owner.get(agent.path, "")
        if chosen.off("agents", agent.name, harness.name) or chosen.off(
            "plugins", plugin, harness.name
        ):
            continue
        if harness.absent(agent) is not None:  # install writes nothing for it there, and says so
            continue
        renderings = harness.render(agent)
        target = renderings[0].target if renderings else harness.root()
        if all(os.path.isfile(r.target) for r in renderings):
            agents[agent.name] = target
        else:
            missing[("agent", agent.name)] = target
    return Expected(skills, agents, missing, called, refused, _before(home, harness, missing))


def _before(
    home: Scope, harness: Harness, missing: Mapping[tuple[str, str], Path]
) -> dict[tuple[str, str], Path]:
    """Of what is not installed where the harness looks, what is where it looked before a
    variable moved its home: installed then, and not since."""
    root, variable = moved_root(harness.name, home)
    if variable is None:
        return {}
    old = default_root(harness.name, home)
    found = {}
    for (kind, name), where in missing.items():
        candidates = [old / where.relative_to(root)] if where.is_relative_to(root) else []
        if kind == "skill":
            candidates.append(home.skills_dir / name)  # linked there for an unmoved home
        there = next((c for c in candidates if c != where and os.path.lexists(c)), None)
        if there is not None:
            found[(kind, name)] = there
    return found


def probe(home: Scope, harness: Harness, wanted: Expected) -> Probed:
    """Ask one harness in a throwaway home: its version, then each of its listings."""
    started = time.monotonic()
    binary = harness.binary or harness.name
    # a harness may leave a child writing in it: what is left is not doctor's to fail on
    made = tempfile.TemporaryDirectory(
        prefix="skilltool-doctor-", dir=_outside(home), ignore_cleanup_errors=True
    )
    with made as scratch:
        base = Path(scratch)
        env, work = sandbox(home, harness, base)
        version = _version(_run([binary, "--version"], env, work, base))
        listing, failed = Listing(), None
        for one in harness.probes():
            with _Model() if one.model else contextlib.nullcontext() as model:
                url = model.url if model is not None else ""
                given = {k: v.replace("{model}", url) for k, v in one.env.items()}
                if one.prepare is not None:
                    one.prepare(Path(env[ROOT]), url)
                done = _run(one.argv, {**env, **given}, work, base, one.into_file, one.input)
                if model is not None and not isinstance(done, str):
                    done = (model.request or "", done[1])
            if isinstance(done, str):
                failed = f"`{' '.join(one.argv)}` {done}"
                break
            listing = _merged(listing, _real(one.read(*done), base, home, harness))
    missing = () if failed else reasons(harness, wanted, listing, version, home.show)
    return Probed(
        harness.name, harness.title, version, harness.proven(), listing, missing, failed,
        time.monotonic() - started, wanted,
    )  # fmt: skip


def reasons(
    harness: Harness,
    wanted: Expected,
    listing: Listing,
    version: str | None,
    show: Callable[[Path], str] = str,
) -> tuple[Missing, ...]:
    """For each item skilltool installed that the harness did not list: why, in one line."""
    older = _older(version, harness.proven())
    found: list[Missing] = []
    for (kind, name), where in sorted(wanted.not_installed.items()):
        old = wanted.before.get((kind, name))
        if old is not None:
            root, variable = moved_root(harness.name, harness.home)
            why = (
                f"installed at {show(old)}, where {harness.title} looked before ${variable} "
                f"moved its home to {show(root)}: run 'skilltool plugins install'"
            )
        elif os.path.islink(where):
            why = (
                f"{show(where)} links to {os.readlink(where)}, not to the plugin's folder: "
                "run 'skilltool plugins install'"
            )
        else:
            why = f"not installed at {show(where)}: run 'skilltool plugins install'"
        found.append(Missing(kind, name, why))
    for kind, have, listed in (
        ("skill", wanted.skills, listing.skills),
        ("agent", wanted.agents, listing.agents),
    ):
        if listed is None:
            continue
        for name, where in sorted(have.items()):
            places = listed.get(name)
            if places is None and kind == "skill":  # listed by its frontmatter name
                places = listed.get(wanted.called.get(name, name))
            if places is not None and _listed_here(places, where):
                continue
            if places:
                others = ", ".join(show(Path(p)) for p in places)
                why = (
                    f"a {kind} of that name at {others} is the one it loads: rename one of "
                    "them, or remove the other"
                )
            elif kind == "skill" and name in wanted.refused:
                why = (
                    f"{harness.title} skips it: {wanted.refused[name]}; the fix is the "
                    f"plugin's, in {show(where)}/SKILL.md ('skilltool plugins validate' says so)"
                )
                found.append(Missing(kind, name, why, foreseen=True))
                continue
            elif kind == "agent" and not harness.agent_links and os.path.islink(where):
                why = (
                    f"{show(where)} is a symbolic link, which {harness.title} does not "
                    "follow: remove the link and run 'skilltool plugins install'"
                )
            elif older:
                why = (
                    f"not listed by {harness.title} {version}, older than the {harness.proven()} "
                    f"skilltool is proven with: update {harness.title}"
                )
            else:
                said = next((e for e in listing.errors if str(where) in e), None)
                why = (
                    f"{harness.title} says: {said}"
                    if said
                    else (
                        f"not listed by {harness.title} although {show(where)} is there; see "
                        f"'skilltool plugins validate' for what it reads"
                    )
                )
            found.append(Missing(kind, name, why))
    return tuple(found)


class _Model:
    """A model on a loopback port for a harness that shows what it loaded only in its first
    request: the request is kept, and refused (400), so the harness stops there."""

    def __init__(self) -> None:
        import http.server
        import threading

        kept: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                kept.append(self.rfile.read(size).decode("utf-8", "replace"))
                said = REFUSED
                self.send_response(400)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(said)))
                self.end_headers()
                self.wfile.write(said)

        self.kept = kept
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def request(self) -> str | None:
        return self.kept[0] if self.kept else None

    def __enter__(self) -> _Model:
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _outside(home: Scope) -> str | None:
    """A temporary folder outside the home: a harness started in a folder inside it reads the
    home's `.agents/skills` as a project's too (Copilot CLI does), which the user's harness,
    started in their projects, may not."""
    inside = str(home.path).rstrip(os.sep) + os.sep
    for candidate in (tempfile.gettempdir(), "/tmp", "/var/tmp"):
        if not (candidate + os.sep).startswith(inside) and os.access(candidate, os.W_OK):
            return candidate
    return None


def _real(listing: Listing, base: Path, home: Scope, harness: Harness) -> Listing:
    """A listing with the throwaway home's paths said as the user's own."""
    root = moved_root(harness.name, home)[0]
    place = ROOTS[harness.name][1]
    fake = base / "home"
    swaps = [
        (str(base / "moved" / place), str(root)),
        (str(fake / ".config"), str(home.config_home)),
        (str(fake), str(home.path)),
    ]

    def real(where: str) -> str:
        for made, true in swaps:
            if where == made or where.startswith(made + os.sep):
                return true + where[len(made) :]
        return where

    def each(found: Mapping[str, Sequence[str]] | None) -> Mapping[str, Sequence[str]] | None:
        if found is None:
            return None
        return {name: tuple(real(w) for w in places) for name, places in found.items()}

    errors = tuple(real(e) for e in listing.errors)
    return Listing(each(listing.skills), each(listing.agents), errors)


def _listed_here(places: Sequence[str], where: Path) -> bool:
    """Whether the harness listed the item where skilltool put it: a listing names the link
    or the folder it points to; one that names no place (agents) is taken as it."""
    if not places:
        return True
    return any(p == str(where) or os.path.realpath(p) == os.path.realpath(where) for p in places)


def _older(version: str | None, proven: str) -> bool:
    def parts(text: str) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", text)[:3])

    return bool(version and proven) and parts(version) < parts(proven)  # type: ignore[arg-type]


def _merged(one: Listing, other: Listing) -> Listing:
    return Listing(
        other.skills if other.skills is not None else one.skills,
        other.agents if other.agents is not None else one.agents,
        (*one.errors, *other.errors),
    )


def _version(done: tuple[str, str] | str) -> str | None:
    if isinstance(done, str):
        return None
    found = re.search(r"\d+\.\d+\.\d+", done[0] + done[1])
    return found.group(0) if found else None


def _run(
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: Path,
    base: Path,
    into_file: bool = False,
    given: str | None = None,
) -> tuple[str, str] | str:
    """(stdout, stderr) of one command, or why it gave none: a timeout, a failure to start."""
    out = base / "stdout.txt"
    command = list(argv)
    if into_file:
        command = ["sh", "-c", 'exec "$@" >"$0"', str(out), *argv]
    try:
        process = subprocess.Popen(
            command, env=dict(env), cwd=cwd, stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL if given is None else subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True,
        )  # fmt: skip
    except OSError as err:
        return f"could not start ({err.strerror or err})"
    try:
        stdout, stderr = process.communicate(given, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        _end(process.pid)
        process.communicate()
        return f"gave no answer in {TIMEOUT:.0f} s: cut off"
    _end(process.pid)  # what it started in the background ends with it
    if into_file:
        stdout = out.read_text(encoding="utf-8", errors="replace") if out.exists() else ""
    return stdout, stderr


def _end(group: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def sandbox(home: Scope, harness: Harness, base: Path) -> tuple[dict[str, str], Path]:
    """A throwaway home for one harness: its folder copied where the harness will look for
    it, the skills dir copied (its links as links); the environment to run it with there, and
    an empty working folder."""
    fake = base / "home"
    env = {k: os.environ[k] for k in KEPT if k in os.environ}
    env.update(QUIET)
    env.update(
        HOME=str(fake), XDG_CONFIG_HOME=str(fake / ".config"), TMPDIR=str(base / "tmp"),
        XDG_DATA_HOME=str(fake / ".local/share"), XDG_STATE_HOME=str(fake / ".local/state"),
        XDG_CACHE_HOME=str(fake / ".cache"),
    )  # fmt: skip
    kind, place, variable = ROOTS[harness.name]
    root, moved = moved_root(harness.name, home)
    if moved is not None and variable is not None:
        target = base / "moved" / place
        env[variable] = str(target.parent if variable in HOME_VARIABLES else target)
    else:
        target = (fake / ".config" if kind == "config" else fake) / place
    _copy(root, target, frozenset(map(str, harness.hook_runners())))  # no hook runs
    _copy(home.skills_dir, fake / ".agents" / "skills")  # a skill installed by hand too
    for folder in (base / "tmp", base / "work", fake / ".local/share", fake / ".cache"):
        folder.mkdir(parents=True, exist_ok=True)
    env[ROOT] = str(target)
    return env, base / "work"


def _copy(source: Path, target: Path, leave: frozenset[str] = frozenset()) -> None:
    """A harness's folder (or the skills dir), without its state or the paths in `leave`:
    links as links, small files as they are."""
    target.mkdir(parents=True, exist_ok=True)
    try:
        entries = list(os.scandir(source))
    except OSError:
        return
    for entry in entries:
        into = target / entry.name
        if entry.path in leave:
            continue
        try:
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), into)
            elif entry.is_dir():
                if entry.name not in STATE:
                    _copy(Path(entry.path), into, leave)
            elif entry.is_file() and entry.stat().st_size <= BIGGEST:
                shutil.copy2(entry.path, into)
        except OSError:
            continue  # what cannot be read is not there for the probe either
