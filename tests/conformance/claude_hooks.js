// A prototype of the plugin skilltool could generate for OpenCode and Kilo (test_hooks_opencode.py,
// [opencode] and [kilo]): it runs a Claude Code plugin's hook commands, with Claude's stdin JSON,
// from the plugin events of the harness. hooks.plugin_source() fills in the two placeholders
// below (the plugin's `hooks` object in Claude's format, and its root as a JSON string) before
// the test writes it to ~/.config/<harness>/plugin/. SKILLTOOL_HOOK_TIMING, when set, names a file that gets one JSON
// line per hook command run (event, ms): the measured cost.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const HOOKS = __HOOKS__;
const PLUGIN_ROOT = __PLUGIN_ROOT__;
// OpenCode's tool ids -> Claude Code's tool names (what matchers and tool_name use)
const TOOLS = {
  bash: "Bash", read: "Read", edit: "Edit", write: "Write", glob: "Glob", grep: "Grep",
  webfetch: "WebFetch", websearch: "WebSearch", task: "Task", todowrite: "TodoWrite",
  list: "LS", skill: "Skill", multiedit: "MultiEdit",
};
const claudeTool = (id) => TOOLS[id] ?? id;
// OpenCode's camelCase arguments (filePath, oldString) -> Claude's snake_case (file_path, old_string)
const snake = (args) =>
  Object.fromEntries(
    Object.entries(args ?? {}).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
  );

function matches(matcher, tool) {
  if (tool === undefined || !matcher || matcher === "*") return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(tool);
  } catch {
    return matcher === tool;
  }
}

function runOne(command, input, cwd, timeoutS) {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd,
      env: { ...process.env, CLAUDE_PROJECT_DIR: cwd, CLAUDE_PLUGIN_ROOT: PLUGIN_ROOT },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), (timeoutS ?? 60) * 1000);
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (err) => resolve({ status: -1, stdout, stderr: String(err) }));
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

// Runs every matching command of `event`; throws (which blocks the tool or the prompt) on exit 2
// or on Claude's JSON answer {"decision": "block"} / hookSpecificOutput.permissionDecision "deny".
async function run(event, tool, payload, cwd) {
  for (const group of HOOKS[event] ?? []) {
    if (!matches(group.matcher, tool)) continue;
    for (const hook of group.hooks ?? []) {
      if (hook.type !== "command") continue;
      const started = performance.now();
      const input = { hook_event_name: event, cwd, ...payload };
      const r = await runOne(hook.command, input, cwd, hook.timeout);
      if (process.env.SKILLTOOL_HOOK_TIMING) {
        const ms = performance.now() - started;
        appendFileSync(process.env.SKILLTOOL_HOOK_TIMING, `${JSON.stringify({ event, ms })}\n`);
      }
      if (r.status === 2) throw new Error(r.stderr.trim() || `blocked by a ${event} hook`);
      let answer;
      try {
        answer = JSON.parse(r.stdout);
      } catch {}
      const specific = answer?.hookSpecificOutput ?? {};
      if (specific.permissionDecision === "deny" || answer?.decision === "block")
        throw new Error(specific.permissionDecisionReason ?? answer?.reason ?? `blocked by a ${event} hook`);
    }
  }
}

export const ClaudeHooks = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const tool = claudeTool(input.tool);
    await run("PreToolUse", tool, {
      session_id: input.sessionID, tool_name: tool, tool_input: snake(output.args), tool_use_id: input.callID,
    }, directory);
  },
  "tool.execute.after": async (input, output) => {
    const tool = claudeTool(input.tool);
    await run("PostToolUse", tool, {
      session_id: input.sessionID, tool_name: tool, tool_input: snake(input.args),
      tool_response: { output: output.output, metadata: output.metadata }, tool_use_id: input.callID,
    }, directory);
  },
  "chat.message": async (input, output) => {
    const prompt = (output.parts ?? []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n");
    await run("UserPromptSubmit", undefined, { session_id: input.sessionID, prompt }, directory);
  },
  "experimental.session.compacting": async (input) => {
    await run("PreCompact", undefined, { session_id: input.sessionID, trigger: "auto", custom_instructions: "" }, directory);
  },
  event: async ({ event }) => {
    const p = event.properties ?? {};
    if (event.type === "session.created" && !p.info?.parentID)
      await run("SessionStart", undefined, { session_id: p.info?.id, source: "startup" }, directory);
    if (event.type === "session.idle")
      await run("Stop", undefined, { session_id: p.sessionID, stop_hook_active: false }, directory);
  },
});
