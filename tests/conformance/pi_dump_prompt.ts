// pi extension for the conformance tests: writes pi's system prompt to a file on
// session_start, so a test can read what pi would send, offline and without a model.
// Load it with `pi -e pi_dump_prompt.ts`, or copy it into ~/.pi/agent/extensions/
// (pi-acp passes no -e). Output: $PI_DUMP_PROMPT_FILE, else $TMPDIR/pi-system-prompt.txt.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

export default function (pi: any) {
  pi.on("session_start", async (_event: any, ctx: any) => {
    const out = process.env.PI_DUMP_PROMPT_FILE || join(tmpdir(), "pi-system-prompt.txt");
    writeFileSync(out, ctx.getSystemPrompt(), "utf8");
  });
}
