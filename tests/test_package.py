"""`skilltool package`: the distro build step, down to a real .deb built twice."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO, agent_md, build_file_tree, plugin_tree, run, skill_md

BUNDLED = REPO / "resources/plugins/skilltool"
EPOCH = "1700000000"
STAGED = "usr/share/skilltool/plugins"


def stage(*args: str | Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = run("package", *args, env={"SOURCE_DATE_EPOCH": EPOCH, **(env or {})})
    return result.code, result.stdout + result.stderr


def listing(root: Path) -> dict[str, tuple[str, int]]:
    found = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        kind = "link" if stat.S_ISLNK(info.st_mode) else "dir" if path.is_dir() else "file"
        found[str(path.relative_to(root))] = (kind, stat.S_IMODE(info.st_mode))
    return found


def test_bundled_plugin_becomes_a_reproducible_deb(tmp_path: Path) -> None:
    if shutil.which("dpkg-deb") is None:
        pytest.fail("dpkg-deb is needed (apt-get install dpkg); .ci/run installs it")
    debs = []
    for build in ("one", "two"):
        root = tmp_path / build
        code, out = stage(BUNDLED, "--destdir", root, "--prefix", "/usr")
        assert code == 0, out
        (root / "DEBIAN").mkdir()
        (root / "DEBIAN/control").write_text(
            "Package: skilltool-plugin-skilltool\nVersion: 0.1.0\nArchitecture: all\n"
            "Maintainer: Test <test@example.org>\nDescription: the bundled skilltool plugin\n"
        )
        deb = tmp_path / f"{build}.deb"
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(root), str(deb)],
                       check=True, capture_output=True, env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH})  # fmt: skip
        debs.append(deb)
    assert (
        hashlib.sha256(debs[0].read_bytes()).digest()
        == hashlib.sha256(debs[1].read_bytes()).digest()
    )
    contents = subprocess.run(["dpkg-deb", "--contents", str(debs[0])], check=True, env={**os.environ, "TZ": "UTC"},
                              capture_output=True, text=True).stdout.splitlines()  # fmt: skip
    entries = {line.split()[-1]: line.split()[0] for line in contents}
    base = f"./{STAGED}/skilltool/"
    expected_files = {
        ".claude-plugin/plugin.json", "LICENSE", "agents/plugin-author.md",
        "skills/using-skilltool/SKILL.md", "skills/writing-plugins/SKILL.md",
        "skills/writing-skills/SKILL.md", "skills/writing-skills/references/frontmatter.md",
    }  # fmt: skip
    files = {
        k[len(base) :]: v for k, v in entries.items() if k.startswith(base) and not k.endswith("/")
    }
    assert set(files) == expected_files
    assert set(files.values()) == {"-rw-r--r--"}
    dirs = {k: v for k, v in entries.items() if k.endswith("/")}
    assert set(dirs.values()) == {"drwxr-xr-x"}
    assert all(line.split()[1] == "root/root" for line in contents)
    assert all(line.split()[3:5] == ["2023-11-14", "22:13"] for line in contents)


def test_two_runs_give_identical_tarballs(tmp_path: Path) -> None:
    tarballs = []
    for build in ("a", "b"):
        root = tmp_path / build
        assert stage(BUNDLED, "--destdir", root)[0] == 0
        tarball = tmp_path / f"{build}.tar"
        subprocess.run(["tar", "--sort=name", f"--mtime=@{EPOCH}", "--owner=0", "--group=0",
                        "--numeric-owner", "-C", str(root), "-cf", str(tarball), "."], check=True)  # fmt: skip
        tarballs.append(tarball.read_bytes())
    assert tarballs[0] == tarballs[1]


def test_only_plugin_content_with_normalised_modes(tmp_path: Path) -> None:
    src = plugin_tree(tmp_path / "src", "docs", skills=("pdf-tools",), agents=("helper",))
    build_file_tree(src, {
        ".git/config": "[core]\n", ".gitignore": "*.pyc\n", "Makefile": "all:\n",
        "notes.txt": "private\n", "LICENSE": "MIT\n", "README.md": "# docs\n",
        "skills/pdf-tools/scripts/run.sh": "#!/bin/sh\necho hi\n",
        "skills/pdf-tools/scripts/__pycache__/x.cpython-311.pyc": b"\x00",
        "skills/pdf-tools/.SKILL.md.swp": b"\x00", "skills/pdf-tools/.DS_Store": b"\x00",
        "skills/pdf-tools/reference.md~": "old\n", "agents/helper.md.orig": "old\n",
        "skills/pdf-tools/refs/guide.md": "guide\n",
        "skills/pdf-tools/guide-link.md": Path("refs/guide.md"),
    })  # fmt: skip
    (src / "skills/pdf-tools/scripts/run.sh").chmod(0o700)
    (src / "skills/pdf-tools/refs/guide.md").chmod(0o600)
    (src / "skills/pdf-tools/refs").chmod(0o700)
    code, out = stage(src, "--destdir", tmp_path / "root")
    assert code == 0, out
    staged = listing(tmp_path / "root" / STAGED / "docs")
    assert staged == {
        ".claude-plugin": ("dir", 0o755),
        ".claude-plugin/plugin.json": ("file", 0o644),
        "LICENSE": ("file", 0o644),
        "README.md": ("file", 0o644),
        "agents": ("dir", 0o755),
        "agents/helper.md": ("file", 0o644),
        "skills": ("dir", 0o755),
        "skills/pdf-tools": ("dir", 0o755),
        "skills/pdf-tools/SKILL.md": ("file", 0o644),
        "skills/pdf-tools/guide-link.md": ("link", 0o777),
        "skills/pdf-tools/refs": ("dir", 0o755),
        "skills/pdf-tools/refs/guide.md": ("file", 0o644),
        "skills/pdf-tools/scripts": ("dir", 0o755),
        "skills/pdf-tools/scripts/run.sh": ("file", 0o755),
    }
    assert (
        os.readlink(tmp_path / "root" / STAGED / "docs/skills/pdf-tools/guide-link.md")
        == "refs/guide.md"
    )


def test_components_the_manifest_places_elsewhere_are_staged_and_only_they(
    tmp_path: Path,
) -> None:
    src = build_file_tree(tmp_path / "src" / "docs", {
        ".claude-plugin/plugin.json": json.dumps({
            "name": "docs", "skills": ["./extra/"], "agents": ["./custom/reviewer.md"],
            "commands": ["./prompts/"],
        }),
        "extra/pdf/SKILL.md": skill_md("pdf"), "extra/pdf/notes/tips.md": "tips\n",
        "custom/reviewer.md": agent_md("reviewer"), "custom/draft.txt": "not an agent\n",
        "prompts/review.md": "Review $ARGUMENTS\n", "commands/fix.md": "Fix it\n",
        ".mcp.json": '{"mcpServers": {}}\n', "scratch/todo.md": "private\n",
    })  # fmt: skip
    code, out = stage(src, "--destdir", tmp_path / "root")
    assert code == 0, out
    staged = listing(tmp_path / "root" / STAGED / "docs")
    assert sorted(staged) == [
        ".claude-plugin", ".claude-plugin/plugin.json", ".mcp.json",
        "commands", "commands/fix.md", "custom", "custom/reviewer.md",
        "extra", "extra/pdf", "extra/pdf/SKILL.md", "extra/pdf/notes", "extra/pdf/notes/tips.md",
        "prompts", "prompts/review.md",
    ]  # fmt: skip


def test_invalid_plugin_stops_the_build_and_writes_nothing(tmp_path: Path) -> None:
    good = plugin_tree(tmp_path / "src", "good", skills=("fine",))
    bad = build_file_tree(
        tmp_path / "src/bad", {"skills/broken/SKILL.md": skill_md("broken", "''")}
    )
    code, out = stage(good, bad, "--destdir", tmp_path / "root")
    assert code == 1
    assert f"{bad}/skills/broken/SKILL.md:3: description: is empty" in out
    assert not (tmp_path / "root").exists()


def test_link_escaping_the_plugin_stops_the_build(tmp_path: Path) -> None:
    outside = build_file_tree(tmp_path / "outside", {"secret.md": "x\n"})
    src = plugin_tree(tmp_path / "src", "docs", skills=("pdf-tools",))
    (src / "skills/pdf-tools/secret.md").symlink_to(outside / "secret.md")
    code, out = stage(src, "--destdir", tmp_path / "root")
    assert code == 1
    assert f"{src}/skills/pdf-tools/secret.md: a link that leads outside the plugin" in out
    assert not (tmp_path / "root").exists()


def test_unreadable_file_stops_the_build(tmp_path: Path) -> None:
    src = plugin_tree(tmp_path / "src", "docs", skills=("pdf-tools",))
    secret = (
        build_file_tree(src, {"skills/pdf-tools/private.md": "x\n"}) / "skills/pdf-tools/private.md"
    )
    secret.chmod(0o000)
    command = [
        sys.executable,
        "-m",
        "skilltool",
        "package",
        str(src),
        "--destdir",
        str(tmp_path / "root"),
    ]
    if os.geteuid() == 0:  # root reads anything: drop the capabilities that let it
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: no file is unreadable")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 1
    assert f"{secret}: cannot be read" in result.stdout
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "root").exists()


def test_existing_destination_is_refused(tmp_path: Path) -> None:
    assert stage(BUNDLED, "--destdir", tmp_path / "root")[0] == 0
    code, out = stage(BUNDLED, "--destdir", tmp_path / "root")
    assert code == 1
    assert "already exists; stage into a clean --destdir" in out


def test_dry_run_and_json(tmp_path: Path) -> None:
    result = run("package", BUNDLED, "--destdir", tmp_path / "root", "--dry-run", "--json")
    assert result.code == 0
    data = json.loads(result.stdout)
    assert data["staged"] is False
    assert data["plugins"][0]["dest"] == str(tmp_path / "root" / STAGED / "skilltool")
    assert "agents/plugin-author.md" in data["plugins"][0]["files"]
    assert not (tmp_path / "root").exists()


def test_namespace_and_prefix(tmp_path: Path) -> None:
    code, out = stage(
        BUNDLED, "--destdir", tmp_path / "root", "--prefix", "/opt/x", "--namespace", "otto"
    )
    assert code == 0, out
    assert (tmp_path / "root/opt/x/share/otto/plugins/skilltool/agents/plugin-author.md").is_file()


def test_staged_plugin_is_a_system_plugin_that_a_user_plugin_shadows(
    tmp_path: Path, home: Path
) -> None:
    assert stage(BUNDLED, "--destdir", tmp_path / "root")[0] == 0
    env = {"XDG_DATA_DIRS": str(tmp_path / "root/usr/share")}
    data = json.loads(run("plugins", "status", "--json", env=env).stdout)
    system = [p for p in data["plugins"] if p["origin"] == "system"]
    assert [(p["name"], p["shadowed_by"]) for p in system] == [("skilltool", None)]
    plugin_tree(home / ".local/share/skilltool/plugins", "skilltool", skills=("mine",))
    data = json.loads(run("plugins", "status", "--json", env=env).stdout)
    by_origin = {p["origin"]: p for p in data["plugins"]}
    assert by_origin["user"]["shadowed_by"] is None
    assert by_origin["system"]["shadowed_by"] == str(
        home / ".local/share/skilltool/plugins/skilltool"
    )
