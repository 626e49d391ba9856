"""A throwaway home for running a real harness: nothing of the real home is read or written.

    home = make_home(tmp_path)            # creates the dirs
    env = harness_env(home)               # HOME, XDG_*, CODEX_HOME, TMPDIR, PATH, …
    subprocess.run(["opencode", "agent", "list"], env=env, cwd=home, timeout=60)

`harness_env` also points every proxy variable at a closed loopback port (so a harness
that tries the internet fails at once instead of leaving the machine) while
NO_PROXY keeps 127.0.0.1/localhost (the stub) reachable, and turns off the update
checks seen in the harnesses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

DEAD_PROXY = "http://127.0.0.1:9"  # discard port: nothing listens, connect fails at once


def harness_cache() -> Path:
    return Path(
        os.environ.get("SKILLTOOL_HARNESS_CACHE")
        or Path.home() / ".cache" / "skilltool" / "harnesses"
    )


def harness_bin() -> Path:
    return harness_cache() / "bin"


def have(*commands: str) -> bool:
    """True when every command has a launcher in the harness cache."""
    b = harness_bin()
    return all(os.access(b / c, os.X_OK) for c in commands)


def make_home(root: Path) -> Path:
    home = root / "home"
    for d in (".config", ".local/share", ".local/state", ".cache", "tmp", ".codex"):
        (home / d).mkdir(parents=True, exist_ok=True)
    return home


def harness_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    keep = ("LANG", "LC_ALL", "TERM", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "USER", "LOGNAME")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        {
            "HOME": str(home),
            "PATH": f"{harness_bin()}:/usr/local/bin:/usr/bin:/bin",
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_STATE_HOME": str(home / ".local/state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "TMPDIR": str(home / "tmp"),
            "CODEX_HOME": str(home / ".codex"),
            # off the network: any non-loopback HTTP(S) attempt hits a dead loopback port
            "HTTP_PROXY": DEAD_PROXY,
            "HTTPS_PROXY": DEAD_PROXY,
            "ALL_PROXY": DEAD_PROXY,
            "http_proxy": DEAD_PROXY,
            "https_proxy": DEAD_PROXY,
            "all_proxy": DEAD_PROXY,
            "NO_PROXY": "127.0.0.1,localhost,::1",
            "no_proxy": "127.0.0.1,localhost,::1",
            # update checks and telemetry
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "npm_config_offline": "true",  # pi-acp runs `npm view` for an update notice
            "npm_config_update_notifier": "false",
            "NO_UPDATE_NOTIFIER": "1",
            "DISABLE_AUTOUPDATER": "1",  # Claude Code
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # Claude Code: telemetry, updates
            "COPILOT_AUTO_UPDATE": "false",
            "KILO_DISABLE_AUTOUPDATE": "1",
            "KILO_DISABLE_MODELS_FETCH": "1",
            "KILO_TELEMETRY_LEVEL": "off",  # else Kilo sends PostHog events, and waits 2 s on exit
            "KIMI_DISABLE_TELEMETRY": "1",
            "KIMI_CODE_NO_AUTO_UPDATE": "1",
            "AUGMENT_DISABLE_AUTO_UPDATE": "1",
            "NO_COLOR": "1",
            "CI": "true",
        }
    )
    if extra:
        env.update(extra)
    return env


def run(
    argv: Sequence[str | os.PathLike[str]],
    env: Mapping[str, str],
    cwd: Path,
    timeout: float = 120,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a harness command, bounded; its own process group is killed on timeout."""
    args = [os.fspath(a) for a in argv]
    exe = shutil.which(args[0], path=env.get("PATH"))
    if exe:
        args[0] = exe
    proc = subprocess.Popen(
        args,
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        import signal

        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=10)
        raise subprocess.TimeoutExpired(args, timeout, out, err) from None
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def side_by_side(
    runs: Sequence[tuple[Sequence[str], Path]], env: Mapping[str, str], timeout: float = 120
) -> list[subprocess.CompletedProcess[str]]:
    """Harness commands run at once (listings that each take seconds), each in its folder and
    each bound to succeed; their results in the order given."""
    from concurrent.futures import ThreadPoolExecutor

    def one(job: tuple[Sequence[str], Path]) -> subprocess.CompletedProcess[str]:
        done = run(job[0], env, job[1], timeout)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    with ThreadPoolExecutor(len(runs)) as pool:
        return list(pool.map(one, runs))
