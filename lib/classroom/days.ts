// Scripted days for the harness comparison: who writes to the mind, and
// when. A few presets, and a plain text form a teacher can edit ("HH:MM
// who: text", one message a line), parsed with an error that names the line.
export interface ScriptedMessage {
  /** Seconds since the day began (00:00). */
  atS: number;
  from: string;
  text: string;
}

export interface ScriptedDay {
  name: string;
  /** How long the day runs, seconds. */
  lengthS: number;
  messages: ScriptedMessage[];
}

export const DAY_S = 86_400;

export interface DayPreset {
  key: string;
  name: string;
  description: string;
  script: string;
}

export const DAY_PRESETS: readonly DayPreset[] = [
  {
    key: "school",
    name: "A school day",
    description: "A morning burst, a lunch question, an evening chat, long silences between.",
    script: [
      "08:00 Ada: Good morning! What are we doing today?",
      "08:02 Ada: Can you remind me what we covered yesterday?",
      "08:05 Ben: Is the homework due today?",
      "08:09 Ada: Thanks, that helps.",
      "12:30 Ben: Quick question over lunch: what is a closure?",
      "19:00 Ada: Evening! Can we go over the quiz?",
      "19:04 Ada: Question 3 confused me.",
      "19:12 Ada: Got it now, thank you. Good night!",
    ].join("\n"),
  },
  {
    key: "quiet",
    name: "A quiet day",
    description: "One message in the morning, then nothing: what does waiting cost?",
    script: "10:00 Ada: Are you still there?",
  },
  {
    key: "office",
    name: "Office hours",
    description: "A question every 20 minutes from 14:00 to 17:00.",
    script: Array.from({ length: 10 }, (_, i) => {
      const m = 14 * 60 + i * 20;
      return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")} Student ${i + 1}: question ${i + 1}`;
    }).join("\n"),
  },
];

const LINE = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s+([^:]+?):\s*(.*)$/;

export type ParsedDay = { ok: true; day: ScriptedDay } | { ok: false; error: string };

/** One message a line: `HH:MM[:SS] who: text`. Blank lines and lines starting with # are skipped. */
export function parseDay(name: string, script: string): ParsedDay {
  const messages: ScriptedMessage[] = [];
  const lines = script.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = (lines[n] ?? "").trim();
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) return { ok: false, error: `Line ${n + 1}: "${line.slice(0, 60)}" is not "HH:MM who: text" (e.g. "08:30 Ada: hello").` };
    const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
    if (h > 23 || min > 59 || s > 59) return { ok: false, error: `Line ${n + 1}: ${m[1]}:${m[2]}${m[3] ? `:${m[3]}` : ""} is not a time of day (00:00 to 23:59).` };
    messages.push({ atS: h * 3600 + min * 60 + s, from: (m[4] ?? "").trim(), text: (m[5] ?? "").trim() });
  }
  if (messages.length === 0) return { ok: false, error: 'The day has no messages: write one a line, as "08:30 Ada: hello".' };
  return { ok: true, day: { name, lengthS: DAY_S, messages } };
}

/** Seconds since midnight as HH:MM (HH:MM:SS when not on a minute). */
export function clockOf(s: number): string {
  const whole = Math.round(s);
  const hh = String(Math.floor(whole / 3600) % 24).padStart(2, "0");
  const mm = String(Math.floor((whole % 3600) / 60)).padStart(2, "0");
  const ss = whole % 60;
  return ss ? `${hh}:${mm}:${String(ss).padStart(2, "0")}` : `${hh}:${mm}`;
}
