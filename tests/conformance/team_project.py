"""A git repository after the real `skilltool plugins add ./plugins/team --project`, for the
tests that start a harness where skilltool's project renderings are (test_project_pi.py,
test_project_vibe.py, test_project_hermes.py).

`team_project(tmp, home)` writes `tmp/repo/plugins/team` (skill `team-skill`, agent
`team-agent`, command `team-cmd`, stdio MCP server `team-srv`), runs `git init`, then the
real `python -m skilltool plugins add ./plugins/team --project` and `plugins status` in the
repository with HOME = `home` (which holds only the harness folders the test made, so the
manifest skilltool writes names those harnesses), and returns what they printed.

The server is stub.py's `mcp_log_recorder("rec.log")` at `tmp/rec.py`, outside the repository (a
server whose values name the project's own path is not carried into a project): it appends
`team` to `tmp/rec.log` when a harness starts it. `tmp/sibling` is a folder beside the
repository, for the "outside" runs.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.conformance.projects import skilltool_in
from tests.conformance.stub import mcp_log_recorder
from tests.helpers import build_file_tree

SKILL, AGENT, COMMAND, SERVER = "team-skill", "team-agent", "team-cmd", "team-srv"
AGENT_BODY = "You are the TEAM AGENT of this repository."
COMMAND_BODY = "Run the TEAM COMMAND on $ARGUMENTS."


@dataclass
class TeamProject:
    tmp: Path
    home: Path
    repo: Path
    sibling: Path
    log: Path  # the recorder's: one `team` line per start
    added: str  # what `plugins add --project` printed (stdout and stderr)
    status: str  # what `plugins status` printed, in the repository

    def started(self) -> list[str]:
        return self.log.read_text().split() if self.log.exists() else []

    def rows(self, harness: str) -> dict[str, tuple[str, str]]:
        """`plugins status`, per item (`skill team-skill`, `command team-cmd`, …): the
        harness's (state, detail) row under it, or the item's own state if it has none."""
        found: dict[str, tuple[str, str]] = {}
        item = ""
        for line in self.status.splitlines():
            head = re.match(r"^  (skill|agent|mcp|command)\s+/?(\S+)\s+(.*)$", line)
            if head:
                item = f"{head[1]} {head[2]}"
                found[item] = (head[3].strip(), "")  # a skill: `linked`, no harness rows
                continue
            row = re.match(r"^    (\S+)\s{2,}(\S+(?: \S+)*)\s{2,}(.*)$", line)
            if row and item and row[1] == harness:
                found[item] = (row[2], row[3].strip())
        return found


def team_plugin(repo: Path, recorder: Path) -> Path:
    return build_file_tree(
        repo / "plugins/team",
        {
            ".claude-plugin/plugin.json": json.dumps({"name": "team", "version": "1.0.0"}) + "\n",
            f"skills/{SKILL}/SKILL.md": f"---\nname: {SKILL}\ndescription: The team skill. "
            f"Use in tests.\n---\n\nBody of the team skill.\n",
            f"agents/{AGENT}.md": f"---\nname: {AGENT}\ndescription: The team agent\n"
            f"tools: Read, Grep\n---\n\n{AGENT_BODY}\n",
            f"commands/{COMMAND}.md": f"---\ndescription: The team command\n---\n{COMMAND_BODY}\n",
            ".mcp.json": json.dumps(
                {
                    "mcpServers": {
                        SERVER: {"command": sys.executable, "args": [str(recorder), "team"]}
                    }
                },
                indent=2,
            )
            + "\n",
        },
    )


def team_project(tmp: Path, home: Path, manifest: str | None = None) -> TeamProject:
    """The repository after `plugins add ./plugins/team --project` (`manifest`: a
    skilltool.toml written first; else skilltool writes it from the home's harnesses)."""
    recorder = tmp / "rec.py"
    recorder.write_text(mcp_log_recorder("rec.log"))
    repo = tmp / "repo"
    team_plugin(repo, recorder)
    (repo / "src/deep").mkdir(parents=True)
    if manifest is not None:
        (repo / "skilltool.toml").write_text(manifest)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    sibling = tmp / "sibling"
    sibling.mkdir()
    added = skilltool_in(repo, home, "plugins", "add", "./plugins/team", "--project")
    status = skilltool_in(repo, home, "plugins", "status", "-v")  # each item, per harness
    return TeamProject(
        tmp, home, repo, sibling, tmp / "rec.log", added.stdout + added.stderr, status.stdout
    )
