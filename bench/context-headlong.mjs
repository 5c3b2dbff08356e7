// For bench/context: Headlong's side of the comparison.
//
// 1. headlongStyle(): the tokens of Headlong's per-call renderer for a log,
//    re-implemented from its documented behaviour (HEADLONG-FACTS "Context":
//    first step + last 50 steps + pinned steps, the skipped middle as
//    `[N steps elided]`, consecutive same-role messages joined, fields over
//    2048 bytes keep head and tail with a hint; every non-bookkeeping-named
//    field shown, run ids, timings and token counts included, keys in sorted
//    order so the code comes before the reasoning). With HEADLONG_DIR set the
//    bench also counts the real `bin/context` output, to check this one.
// 2. runHeadlong(): with a Headlong checkout, time its own per-wake path on the
//    same files: `bin/context` (as shellm calls it), `recap --context` over
//    pre-sealed rollups (as the monolith calls it), and the whole-log scan the
//    monolith makes before and after each run.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { MONOLITH_PROMPT_MD } from "./context-headlong-prompt.mjs";
import { asHeadlong, writeHeadlong } from "./context-life.mjs";

const LIMIT = 2048;
const TAIL = 50;
const ASSISTANT = new Set(["reasoning", "final"]);
const EXCLUDED = new Set(["shellm-run", "run-summary"]);
const bytes = (s) => Buffer.byteLength(s);
const rtrim = (s) => s.replace(/\n+$/, "");

/** At most n UTF-8 bytes from the head (or the tail), never half a character. */
function headBytes(s, n) {
  let b = 0;
  let i = 0;
  for (const ch of s) {
    const w = bytes(ch);
    if (b + w > n) break;
    b += w;
    i += ch.length;
  }
  return s.slice(0, i);
}
function tailBytes(s, n) {
  const chars = [...s];
  let b = 0;
  let i = chars.length;
  while (i > 0 && b + bytes(chars[i - 1]) <= n) b += bytes(chars[--i]);
  return chars.slice(i).join("");
}

function cut(v, sid) {
  const vb = bytes(v);
  if (vb <= LIMIT) return v;
  const half = Math.max(Math.floor(LIMIT / 2), 1);
  return `${rtrim(headBytes(v, half))}\n[... truncated: ${vb} bytes total. read with: traj show ${sid} --full]\n${rtrim(tailBytes(v, half))}`;
}

const isMeta = (k) => k === "step_id" || k === "ts" || k === "type" || k === "fork_parent" || k.endsWith("_ref") || k.endsWith("_bytes") || k.endsWith("_truncated");

/** A field's text as Headlong shows it: null and false are empty, objects pretty JSON, the rest as text. */
function fieldText(v) {
  if (v === null || v === undefined || v === false) return "";
  if (typeof v === "string") return v;
  if (typeof v === "object") return JSON.stringify(v, null, 2);
  return String(v);
}

function renderStep(row, blobs) {
  const sid = String(row.step_id);
  if (row.type === "fork") return `[Forked child: ${fieldText(row.child)}]`;
  if (row.type === "trajectory") return "";
  if (row.type === "merge") return row.content ? `[Merged from ${row.from_traj}: ${row.content}]` : `[Merged from ${row.from_traj}]`;
  const r = { ...row };
  for (const f of ["stdout", "stderr"]) {
    const ref = r[`${f}_ref`];
    // A large output is read back whole from its blob, then cut like any field.
    if (typeof ref === "string" && blobs.has(ref)) {
      r[f] = rtrim(blobs.get(ref));
      delete r[`${f}_truncated`];
    }
  }
  const keys = Object.keys(r).filter((k) => !isMeta(k)).sort();
  let acc = "";
  for (const k of keys) {
    const v0 = rtrim(fieldText(r[k]));
    if (v0 === "") continue;
    const v = cut(v0, sid);
    if (keys.length === 1) acc += v;
    else if (k === "cmd") acc += "```bash\n" + v + "\n```\n\n";
    else if (k === "thought") acc += `${v}\n\n`;
    else acc += `[${k}]\n${v}\n\n`;
  }
  return acc;
}

/**
 * The messages Headlong's renderer makes of `lines` (its file: header first,
 * then the steps, Headlong's kinds), with `blobs` (ref → text) and pins.
 */
export function headlongMessages(lines, blobs, pins = []) {
  const total = lines.length;
  const fed = [];
  for (let i = 0; i < total; i++) if (i < 1 || i >= total - TAIL || pins.includes(lines[i].step_id)) fed.push(i);
  const kept = [];
  const skip = [];
  for (const i of fed) {
    const row = lines[i];
    if (EXCLUDED.has(row.type)) skip.push(i);
    else kept.push({ i, row, role: ASSISTANT.has(row.type) ? "assistant" : "user" });
  }
  const gap = (a, b) => b - a - 1 - skip.filter((s) => s > a && s < b).length;
  const msgs = [];
  let last = -1;
  for (const it of kept) {
    const g = gap(last, it.i);
    if (g > 0) msgs.push({ role: "user", content: `[${g} steps elided]` });
    const c = rtrim(renderStep(it.row, blobs));
    if (c !== "") msgs.push({ role: it.role, content: c });
    last = it.i;
  }
  const g = gap(last, total);
  if (g > 0) msgs.push({ role: "user", content: `[${g} steps elided]` });
  const merged = [];
  for (const m of msgs) {
    const prev = merged[merged.length - 1];
    if (prev && prev.role === m.role) prev.content += `\n---\n${m.content}`;
    else merged.push({ ...m });
  }
  return merged;
}

/**
 * What Headlong's monolith sends on its first call of a wake, beyond what its
 * per-call renderer makes of the log (laude-institute/headlong 73df331,
 * thinkers/monolith/step and bin/shellm): every wake's prompt step is not a
 * task line but the route prompt — the identity's system prompt, the "life so
 * far" staircase (`recap --context`), the "Recent stream" block, the routing
 * signals and thinkers/monolith/prompt.md — and bin/context cuts it, like any
 * field over 2,048 bytes, to its head and tail; shellm sends its own system
 * prompt (fixed texts, its usage text, a tools list, the run and machine
 * sections). Token counts (o200k_base) of the fixed system texts in that
 * commit: shellm_system_tokens is build_system_prompt's two fixed blocks and
 * usage_text's body as it prints them (an earlier count, 1,964 + 1,046, took
 * usage_text's function wrapper too); shellm_sections_tokens is the fixed
 * words of its "Current run" and "Machine environment" sections, their values
 * (paths, host, date) not counted. The tools list and any skills are not
 * counted either, so the sum is a lower bound.
 */
export const MONOLITH_FIXED = { commit: "73df331", shellm_system_tokens: 2997, shellm_sections_tokens: 80 };

/** The identity's system prompt at the head of the route prompt (common.sh _build_system_prompt; no skills installed). */
export const identitySystemPrompt = (name, persona) => `You are an unconscious thought process of an AI person named ${name}.\n\nAbout ${name}:\n${persona}`;

/** prompt.md as load_prompt fills it in: the identity's name, its goals (none here), trailing newlines stripped by $(…). */
export const monolithPrompt = (name, goals = "") => rtrim(MONOLITH_PROMPT_MD.replaceAll("{{identity_name}}", name).replace("{{goals}}", goals));

/** The route prompt thinkers/monolith/step writes as a wake's prompt step: the life section (here: sealed summaries standing in for recap's), the recent stream, the signals, prompt.md. */
export function routePromptText(lifeText, recent, identity) {
  const life = lifeText ? `Your life so far (tiered summary, oldest→newest):\n${lifeText}\n\n` : "";
  return `<context>\n${identitySystemPrompt(identity.name, identity.persona)}\n\n${life}Recent stream (last 20 steps):\n${recent}\n\nRouting signals:\n- (no special signals — pick what best serves the mind right now)\n\n${monolithPrompt(identity.name)}\n</context>\n\nChoose ONE function for this wakeup and carry it out now.`;
}

/**
 * The monolith's first call, in tokens: the per-call render of the log in
 * which every monolith wake's prompt step (this one's and the earlier ones in
 * the rendered tail) carries its route prompt, plus shellm's system prompt.
 * Earlier route prompts are given this wake's life text (the cut keeps only
 * their first 1,024 bytes of it) and their own recent stream.
 */
export function monolithFirstCall(lines, blobs, promptId, lifeText, counter, overhead, identity) {
  const runs = new Set(lines.filter((l) => l.type === "shellm-run" && l.launched_by === "monolith").map((l) => l.step_id));
  const withRoute = lines.map((l, i) => {
    if (l.type !== "prompt" || (l.step_id !== promptId && !runs.has(l.run_id)) || i < lines.length - TAIL - 1) return l;
    return { ...l, content: routePromptText(lifeText, recentStream(lines.slice(0, i)), identity) };
  });
  const rendered = tokensOf(headlongMessages(withRoute, blobs), counter, overhead);
  const fixed = MONOLITH_FIXED.shellm_system_tokens + MONOLITH_FIXED.shellm_sections_tokens;
  const prompts = withRoute.filter((l, i) => l !== lines[i]).length;
  return { tokens: rendered + fixed + overhead, rendered, fixed, route_prompts: prompts, lines: withRoute };
}

/** Headlong's file for a life: the header line, then its steps in Headlong's kinds. */
export const headlongLines = (trajId, steps) => [{ type: "trajectory", step_id: trajId, ts: steps[0]?.ts, name: "monolith" }, ...steps.map(asHeadlong)];

/** The monolith's "Recent stream (last 20 steps)" block: signal steps as raw JSON, content cut at 1500 chars. */
export function recentStream(lines, n = 20) {
  const keep = new Set(["thought", "action", "observation", "message", "idle", "merge", "final", "reasoning"]);
  const picked = [];
  for (let i = lines.length - 1; i >= 0 && picked.length < n; i--) {
    const s = lines[i];
    if (!keep.has(s.type)) continue;
    const content = String(s.content ?? "");
    picked.push(JSON.stringify({ ...s, content: content.length > 1500 ? `${content.slice(0, 1500)}…[truncated]` : content }));
  }
  return picked.reverse().join("\n");
}

export const tokensOf = (messages, counter, overhead) => messages.reduce((n, m) => n + counter.count(m.content) + overhead, 0);

// --- Headlong's own tools, timed ---------------------------------------------

const KEEP_TYPES = new Set(["thought", "action", "observation", "message", "feedback", "final", "shellm-run", "merge"]);

function sh(cmd, args, env, timeoutMs) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t;
  if (r.error || r.status !== 0) {
    const why = r.error?.code === "ETIMEDOUT" ? `timed out after ${timeoutMs / 1000} s` : r.error ? String(r.error.message) : `exit ${r.status}`;
    return { ok: false, ms, error: `${why}: ${(r.stderr || "").trim().split("\n").slice(-3).join(" | ")}`, stdout: r.stdout ?? "" };
  }
  return { ok: true, ms, stdout: r.stdout, stderr: r.stderr };
}

function median(ms) {
  const s = [...ms].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.floor(s.length / 2)] * 10) / 10 : null;
}

/**
 * Headlong's `bin/context` on the trajectory `trajId` in the folder `trajs`
 * (Headlong's layout: `<hex8>-<name>/trajectory.jsonl`), as shellm calls it
 * before each model call: the command's arguments for bash and its
 * environment, in which no model is reachable (an `llm` under `root` that
 * always fails, so nothing can call out). bench/cli.bench.mjs times it run by
 * run beside `reverie context` on the same files.
 */
export function headlongContext({ headlongDir, root, trajs, trajId }) {
  const bin = join(headlongDir, "bin");
  const fake = join(root, "fakebin");
  mkdirSync(fake, { recursive: true });
  writeFileSync(join(fake, "llm"), "#!/bin/sh\necho 'bench: no model in the benchmark' >&2\nexit 1\n");
  chmodSync(join(fake, "llm"), 0o755);
  const env = { ...process.env, PATH: `${fake}:${bin}:${process.env.PATH}`, TRAJ_DIR: trajs, TRAJ_ID: trajId, ROOT_TRAJ_ID: trajId, NO_COLOR: "1" };
  delete env.THINK_MODEL;
  delete env.SHELLM_MODEL;
  const args = [join(bin, "context"), "--traj_dir", trajs, trajId, "--assistant-types", "reasoning,final", "--user-types", "prompt,shell-output,feedback", "--exclude-types", "shellm-run,run-summary"];
  return { cmd: "bash", args, env };
}

/**
 * Time Headlong's per-wake path on one life (already ending in an idle wake's
 * first call). `summaries` seals a block (our numbering: tier t = F^(t+1) steps)
 * over Headlong's own filtered stream, as recap keys it; they are written as its
 * sealed rollup files so `recap --context` needs no model.
 */
export function runHeadlong({ headlongDir, root, life, trajId, makeSummaries, runs, log, routeLines }) {
  const bin = join(headlongDir, "bin");
  const trajs = join(root, "trajectories");
  const { dir, file, lines } = writeHeadlong(trajs, life, trajId);
  const { env, args: ctxArgs } = headlongContext({ headlongDir, root, trajs, trajId });
  const out = { lines };

  // bin/context, as shellm calls it before each model call.
  const ctx = [];
  let ctxOut = null;
  for (let i = 0; i < runs; i++) {
    const r = sh("bash", ctxArgs, env, 60_000);
    if (!r.ok) {
      out.context = { error: r.error };
      break;
    }
    ctx.push(r.ms);
    ctxOut = r.stdout;
  }
  if (ctx.length) {
    let messages = null;
    try {
      messages = JSON.parse(ctxOut);
    } catch {
      // reported below as unparsable
    }
    out.context = { median_ms: median(ctx), runs: ctx.length, messages };
  }
  log(`  bin/context: ${out.context.error ?? `${out.context.median_ms} ms (median of ${ctx.length})`}`);

  // recap --context over sealed rollups of every complete block of its own filtered stream.
  const rows = [];
  for (const s of life.steps.map(asHeadlong)) if (KEEP_TYPES.has(s.type) && s.source !== "seed") rows.push(s.step_id);
  const F = 10;
  const seal = makeSummaries();
  const rollups = join(dir, "rollups");
  let files = 0;
  for (let tier = 0; F ** (tier + 1) <= rows.length; tier++) {
    const size = F ** (tier + 1);
    for (let b = 0; b < Math.floor(rows.length / size); b++) {
      seal.seal({ tier, index: b }, (a, z) => rows.slice(a, z), F);
      const s = seal.get({ tier, index: b });
      const t = tier + 1;
      const path = join(rollups, `t${t}`, `${String(b * size).padStart(12, "0")}-${String((b + 1) * size).padStart(12, "0")}.json`);
      mkdirSync(join(rollups, `t${t}`), { recursive: true });
      writeFileSync(path, JSON.stringify({ tier: t, start: b * size, end: (b + 1) * size, n: size, summary: s.content, themes: ["bench"], step_ids: s.cites.map((c) => c.slice(0, 8)), model: "bench/generated", prompt_version: 2, created: "2026-01-01T00:00:00" }));
      files++;
    }
  }
  writeFileSync(join(rollups, "meta.json"), JSON.stringify({ start_index: 0, updated: "2026-01-01T00:00:00" }));
  const recapArgs = [join(bin, "recap"), trajId, "--context", "--budget", "auto", "-q"];
  const first = sh("bash", recapArgs, env, 900_000);
  out.recap = { rollup_files: files, filtered_rows: rows.length };
  if (!first.ok) out.recap.error = first.error;
  else {
    out.recap.first_ms = Math.round(first.ms);
    const warm = [];
    let text = first.stdout;
    for (let i = 0; i < runs; i++) {
      const r = sh("bash", recapArgs, env, 300_000);
      if (!r.ok) {
        out.recap.error = r.error;
        break;
      }
      warm.push(r.ms);
      text = r.stdout;
    }
    out.recap.median_ms = median(warm);
    out.recap.runs = warm.length;
    out.recap.text = text;
    if (!text.trim()) out.recap.error = "printed nothing (exit 0): the staircase is empty";
  }
  log(`  recap --context: ${out.recap.error ? `FAILED: ${out.recap.error}` : `first ${out.recap.first_ms} ms (builds its render cache), then ${out.recap.median_ms} ms (median of ${out.recap.runs})`}`);

  // The monolith's whole-log scan for the last work step, made before and after each run.
  const scan = `traj cat "$TRAJ_ID" --raw 2>/dev/null | jq -Rr 'fromjson? // empty | select(.type == "thought" or .type == "action" or .type == "observation" or .type == "merge" or .type == "message") | .step_id // empty' 2>/dev/null | tail -n 1`;
  const scans = [];
  let last = "";
  for (let i = 0; i < Math.min(runs, 3); i++) {
    const r = sh("bash", ["-c", scan], env, 300_000);
    if (!r.ok) {
      out.scan = { error: r.error };
      break;
    }
    scans.push(r.ms);
    last = r.stdout.trim();
  }
  if (scans.length) out.scan = { median_ms: median(scans), per_wake_ms: Math.round(median(scans) * 2), runs: scans.length, found: last };
  if (out.scan && !out.scan.error && !out.scan.found) out.scan.error = "found no work step (traj cat printed nothing?)";
  log(`  whole-log scan: ${out.scan.error ?? `${out.scan.median_ms} ms each, two per wake`}`);
  // The monolith's render checked by Headlong's own bin/context: the same log with each wake's prompt step its route prompt (monolithFirstCall's lines).
  if (routeLines) {
    const routeTrajs = join(root, "route-trajectories");
    const routeDir = join(routeTrajs, `${trajId.slice(0, 8)}-monolith`);
    mkdirSync(join(routeDir, "blobs"), { recursive: true });
    writeFileSync(join(routeDir, "trajectory.jsonl"), `${routeLines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    for (const [blob, text] of life.blobs) writeFileSync(join(routeDir, "blobs", blob), text);
    const r = sh("bash", [join(bin, "context"), "--traj_dir", routeTrajs, ...ctxArgs.slice(3)], env, 60_000);
    try {
      out.route_context = r.ok ? { messages: JSON.parse(r.stdout) } : { error: r.error };
    } catch {
      out.route_context = { error: "bin/context printed no JSON" };
    }
    log(`  bin/context with route prompts: ${out.route_context.error ?? "rendered"}`);
  }
  out.file = file;
  return out;
}

export const headlongAvailable = (dir) => Boolean(dir) && existsSync(join(dir, "bin", "context")) && existsSync(join(dir, "bin", "recap"));
