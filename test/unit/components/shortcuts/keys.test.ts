// Key combinations: parsed from their written form, matched against keydown
// events as a browser reports them (a US layout: "?" is Shift+/, "G" is
// Shift+g), typing targets told apart, and the shortcuts a key triggers.
import { describe, expect, it } from "vitest";
import { comboKeys, isTypingTarget, matchesCombo, parseCombo, shortcutsFor, type KeyLike, type ShortcutEntry } from "@/components/shortcuts/keys";

const key = (k: string, mods: Partial<Omit<KeyLike, "key">> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

describe("parseCombo", () => {
  it("reads modifiers and the key, including '+' itself", () => {
    expect(parseCombo("Mod+Enter")).toEqual({ key: "Enter", mod: true, shift: false, alt: false });
    expect(parseCombo("shift+alt+End")).toEqual({ key: "End", mod: false, shift: true, alt: true });
    expect(parseCombo("?")).toEqual({ key: "?", mod: false, shift: false, alt: false });
    expect(parseCombo("+")).toEqual({ key: "+", mod: false, shift: false, alt: false });
    expect(parseCombo("Mod++")).toEqual({ key: "+", mod: true, shift: false, alt: false });
  });

  it("refuses what is not a combination, saying how to write one", () => {
    expect(() => parseCombo("Hyper+x")).toThrow('Not a key combination: "Hyper+x" (write e.g. "Mod+Enter", "?", "End")');
    expect(() => parseCombo("")).toThrow('Not a key combination: ""');
  });
});

describe("matchesCombo", () => {
  it("takes Ctrl or ⌘ for Mod, and no modifier for a plain key", () => {
    const send = parseCombo("Mod+Enter");
    expect([key("Enter", { ctrlKey: true }), key("Enter", { metaKey: true }), key("Enter"), key("Enter", { ctrlKey: true, shiftKey: true }), key("Enter", { ctrlKey: true, altKey: true })].map((e) => matchesCombo(send, e))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    const end = parseCombo("End");
    expect([key("End"), key("end"), key("End", { ctrlKey: true }), key("End", { shiftKey: true })].map((e) => matchesCombo(end, e))).toEqual([true, true, false, false]);
  });

  it("lets a printable character carry its own Shift: '?' and 'G' match with Shift held, 'g' and '/' do not match them", () => {
    expect(matchesCombo(parseCombo("?"), key("?", { shiftKey: true }))).toBe(true);
    expect(matchesCombo(parseCombo("?"), key("/"))).toBe(false);
    expect(matchesCombo(parseCombo("G"), key("G", { shiftKey: true }))).toBe(true);
    expect(matchesCombo(parseCombo("G"), key("g"))).toBe(false);
    expect(matchesCombo(parseCombo("/"), key("/", { ctrlKey: true }))).toBe(false);
    expect(matchesCombo(parseCombo("."), key("."))).toBe(true);
  });
});

describe("isTypingTarget", () => {
  it("counts text fields, text areas, selects and editable content as typing; buttons, checkboxes and the page as not", () => {
    const cases: [Parameters<typeof isTypingTarget>[0], boolean][] = [
      [{ tagName: "INPUT", type: "text" }, true],
      [{ tagName: "INPUT", type: "search" }, true],
      [{ tagName: "INPUT" }, true],
      [{ tagName: "INPUT", type: "range" }, true],
      [{ tagName: "TEXTAREA" }, true],
      [{ tagName: "SELECT" }, true],
      [{ tagName: "DIV", isContentEditable: true }, true],
      [{ tagName: "INPUT", type: "checkbox" }, false],
      [{ tagName: "INPUT", type: "file" }, false],
      [{ tagName: "BUTTON" }, false],
      [{ tagName: "BODY", isContentEditable: false }, false],
      [null, false],
    ];
    expect(cases.map(([t]) => isTypingTarget(t))).toEqual(cases.map(([, typing]) => typing));
  });
});

describe("shortcutsFor", () => {
  const entry = (id: string, keys: string[], inInputs = false): ShortcutEntry => ({ id, combos: keys.map(parseCombo), description: id, inInputs });
  const entries = [entry("help", ["?"]), entry("send", ["Mod+Enter"], true), entry("newest", ["End", "G"]), entry("page-help", ["?"])];
  const ids = (e: KeyLike, typing: boolean) => shortcutsFor(entries, e, typing).map((s) => s.id);

  it("finds every match, the latest registered first", () => {
    expect(ids(key("?", { shiftKey: true }), false)).toEqual(["page-help", "help"]);
    expect(ids(key("G", { shiftKey: true }), false)).toEqual(["newest"]);
    expect(ids(key("End"), false)).toEqual(["newest"]);
    expect(ids(key("x"), false)).toEqual([]);
  });

  it("while typing, only the shortcuts that apply in fields", () => {
    expect(ids(key("?", { shiftKey: true }), true)).toEqual([]);
    expect(ids(key("End"), true)).toEqual([]);
    expect(ids(key("Enter", { metaKey: true }), true)).toEqual(["send"]);
  });
});

describe("comboKeys", () => {
  it("names each key as the help overlay shows it", () => {
    expect(["Mod+Enter", "Mod+Shift+Alt+k", "?", "End", " "].map((k) => comboKeys(parseCombo(k)))).toEqual([["Ctrl/⌘", "Enter"], ["Ctrl/⌘", "Alt", "Shift", "k"], ["?"], ["End"], ["Space"]]);
  });
});
