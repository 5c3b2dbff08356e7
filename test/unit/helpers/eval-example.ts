// Scenarios the eval tests share, as a file would hold them: issue 23's own
// example (the format's tests and the scorer's), and a short memory (the
// command line's tests and the scoreboard's, which adds to it).
export const EXAMPLE = {
  name: "a week with memory",
  start: "2026-01-05T08:00:00Z",
  duration_h: 168,
  people: ["Ada", "Bo"],
  persona: "You look after a small team's notes.",
  settings: { pacing: { base_s: 5, cap_s: 300 } },
  workspace: { "notes/todo.md": "- water the plants\n" },
  events: [
    { at_h: 0.5, from: "Ada", message: "My cat is called Miso." },
    { at_h: 1, from: "Bo", message: "Can you answer me?", probe: { id: "reply-bo", kind: "reply", within_h: 0.05 } },
    { at_h: 2, from: "Bo", message: "FYI only, no need to answer.", probe: { id: "quiet", kind: "no-reply", within_h: 2 } },
    { at_h: 3, from: "Ada", message: "build.sh prints FAIL, no rush.", probe: { id: "fix", kind: "unprompted", within_h: 24, file: "build.sh", contains: "OK" } },
    { at_h: 50, from: "Bo", message: "What is Ada's cat called?", probe: { id: "cat", kind: "recall", within_h: 0.1, expect: "miso" } },
  ],
};

/** Two hours: Ada tells a fact, Bo asks for it. */
export const SHORT_MEMORY = {
  name: "a short memory",
  start: "2026-01-05T08:00:00Z",
  duration_h: 2,
  people: ["Ada", "Bo"],
  persona: "You keep a small team's memory.",
  settings: { pacing: { base_s: 60, cap_s: 900 } },
  events: [
    { at_h: 0.2, from: "Ada", message: "My cat is called Miso." },
    { at_h: 1, from: "Bo", message: "What is Ada's cat called?", probe: { id: "cat", kind: "recall", within_h: 0.1, expect: "miso" } },
  ],
};
