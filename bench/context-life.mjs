// For bench/context: a generated mind's life, deterministic for a seed. Wakes
// of the inner life (mostly idle at steady state, some thinking, some work in
// the shell with the odd large output), and now and then a person's message,
// the responder's reply and its decision. Steps are stamped as the journal
// stamps them (run_id, trigger_step, source), so bookkeeping fields are there
// for a renderer that shows them. Also: the stand-in summaries (generated
// text, not model output) and Headlong's on-disk layout of the same life.
import { Buffer } from "node:buffer";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SELF = "wren";
const PEOPLE = ["ada", "sam"];

export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

function uuid(next) {
  const h = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
  h[12] = "4";
  h[16] = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  const s = h.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

const TOPICS = ["the tide-table parser", "my garden log", "a haiku about rain", "the broken link checker", "Ada's reading list", "the weather scraper", "my goals file", "the bird-count CSV", "a note on sleep", "the recipe converter", "Sam's photo index", "the README of my tools"];
const FILES = ["notes/garden.md", "data/tides.csv", "src/parse.js", "goals.md", "logs/build.log", "drafts/rain.txt", "data/birds.csv", "src/links.js"];
const WORDS = "tide moon shore garden seed rain window lamp river stone index parser column header table count bird wren sparrow draft line verse page link error timeout fetch cache note idea plan step".split(" ");

/** Turns a seed into the text of one life. */
function texts(next) {
  const pick = (a) => a[Math.floor(next() * a.length)];
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const phrase = (n) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join("\n");
  return {
    pick,
    int,
    idleThought: () => pick(["Nothing new arrived since my last wake. A quick look at my goals before resting.", "Quiet again. Let me check whether anything in my workspace changed.", "No messages. I'll glance at the tail of my trajectory and rest if nothing calls.", "Still quiet; my goals are as I left them, so this is an idle wake."]),
    idleCmd: () => pick(["focus list", "traj tail -n 5", "ls -la notes/", "chat history --with ada | tail -3", "mem list | head -5"]),
    idleOut: () => pick([() => "1. finish the tide-table parser (doing)\n2. write one haiku a day\n3. answer Ada about the reading list (done)\n", () => lines(5, (i) => `[${i}] ${pick(["thought", "idle", "final", "observation"])}: ${phrase(int(4, 9))}`), () => lines(int(3, 6), () => `-rw-r--r-- 1 wren wren ${int(80, 9000)} Jan ${int(1, 28)} ${pick(FILES)}`), () => ""])(),
    thought: (topic) => `${pick(["I keep coming back to", "Something about", "I want to understand", "A small idea about"])} ${topic}: ${phrase(int(8, 20))}.`,
    workThought: (topic) => `${pick(["Let me look at", "Next I'll check", "I'll try to fix", "Time to extend"])} ${topic}. ${pick(["First the file itself.", "The last run failed on a header row.", "I want the counts per column.", "A grep should find where it breaks."])}`,
    workCmd: (big) =>
      big
        ? pick([`cat ${pick(["logs/build.log", "data/birds.csv", "data/tides.csv"])}`, `node src/parse.js data/tides.csv --verbose`, `grep -rn "${pick(WORDS)}" . | head -400`])
        : pick([`cat ${pick(FILES)} | head -${int(5, 30)}`, `wc -l ${pick(FILES)}`, `grep -n "${pick(WORDS)}" ${pick(FILES)}`, `node src/parse.js data/tides.csv | tail -${int(3, 10)}`, `mem search ${pick(WORDS)}`, `put notes/${pick(WORDS)}.md <<'EOF'\n${phrase(int(6, 14))}\nEOF`, `sub src/parse.js '${pick(WORDS)}' '${pick(WORDS)}'`]),
    workOut: (big) =>
      big
        ? lines(int(250, 1500), (i) => pick([() => `${2020 + (i % 6)}-0${1 + (i % 9)}-${10 + (i % 18)},${pick(WORDS)},${int(0, 999)},${int(0, 99)}.${int(0, 9)}`, () => `[${i}] ${pick(["INFO", "WARN", "DEBUG"])} ${phrase(int(5, 12))}`, () => `src/${pick(WORDS)}.js:${int(1, 400)}: ${phrase(int(4, 10))}`])())
        : lines(int(1, 18), () => pick([() => `${pick(WORDS)},${int(0, 999)},${int(0, 99)}`, () => phrase(int(3, 10)), () => `${int(1, 400)}: ${phrase(int(3, 8))}`])()),
    errOut: () => pick([`node: src/parse.js:${int(10, 200)}\nTypeError: Cannot read properties of undefined (reading '${pick(WORDS)}')`, `cat: ${pick(FILES)}: No such file or directory`, `grep: ${pick(FILES)}: No such file or directory`]),
    message: () => pick(["Hi Wren, did you get anywhere with the tide tables?", "Could you add the sparrows to the bird count?", "What are you thinking about today?", "I left a new recipe in your inbox folder.", "Thanks for the haiku yesterday!", "Is the link checker still failing on the old blog?"]),
    reply: () => pick(["Yes: the parser reads the header row now; the tide times are next.", "Added them: 14 sparrows this week, up from 9.", "Mostly about rain and the garden; a haiku is half done.", "Got it, I'll convert it to metric tonight.", "Glad you liked it. Another one is coming.", "It is: two links time out. I'll retry them with a longer timeout."]),
    observation: (fn, topic) => `${fn}: ${pick({ act: ["fixed the header bug in", "added a column to", "cleaned up", "ran the tests of"], learn: ["stored a lesson about", "wrote down what I learned from"], recall: ["brought back my notes on", "remembered how I solved"], goals: ["moved a goal about", "marked done a goal on"] }[fn])} ${topic}`,
    summary: (topic, topic2) => `I spent this stretch on ${topic}${topic2 !== topic ? ` and ${topic2}` : ""}: I ${pick(["read the files again", "ran the parser", "checked my goals", "answered a message", "rested through several quiet wakes"])}, then ${pick(["fixed a small bug", "wrote a note", "found nothing new", "tried a different approach", "stored a lesson with mem add"])}. ${pick(["It went well.", "It half worked.", "Nothing needed doing after that.", "I should come back to it."])}`,
  };
}

/**
 * A life of about `steps` steps (whole wakes, then cut to exactly `steps`).
 * Returns the steps (Reverie's format) and the blobs of their large outputs.
 */
export function makeLife({ steps, seed = 7, taskText }) {
  const next = rng(seed);
  const t = texts(next);
  let ms = Date.UTC(2026, 0, 1, 8, 0, 0);
  const out = [];
  const blobs = new Map();
  const stamp = (fields, id = uuid(next)) => {
    ms += 200 + Math.floor(next() * 4000);
    const step = { type: fields.type, step_id: id, ts: new Date(ms).toISOString(), ...fields };
    out.push(step);
    return step;
  };
  let level = 0;
  let topic = t.pick(TOPICS);
  let pending = null;
  while (out.length < steps) {
    const r = next();
    if (r < 0.05 && !pending) {
      // A person writes; the responder answers and records its decision.
      const person = t.pick(PEOPLE);
      ms += 60_000 * t.int(1, 90);
      const m = stamp({ type: "message", from: person, to: SELF, content: t.message(), source: "chat" });
      stamp({ type: "wake", reason: "message", level: 0, delay_s: 0, trigger_step: m.step_id, source: "responder" });
      stamp({ type: "message", from: SELF, to: person, content: t.reply(), reply_to: m.step_id, trigger_step: m.step_id, source: "chat" });
      stamp({ type: "observation", decision: "replied", content: `I answered ${person}.`, trigger_step: m.step_id, source: "responder" });
      pending = m;
      continue;
    }
    if (next() < 0.15) topic = t.pick(TOPICS);
    const kind = pending ? "act" : r < 0.62 ? "idle" : r < 0.78 ? "think" : t.pick(["act", "act", "act", "learn", "recall", "goals"]);
    const delay = pending ? 0 : level === 0 ? 0 : Math.min(5 * 2 ** (level - 1), 300);
    ms += delay * 1000;
    const reason = pending ? "message" : "scheduled";
    const wake = stamp({ type: "wake", reason, level, delay_s: delay, ...(pending ? { trigger_step: pending.step_id } : {}), source: "monolith" });
    const task = pending ? { reason: "message", messages: [pending] } : { reason: "scheduled", level };
    const runId = uuid(next);
    const trigger = pending?.step_id ?? wake.step_id;
    stamp({ type: "shellm-run", model: "anthropic/claude-sonnet-4-5", trigger_step: trigger, wake: wake.step_id, launched_by: "monolith" }, runId);
    const inRun = (fields, id) => stamp({ ...fields, run_id: runId, trigger_step: trigger }, id);
    inRun({ type: "prompt", content: taskText(task) });
    let inTok = 2400 + t.int(0, 9000);
    const iterate = (thought, cmd, big, fail) => {
      inRun({ type: "reasoning", thought, cmd, in_tok: (inTok += t.int(200, 2500)), out_tok: t.int(30, 400) });
      const id = uuid(next);
      const stdout = fail ? "" : big ? t.workOut(true) : cmd.startsWith("focus") || cmd.startsWith("traj") || cmd.startsWith("ls") || cmd.startsWith("chat") || cmd.startsWith("mem list") ? t.idleOut() : t.workOut(false);
      const bytes = Buffer.byteLength(stdout);
      const fields = { type: "shell-output", stdout, stderr: fail ? t.errOut() : "", exit: fail ? 1 : 0, exec_s: Math.round(next() * (big ? 3000 : 400)) / 1000, timed_out: false };
      if (bytes > 4096) {
        // As lib/trajectory/large-output cuts it: 4096 bytes inline (these texts are ASCII), the whole in a blob.
        fields.stdout = stdout.slice(0, 4096);
        Object.assign(fields, { stdout_ref: `blobs/${id}.stdout`, stdout_bytes: bytes, stdout_truncated: true });
        blobs.set(`${id}.stdout`, stdout);
      }
      inRun(fields, id);
    };
    let answer;
    if (kind === "idle") {
      iterate(t.idleThought(), t.idleCmd(), false, false);
      answer = "idle";
      level = Math.min(level + (next() < 0.34 ? 1 : 0), 8);
    } else if (kind === "think") {
      if (next() < 0.5) iterate(t.workThought(topic), t.workCmd(false), false, false);
      answer = `think: ${t.thought(topic)}`;
      level = 0;
    } else {
      const n = t.int(1, 5);
      for (let i = 0; i < n; i++) iterate(t.workThought(topic), t.workCmd(next() < 0.06), next() < 0.06, next() < 0.12);
      answer = t.observation(kind, topic);
      level = 0;
    }
    inRun({ type: "final", content: answer });
    if (answer === "idle") stamp({ type: "idle", content: "Nothing needed doing.", source: "monolith" });
    else if (answer.startsWith("think: ")) stamp({ type: "thought", content: answer.slice(7), source: "monolith" });
    else stamp({ type: "observation", content: answer, source: "monolith" });
    pending = null;
  }
  out.length = steps;
  return { steps: out, blobs };
}

/** The one first-person line per block that stands in for the summarizer (generated text, not model output). */
export function makeSummaries(seed = 11) {
  const next = rng(seed);
  const t = texts(next);
  const sealed = new Map();
  return {
    sealed,
    get: (b) => sealed.get(`${b.tier}:${b.index}`),
    /** Seal block b of the stream `ids` (positions → step ids): children's cites for tiers above 0. */
    seal(b, idsOf, fanout) {
      const key = `${b.tier}:${b.index}`;
      if (sealed.has(key)) return;
      let cites;
      if (b.tier === 0) {
        const ids = idsOf(b.index * fanout, (b.index + 1) * fanout);
        cites = [ids[t.int(0, ids.length - 1)], ids[t.int(0, ids.length - 1)]].filter((v, i, a) => a.indexOf(v) === i);
      } else {
        cites = [];
        for (let c = 0; c < fanout && cites.length < 4; c++) cites.push(sealed.get(`${b.tier - 1}:${b.index * fanout + c}`)?.cites[0]);
        cites = cites.filter(Boolean);
      }
      sealed.set(key, { content: t.summary(t.pick(TOPICS), t.pick(TOPICS)), cites });
    },
  };
}

/** Reverie's `wake` is Headlong's `monolith-wake` (the rest of the kinds are the same format). */
export function asHeadlong(step) {
  if (step.type !== "wake") return step;
  return { type: "monolith-wake", step_id: step.step_id, ts: step.ts, source: step.source === "responder" ? "responder" : "monolith-timer", content: "wake" };
}

/**
 * Write the life in Headlong's layout under `root`: `<hex8>-<slug>/trajectory.jsonl`
 * (first line the trajectory header) and `blobs/`. Returns the trajectory's id and file.
 */
export function writeHeadlong(root, { steps, blobs }, trajId, name = "monolith") {
  const dir = join(root, `${trajId.slice(0, 8)}-${name}`);
  mkdirSync(join(dir, "blobs"), { recursive: true });
  const header = { type: "trajectory", step_id: trajId, ts: steps[0]?.ts ?? new Date(0).toISOString(), name };
  const lines = [JSON.stringify(header), ...steps.map((s) => JSON.stringify(asHeadlong(s)))];
  const file = join(dir, "trajectory.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  const refs = new Set(steps.map((s) => s.stdout_ref).filter(Boolean));
  for (const [blob, text] of blobs) if (refs.has(`blobs/${blob}`)) writeFileSync(join(dir, "blobs", blob), text);
  return { dir, file, lines: lines.length };
}

export const newId = (seed) => uuid(rng(seed));
