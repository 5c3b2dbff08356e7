// The connection test behind the form's button: one tiny real call with the
// settings as typed, so a wrong key, model name or URL shows before the mind
// starts. It costs a few tokens.
import { generateText } from "ai";
import { describeModelError } from "./complete";
import { createModel, type ModelEnv } from "./model";
import { settingsProblems, type ModelSettings } from "./settings";

export type ConnectionResult = { ok: true; detail: string } | { ok: false; error: string };

/** Long enough for a slow local model to load; a test must not hang the form. */
const TEST_TIMEOUT_MS = 30_000;

export async function testConnection(settings: ModelSettings, env: ModelEnv = {}): Promise<ConnectionResult> {
  const problems = settingsProblems(settings);
  if (problems.length) return { ok: false, error: problems.join(" ") };
  const started = Date.now();
  try {
    const result = await generateText({
      model: createModel(settings, env),
      prompt: "Reply with the word ok.",
      maxOutputTokens: 16,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
    const said = result.text.trim().slice(0, 40);
    return { ok: true, detail: `ok: ${settings.model} answered in ${((Date.now() - started) / 1000).toFixed(1)} s${said ? ` ("${said}")` : ""}` };
  } catch (e) {
    return { ok: false, error: describeModelError(e) };
  }
}
