import { describe, expect, it } from "vitest";
import { scrubber, scrubStepJson } from "@/lib/sync/client/scrub";
import { FAKE_KEYS, openaiStyle } from "../../../fixtures/fake-keys";

const none = scrubber([]);

describe("scrubbing secrets before upload", () => {
  it("redacts each common key pattern and leaves the words around it", () => {
    const text = [
      `openai ${FAKE_KEYS.openaiProject} ok`,
      `anthropic ${FAKE_KEYS.anthropic} end`,
      `google ${FAKE_KEYS.google}.`,
      `github ${FAKE_KEYS.githubClassic} and ${FAKE_KEYS.githubFineGrained}`,
      `slack ${FAKE_KEYS.slack}`,
      `aws ${FAKE_KEYS.aws} here`,
      "curl -H 'Authorization: Bearer abc.def-ghi_123'",
    ].join("\n");
    expect(none(text)).toBe(
      [
        "openai [redacted] ok",
        "anthropic [redacted] end",
        "google [redacted].",
        "github [redacted] and [redacted]",
        "slack [redacted]",
        "aws [redacted] here",
        "curl -H 'Authorization: Bearer [redacted]'",
      ].join("\n"),
    );
  });

  it("redacts a PEM private key block whole, but not a public key", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc==\n-----END RSA PRIVATE KEY-----";
    const pub = "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----";
    expect(none(`key:\n${pem}\nand ${pub}`)).toBe(`key:\n[redacted]\nand ${pub}`);
  });

  it("redacts a key this browser holds even when it matches no pattern, longest first", () => {
    const scrub = scrubber(["my-local-secret", "my-local-secret-2", "short"]);
    expect(scrub("a my-local-secret-2 b my-local-secret c short")).toBe("a [redacted] b [redacted] c short");
  });

  it("leaves ordinary text alone", () => {
    const text = `skeleton ${openaiStyle("short")} Bearer x AKIA123 ghp_short`;
    expect(none(text)).toBe(text);
  });

  it("keeps step JSON valid and finds keys written with JSON escapes", () => {
    const step = { type: "shell-output", step_id: "s1", stdout: 'KEY="held/key\\with\tescapes" done', nested: { list: [`x ${openaiStyle("abcdefghijklmnopqrstuvwxyz")} y`] }, exit: 0 };
    const json = JSON.stringify(step);
    // The key's slash written as \/, legal JSON that JSON.stringify never emits.
    const escaped = json.replace("held/key", "held\\/key");
    const out = scrubStepJson(escaped, scrubber(['held/key\\with\tescapes']));
    expect(JSON.parse(out)).toEqual({ ...step, stdout: 'KEY="[redacted]" done', nested: { list: ["x [redacted] y"] } });
  });

  it("returns an untouched step's exact bytes", () => {
    const json = '{"type":"thought","step_id":"s1","content":"nothing secret",  "n":1}';
    expect(scrubStepJson(json, scrubber(["not-in-there"]))).toBe(json);
  });
});
