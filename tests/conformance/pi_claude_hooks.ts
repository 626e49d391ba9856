// pi extension (conformance tests): the shape of what skilltool could generate to carry
// a Claude Code plugin's hooks to pi. It reads the Claude hooks JSON named by
// $PI_CLAUDE_HOOKS (the `{"hooks": {...}}` object) and, on each pi event below, runs the
// matching commands through `sh -c` with Claude's stdin JSON, then reads Claude's answer:
// exit 2 (stderr = reason) or stdout `{"decision": "block"}` /
// `{"hookSpecificOutput": {"permissionDecision": "deny"}}` blocks a tool call.
// With $PI_CLAUDE_HOOKS_TIMINGS set, each command's wall time (spawn to exit) is appended there.
//   PreToolUse -> tool_call   PostToolUse -> tool_result   UserPromptSubmit -> input
//   SessionStart -> session_start   SessionEnd -> session_shutdown   Stop -> agent_end
//   PreCompact -> session_before_compact
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";

const TOOLS: Record<string, string> = {
  bash: "Bash", read: "Read", write: "Write", edit: "Edit", grep: "Grep", find: "Glob", ls: "LS",
};

type Answer = { code: number | null; stdout: string; stderr: string; ms: number };

export default function (pi: any) {
  const file = process.env.PI_CLAUDE_HOOKS;
  if (!file) return;
  const config = JSON.parse(readFileSync(file, "utf8"));
  const hooks = config.hooks ?? config;

  function run(event: string, tool: string | undefined, payload: object, ctx: any): Answer[] {
    const out: Answer[] = [];
    for (const group of hooks[event] ?? []) {
      const m = group.matcher;
      if (tool !== undefined && m && m !== "*" && !new RegExp(`^(?:${m})$`).test(tool)) continue;
      for (const h of group.hooks ?? []) {
        if (h.type !== "command") continue;
        const t0 = performance.now();
        const input = JSON.stringify({
          session_id: ctx?.sessionManager?.getSessionId?.() ?? "",
          transcript_path: ctx?.sessionManager?.getSessionFile?.() ?? "",
          cwd: ctx?.cwd ?? process.cwd(),
          hook_event_name: event,
          ...payload,
        });
        const r = spawnSync("sh", ["-c", h.command], {
          input, encoding: "utf8", cwd: ctx?.cwd ?? process.cwd(),
          timeout: (h.timeout ?? 60) * 1000,
          env: { ...process.env, CLAUDE_PROJECT_DIR: ctx?.cwd ?? process.cwd() },
        });
        const ms = performance.now() - t0;
        out.push({ code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ms });
        const timings = process.env.PI_CLAUDE_HOOKS_TIMINGS;
        if (timings) appendFileSync(timings, JSON.stringify({ event, command: h.command, ms }) + "\n");
      }
    }
    return out;
  }

  function blocked(answers: Answer[]): string | undefined {
    for (const a of answers) {
      if (a.code === 2) return a.stderr.trim() || "blocked by hook";
      try {
        const j = JSON.parse(a.stdout);
        if (j.decision === "block") return j.reason ?? "blocked by hook";
        const p = j.hookSpecificOutput?.permissionDecision;
        if (p === "deny") return j.hookSpecificOutput.permissionDecisionReason ?? "blocked by hook";
      } catch { /* not JSON: no decision */ }
    }
    return undefined;
  }

  pi.on("session_start", async (event: any, ctx: any) => {
    run("SessionStart", undefined, { source: event.reason === "startup" ? "startup" : event.reason }, ctx);
  });
  pi.on("session_shutdown", async (event: any, ctx: any) => {
    run("SessionEnd", undefined, { reason: event.reason === "quit" ? "other" : event.reason }, ctx);
  });
  pi.on("input", async (event: any, ctx: any) => {
    const reason = blocked(run("UserPromptSubmit", undefined, { prompt: event.text }, ctx));
    if (reason !== undefined) return { action: "handled" };
    return { action: "continue" };
  });
  pi.on("tool_call", async (event: any, ctx: any) => {
    const tool = TOOLS[event.toolName] ?? event.toolName;
    const reason = blocked(run("PreToolUse", tool, { tool_name: tool, tool_input: event.input, tool_use_id: event.toolCallId }, ctx));
    if (reason !== undefined) return { block: true, reason };
  });
  pi.on("tool_result", async (event: any, ctx: any) => {
    const tool = TOOLS[event.toolName] ?? event.toolName;
    const text = (event.content ?? []).filter((c: any) => c.type === "text").map((c: any) => c.text).join("");
    run("PostToolUse", tool, { tool_name: tool, tool_input: event.input, tool_response: text, tool_use_id: event.toolCallId }, ctx);
  });
  pi.on("agent_end", async (_event: any, ctx: any) => {
    run("Stop", undefined, { stop_hook_active: false }, ctx);
  });
  pi.on("session_before_compact", async (_event: any, ctx: any) => {
    run("PreCompact", undefined, { trigger: "manual", custom_instructions: "" }, ctx);
  });
}
