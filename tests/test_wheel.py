"""The built wheel carries the bundled plugin and the templates, and finds them installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.helpers import REPO


def test_wheel_carries_resources_and_templates_and_finds_the_bundled_plugin(
    tmp_path: Path, home: Path
) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(REPO)],
        check=True, capture_output=True,
    )  # fmt: skip
    [wheel] = dist.glob("skilltool-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "skilltool/resources/plugins/skilltool/agents/plugin-author.md" in names
    assert "skilltool/templates/opencode/agent.md.j2" in names
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)  # fmt: skip
    (home / ".codex").mkdir()
    # run from outside the repo, with the installed copy first on the path
    code = (
        f"import sys; sys.path.insert(0, {str(target)!r}); from skilltool.entry import main; main()"
    )
    env = {**os.environ, "HOME": str(home)}
    out = subprocess.run([sys.executable, "-c", code, "plugins", "status", "--json"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=True)  # fmt: skip
    data = json.loads(out.stdout)
    [plugin] = data["plugins"]
    assert plugin["origin"] == "bundled"
    assert plugin["path"] == str(target / "skilltool/resources/plugins/skilltool")
    rendered = subprocess.run([sys.executable, "-c", code, "plugins", "render", "plugin-author",
                               "--harness", "codex"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, check=True)  # fmt: skip
    assert '"developer_instructions"' in rendered.stdout
