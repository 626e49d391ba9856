"""Marketplace entries of source `npm`: fetched with the user's own npm from a loopback
registry, nothing of the package run, unpacked by skilltool into a checkout, pinned in the
lockfile by exact version and integrity, and read as any fetched plugin."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.gitrepos import Repo, home_state, isolate_git, plugin_files
from tests.helpers import run
from tests.npmregistry import Registry, hostile, integrity, registry, tarball
from tests.test_sources import links, lock

__all__ = ["registry"]  # the fixture, used by name


@pytest.fixture(autouse=True)
def _git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_git(tmp_path, monkeypatch)


def package(name: str, skills: tuple[str, ...], version: str, **extra: str) -> bytes:
    """A plugin as an npm package: package.json beside the plugin's own files."""
    files: dict[str, str | bytes] = {
        "package.json": json.dumps({"name": name, "version": version, **extra.get("pkg", {})})
    }
    for path, text in plugin_files("kit", skills).items():
        files[path] = text if isinstance(text, str | bytes) else str(text)
    files.update({k: v for k, v in extra.items() if k != "pkg"})
    return tarball(files)


def market(tmp_path: Path, entries: list[dict[str, object]]) -> Repo:
    made = Repo(tmp_path, "market")
    made.commit(
        {
            ".claude-plugin/marketplace.json": json.dumps(
                {"name": "market", "owner": {"name": "T"}, "plugins": entries}
            )
        }
    )
    made.push()
    return made


def npm_entry(name: str = "kit", **source: object) -> dict[str, object]:
    return {"name": name, "source": {"source": "npm", "package": "@acme/kit", **source}}


def test_an_npm_entry_is_fetched_pinned_and_synced_exactly(
    home: Path, tmp_path: Path, registry: Registry
) -> None:
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0"))
    registry.publish("@acme/kit", "1.2.0", package("@acme/kit", ("alpha", "beta"), "1.2.0"))
    registry.publish("@acme/kit", "2.0.0", package("@acme/kit", ("gamma",), "2.0.0"), False)
    shop = market(tmp_path, [npm_entry(version="^1.0.0")])
    assert run("plugins", "add", shop.url).code == 0
    before = home_state(home)
    dry = run("plugins", "add", "kit@market", "--dry-run")
    assert dry.code == 0 and "added     kit npm:@acme/kit ^1.0.0 @ 1.2.0" in dry.stdout
    assert home_state(home) == before
    added = run("plugins", "add", "kit@market")
    assert added.code == 0, added.stderr
    assert "added     kit npm:@acme/kit ^1.0.0 @ 1.2.0 (1 plugin(s): kit)" in added.stdout
    assert set(links(home)) >= {"alpha", "beta"} and "gamma" not in set(links(home))
    pinned = lock(home)["kit"]
    assert pinned["npm"] == "@acme/kit" and pinned["ref"] == "^1.0.0"
    assert pinned["version"] == "1.2.0" and pinned["marketplace"] == "market"
    assert pinned["integrity"] == integrity(registry.packages["@acme/kit"]["1.2.0"])
    status = run("plugins", "status")
    assert any(
        ln.startswith("source    kit npm:@acme/kit ref ^1.0.0 version 1.2.0") for ln in status.lines
    )
    # a newer version in range: sync keeps the pinned one, update moves to it
    registry.publish("@acme/kit", "1.3.0", package("@acme/kit", ("alpha", "delta"), "1.3.0"))
    assert run("plugins", "sync").code == 0
    assert lock(home)["kit"]["version"] == "1.2.0" and "delta" not in set(links(home))
    check = run("plugins", "update", "kit", "--check")
    assert check.code == 1 and "1.2.0 -> 1.3.0" in check.stdout
    said = json.loads(run("plugins", "update", "kit", "--check", "--json").stdout)
    outdated = next(s for s in said["sources"] if s["name"] == "kit")
    assert (outdated["npm"], outdated["version"], outdated["before"]) == (
        "@acme/kit",
        "1.3.0",
        "1.2.0",
    )
    updated = run("plugins", "update", "kit")
    assert updated.code == 0, updated.stderr
    assert lock(home)["kit"]["version"] == "1.3.0" and "delta" in set(links(home))
    # another home from the lockfile alone gets exactly the pinned package
    other = tmp_path / "other"
    (other / ".local/share/skilltool").mkdir(parents=True)
    lockfile = home / ".local/share/skilltool/plugins.lock"
    (other / ".local/share/skilltool/plugins.lock").write_bytes(lockfile.read_bytes())
    synced = run("plugins", "sync", "--frozen", "--home", other)
    assert synced.code == 0, synced.stderr
    assert set(links(other)) >= {"alpha", "delta"}
    removed = run("plugins", "remove", "kit")
    assert removed.code == 0, removed.stderr
    assert "kit" not in lock(home)
    assert not (home / ".local/share/skilltool/sources/kit").exists()
    assert not {"alpha", "delta"} & set(links(home))


def test_a_lockfile_replaced_without_the_package_prunes_its_checkout(
    home: Path, tmp_path: Path, registry: Registry
) -> None:
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0"))
    shop = market(tmp_path, [npm_entry()])
    run("plugins", "add", shop.url)
    lockfile = home / ".local/share/skilltool/plugins.lock"
    without = lockfile.read_bytes()
    assert run("plugins", "add", "kit@market").code == 0
    there = home / ".local/share/skilltool/sources/kit"
    assert "alpha" in set(links(home)) and there.is_dir()
    lockfile.write_bytes(without)
    synced = run("plugins", "sync")
    assert synced.code == 0, synced.stderr
    assert not there.exists() and "alpha" not in set(links(home))


def test_a_checkout_edited_by_hand_is_kept_unless_forced(
    home: Path, tmp_path: Path, registry: Registry
) -> None:
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0"))
    shop = market(tmp_path, [npm_entry()])
    run("plugins", "add", shop.url)
    assert run("plugins", "add", "kit@market").code == 0
    there = home / ".local/share/skilltool/sources/kit/current/kit"
    (there / "skills/alpha/SKILL.md").write_text("edited\n")
    (there / "notes.txt").write_text("mine\n")
    kept = run("plugins", "remove", "kit")
    said = kept.stdout + kept.stderr
    assert kept.code == 1 and "local changes" in said
    assert "notes.txt added" in said and "skills/alpha/SKILL.md changed" in said
    assert run("plugins", "remove", "kit", "--force").code == 0
    assert not (home / ".local/share/skilltool/sources/kit").exists()


def test_a_tarball_changed_under_a_pinned_version_is_refused(
    home: Path, tmp_path: Path, registry: Registry
) -> None:
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0"))
    shop = market(tmp_path, [npm_entry()])
    run("plugins", "add", shop.url)
    assert run("plugins", "add", "kit@market").code == 0
    # the registry serves other bytes under the same version; a fresh home syncs the lockfile
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("evil",), "1.0.0"))
    other = tmp_path / "other"
    (other / ".local/share/skilltool").mkdir(parents=True)
    lockfile = home / ".local/share/skilltool/plugins.lock"
    (other / ".local/share/skilltool/plugins.lock").write_bytes(lockfile.read_bytes())
    synced = run("plugins", "sync", "--home", other)
    assert synced.code == 1
    assert "is not the one pinned" in synced.stderr and len(synced.stderr.splitlines()) == 1
    assert "Traceback" not in synced.stderr
    assert not (other / ".local/share/skilltool/sources/kit").exists()
    assert not set(links(other))
    # here, the checkout in use stays; nothing of the new bytes is written
    assert run("plugins", "sync").code == 0
    assert "evil" not in set(links(home))


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink", "hardlink", "device"])
def test_a_hostile_tarball_is_refused_and_nothing_written(
    home: Path, tmp_path: Path, registry: Registry, kind: str
) -> None:
    registry.publish("@acme/kit", "1.0.0", hostile(kind))
    shop = market(tmp_path, [npm_entry()])
    run("plugins", "add", shop.url)
    before = home_state(home)
    added = run("plugins", "add", "kit@market")
    assert added.code == 1
    assert len(added.stderr.splitlines()) == 1 and "refused, nothing was written" in added.stderr
    assert home_state(home) == before
    assert not (tmp_path / "escaped").exists() and not Path("/tmp/skilltool-escaped").exists()


def test_no_script_of_the_package_runs(home: Path, tmp_path: Path, registry: Registry) -> None:
    witness = tmp_path / "ran"
    script = f"touch {witness}"
    hooks = {k: script for k in ("preinstall", "install", "postinstall", "prepare", "prepack")}
    registry.publish(
        "@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0", pkg={"scripts": hooks})
    )
    # the entry's registry wins over one the user's .npmrc maps the package's scope to
    (tmp_path / "npmrc").write_text("@acme:registry=http://127.0.0.1:9/\n")
    shop = market(tmp_path, [npm_entry(registry=registry.url)])  # the user's own: plain http
    run("plugins", "add", shop.url)
    added = run("plugins", "add", "kit@market")
    assert added.code == 0, added.stderr
    assert "alpha" in set(links(home)) and lock(home)["kit"]["registry"] == registry.url
    assert run("plugins", "update").code == 0
    assert not witness.exists()


def test_a_server_of_an_npm_package_waits_for_approval(
    home: Path, tmp_path: Path, registry: Registry
) -> None:
    (home / ".codex").mkdir()
    servers = {"mcpServers": {"serve": {"command": "kit-server", "args": ["--fast"]}}}
    made = package("@acme/kit", ("alpha",), "1.0.0", **{".mcp.json": json.dumps(servers)})
    registry.publish("@acme/kit", "1.0.0", made)
    shop = market(tmp_path, [npm_entry()])
    run("plugins", "add", shop.url)
    added = run("plugins", "add", "kit@market")
    assert added.code == 0, added.stderr
    assert any(ln.startswith("held      kit:") for ln in added.lines)
    config = home / ".codex/config.toml"
    assert not config.exists() or "kit-server" not in config.read_text()
    approved = run("plugins", "approve", "kit", "--yes")
    assert approved.code == 0, approved.stderr
    assert "kit-server" in (home / ".codex/config.toml").read_text()
    assert "approved" in lock(home)["kit"]


def test_new_code_under_an_approved_command_line_waits_for_approval_again(
    home: Path, tmp_path: Path, registry: Registry
) -> None:
    """The package's next version runs the same command line, but the script it names is
    other code: `update` brings the version in, and the server waits until it is approved."""
    (home / ".codex").mkdir()
    command = {"command": "${CLAUDE_PLUGIN_ROOT}/serve.sh", "args": ["--fast"]}
    servers = json.dumps({"mcpServers": {"serve": command}})
    one = {".mcp.json": servers, "serve.sh": "#!/bin/sh\necho one\n"}
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0", **one))
    shop = market(tmp_path, [npm_entry(version="^1.0.0")])
    run("plugins", "add", shop.url)
    assert run("plugins", "add", "kit@market", "--yes").code == 0
    config = home / ".codex/config.toml"
    assert "serve.sh" in config.read_text()
    two = {".mcp.json": servers, "serve.sh": "#!/bin/sh\necho two\n"}
    registry.publish("@acme/kit", "1.1.0", package("@acme/kit", ("alpha",), "1.1.0", **two))
    updated = run("plugins", "update")
    assert updated.code == 0, updated.stderr
    assert lock(home)["kit"]["version"] == "1.1.0"
    assert any(ln.startswith("held      kit:") for ln in updated.lines), updated.stdout
    assert "serve.sh (changed)" in updated.stdout  # the code the command line runs
    assert not config.exists() or "serve.sh" not in config.read_text()  # its entry taken out


def test_a_registry_that_is_down_is_one_line_and_the_rest_goes_on(
    home: Path, tmp_path: Path, registry: Registry, repo_plugin: Repo
) -> None:
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0"))
    shop = market(tmp_path, [npm_entry()])
    run("plugins", "add", shop.url)
    registry.down = True
    before = home_state(home)
    added = run("plugins", "add", "kit@market")
    assert added.code == 1 and len(added.stderr.splitlines()) == 1
    assert added.stderr.startswith("skilltool: npm:@acme/kit: npm failed:")
    assert home_state(home) == before
    assert run("plugins", "add", repo_plugin.url).code == 0  # git sources go on as ever
    assert "beta" in set(links(home))


@pytest.fixture
def repo_plugin(tmp_path: Path) -> Repo:
    made = Repo(tmp_path, "tools")
    made.commit(plugin_files("tools", ("beta",)))
    made.push()
    return made


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ({"package": "../../etc"}, "source.package: '../../etc' is not an npm package name"),
        ({"package": "git+https://x/y.git"}, "is not an npm package name"),
        ({"package": "kit", "version": "not a range!"}, "source.version:"),
        ({"package": "kit", "registry": "ftp://x"}, "source.registry: must be an http(s) URL"),
        (
            {"package": "kit", "registry": "http://203.0.113.9/"},
            "plain http and not your npm registry",
        ),
        ({"package": "kit", "registry": "https://u:secret@npm.example/"}, "holds a password"),
    ],
)
def test_entry_fields_npm_would_misread_are_refused(
    home: Path, tmp_path: Path, registry: Registry, source: dict[str, object], said: str
) -> None:
    shop = market(tmp_path, [{"name": "kit", "source": {"source": "npm", **source}}])
    run("plugins", "add", shop.url)
    added = run("plugins", "add", "kit@market")
    assert added.code == 1 and said in added.stderr, added.stderr
    assert len(added.stderr.splitlines()) == 1 and "kit" not in lock(home)


def test_without_npm_one_line_says_to_install_it(
    home: Path, tmp_path: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0"))
    shop = market(tmp_path, [npm_entry()])
    run("plugins", "add", shop.url)
    git = Path(os.popen("command -v git").read().strip())
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(bare))
    added = run("plugins", "add", "kit@market")
    assert added.code == 1
    assert "cannot run npm" in added.stderr and "install npm" in added.stderr
    assert len(added.stderr.splitlines()) == 1


def test_a_version_without_integrity_is_pinned_by_sync_and_refused_by_frozen(
    home: Path, registry: Registry
) -> None:
    registry.publish("@acme/kit", "1.0.0", package("@acme/kit", ("alpha",), "1.0.0"))
    where = home / ".local/share/skilltool"
    where.mkdir(parents=True)
    (where / "plugins.lock").write_text(
        'version = 1\n[sources.kit]\nnpm = "@acme/kit"\nversion = "1.0.0"\n'
    )
    frozen = run("plugins", "sync", "--frozen")
    assert frozen.code == 1 and "sources.kit has no integrity" in frozen.stderr
    assert run("plugins", "sync").code == 0
    assert lock(home)["kit"]["integrity"] == integrity(registry.packages["@acme/kit"]["1.0.0"])
    assert "alpha" in set(links(home))
    assert "synced" not in run("plugins", "sync").stdout  # in use: nothing fetched again


def test_a_lockfile_entry_of_npm_is_checked(home: Path) -> None:
    where = home / ".local/share/skilltool"
    where.mkdir(parents=True)
    (where / "plugins.lock").write_text(
        'version = 1\n[sources.kit]\nnpm = "@acme/kit"\nversion = "1.0.0"\nintegrity = "md5-x"\n'
    )
    done = run("plugins", "sync")
    assert done.code == 1 and "sources.kit.integrity: must be sha512-" in done.stderr


def test_a_dependency_on_an_npm_entry_is_added_at_the_highest_version_in_its_range(
    home: Path, tmp_path: Path, registry: Registry
) -> None:
    for version, skill in (("1.0.0", "one"), ("1.5.0", "onefive"), ("2.0.0", "two")):
        registry.publish("@acme/kit", version, package("@acme/kit", (skill,), version))
    made = Repo(tmp_path, "market")
    files = plugin_files("main", ("mainskill",), prefix="main/")
    files["main/.claude-plugin/plugin.json"] = json.dumps(
        {"name": "main", "version": "1.0.0", "dependencies": [{"name": "kit", "version": "^1.0"}]}
    )
    entries = [{"name": "main", "source": "./main"}, npm_entry()]
    files[".claude-plugin/marketplace.json"] = json.dumps(
        {"name": "market", "owner": {"name": "T"}, "plugins": entries}
    )
    made.commit(files)
    made.push()
    assert run("plugins", "add", made.url).code == 0
    added = run("plugins", "add", "main@market")
    assert added.code == 0, added.stderr
    assert "needed by main" in added.stdout
    assert lock(home)["kit"]["version"] == "1.5.0" and lock(home)["kit"]["ref"] == "^1.0"
    assert {"mainskill", "onefive"} <= set(links(home))
    assert run("plugins", "remove", "main").code == 0
    assert "kit" not in lock(home) and "onefive" not in set(links(home))
