// The scenario of issue 23's own example, as a file would hold it: shared by the
// format's tests and the scorer's.
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
