// lib/mind/run/reply.ts: a model reply split into reasoning (before the first
// fence) and the first bash block, whose end a fence inside a heredoc does
// not make.
import { describe, expect, it } from "vitest";
import { parseReply } from "../../../../lib/mind/run/reply";

const F = "```";

describe("parseReply: which fences open a block that runs", () => {
  it.each(["bash", "sh", "shell", "BASH", "Shell"])("```%s", (lang) => {
    expect(parseReply(`Look around.\n\n${F}${lang}\nls -la\npwd\n${F}\n`)).toEqual({
      reasoning: "Look around.",
      code: "ls -la\npwd",
      droppedBlocks: 0,
    });
  });

  it("a bare fence", () => {
    expect(parseReply(`Check the date.\n${F}\ndate\n${F}`)).toEqual({ reasoning: "Check the date.", code: "date", droppedBlocks: 0 });
  });

  it("spaces after the fence and around the language", () => {
    expect(parseReply(`x\n${F} bash  \necho a\n${F}   \n`)).toEqual({ reasoning: "x", code: "echo a", droppedBlocks: 0 });
  });

  it("a fence after text on its line, or indented by 4 spaces or more, does not open a block", () => {
    const text = `Use ${F}bash blocks\n    ${F}bash\necho no\n    ${F}`;
    expect(parseReply(text)).toEqual({ reasoning: text, code: null, droppedBlocks: 0 });
    const tab = `x\n\t${F}bash\necho no\n\t${F}`;
    expect(parseReply(tab)).toEqual({ reasoning: tab, code: null, droppedBlocks: 0 });
  });

  it.each([1, 2, 3])("a fence indented by %i space(s) opens and closes a block (CommonMark)", (n) => {
    const pad = " ".repeat(n);
    expect(parseReply(`Look.\n${pad}${F}bash\n${pad}ls -la\n${pad}${F}\nafter`)).toEqual({ reasoning: "Look.", code: "ls -la", droppedBlocks: 0 });
  });

  it("a fenced block inside a list item: its indentation is removed from the code, so heredocs still end", () => {
    const text = [
      "Steps:",
      "1. Write the file:",
      `   ${F}bash`,
      "   cat <<EOF > a.txt",
      `   ${F}`,
      "     indented more",
      "   EOF",
      "   wc -l a.txt",
      `   ${F}`,
      "2. Done.",
    ].join("\n");
    expect(parseReply(text)).toEqual({
      reasoning: "Steps:\n1. Write the file:",
      code: ["cat <<EOF > a.txt", F, "  indented more", "EOF", "wc -l a.txt"].join("\n"),
      droppedBlocks: 0,
    });
  });

  it("a block opened without indentation closes at a fence indented by up to 3 spaces, not 4", () => {
    expect(parseReply(`${F}bash\necho a\n   ${F}\nafter`)).toEqual({ reasoning: "", code: "echo a", droppedBlocks: 0 });
    expect(parseReply(`${F}bash\necho a\n    ${F}\necho b\n${F}`)).toEqual({ reasoning: "", code: `echo a\n    ${F}\necho b`, droppedBlocks: 0 });
  });

  it("an indented block in another language stays in the reasoning as written", () => {
    const text = `- try:\n  ${F}python\n  print(1)\n  ${F}\n${F}bash\necho go\n${F}`;
    expect(parseReply(text)).toEqual({ reasoning: `- try:\n  ${F}python\n  print(1)\n  ${F}`, code: "echo go", droppedBlocks: 0 });
  });

  it("an empty block is empty code, not no code", () => {
    expect(parseReply(`Nothing.\n${F}bash\n${F}`)).toEqual({ reasoning: "Nothing.", code: "", droppedBlocks: 0 });
  });
});

describe("parseReply: replies without code", () => {
  it("no fence: code is null and the reasoning is the whole text, trimmed", () => {
    expect(parseReply("  I will just think about the sea today.\nNothing to run.\n\n")).toEqual({
      reasoning: "I will just think about the sea today.\nNothing to run.",
      code: null,
      droppedBlocks: 0,
    });
  });

  it("the empty reply", () => {
    expect(parseReply("")).toEqual({ reasoning: "", code: null, droppedBlocks: 0 });
  });

  it("only a python block: kept in the reasoning, nothing runs", () => {
    const text = `Here is the idea:\n${F}python\nprint("hi")\n${F}\nThat is all.`;
    expect(parseReply(text)).toEqual({ reasoning: `Here is the idea:\n${F}python\nprint("hi")\n${F}\nThat is all.`, code: null, droppedBlocks: 0 });
  });
});

describe("parseReply: several blocks", () => {
  it("the first runs; the other bash blocks are counted as dropped; text between them is not reasoning", () => {
    const text = [
      "First I list, then I count.",
      `${F}bash`,
      "ls",
      F,
      "And then:",
      `${F}sh`,
      "wc -l *",
      F,
      F,
      "echo third",
      F,
    ].join("\n");
    expect(parseReply(text)).toEqual({ reasoning: "First I list, then I count.", code: "ls", droppedBlocks: 2 });
  });

  it("a block in another language after the bash block is neither run nor counted", () => {
    const text = `Go.\n${F}bash\necho 1\n${F}\n${F}json\n{"a": 1}\n${F}\n${F}bash\necho 2\n${F}`;
    expect(parseReply(text)).toEqual({ reasoning: "Go.", code: "echo 1", droppedBlocks: 1 });
  });

  it("a python block before the bash block stays in the reasoning and is not run", () => {
    const text = [
      "I could do it in Python:",
      `${F}python`,
      "import os",
      "print(os.listdir())",
      F,
      "but bash is what I have.",
      `${F}bash`,
      "ls",
      F,
    ].join("\n");
    expect(parseReply(text)).toEqual({
      reasoning: `I could do it in Python:\n${F}python\nimport os\nprint(os.listdir())\n${F}\nbut bash is what I have.`,
      code: "ls",
      droppedBlocks: 0,
    });
  });

  it("a ```bash line inside a python block neither closes it nor opens a block", () => {
    const text = `${F}python\n${F}bash\necho inside\n${F}\n${F}bash\necho real\n${F}`;
    expect(parseReply(text)).toEqual({ reasoning: `${F}python\n${F}bash\necho inside\n${F}`, code: "echo real", droppedBlocks: 0 });
  });
});

describe("parseReply: heredocs", () => {
  it("cat <<'EOF' with fences inside does not end the block", () => {
    const code = ["cat <<'EOF' > notes.md", "# Notes", F + "bash", "echo example", F, "EOF", "echo written"].join("\n");
    expect(parseReply(`Write the notes.\n${F}bash\n${code}\n${F}\nafter`)).toEqual({
      reasoning: "Write the notes.",
      code,
      droppedBlocks: 0,
    });
  });

  it('<<"EOF" and << EOF (with a space) open heredocs too', () => {
    const a = ['cat <<"EOF"', F, "EOF"].join("\n");
    const b = ["cat << END", F, "END"].join("\n");
    expect(parseReply(`${F}bash\n${a}\n${F}`).code).toBe(a);
    expect(parseReply(`${F}bash\n${b}\n${F}`).code).toBe(b);
  });

  it("<<-EOF ends at a tab-indented delimiter, and the block closes after it", () => {
    const code = ["if true; then", "\tcat <<-EOF", F, "\t\tEOF", "fi"].join("\n");
    expect(parseReply(`${F}bash\n${code}\n${F}\ntrailing words`)).toEqual({ reasoning: "", code, droppedBlocks: 0 });
  });

  it("<<EOF (without -) is not ended by a tab-indented delimiter", () => {
    // The heredoc is still open at "\tEOF", so the fence after it is heredoc
    // text and the block runs to the real end of the heredoc.
    const code = ["cat <<EOF", "\tEOF", F, "EOF", "echo after"].join("\n");
    expect(parseReply(`${F}bash\n${code}\n${F}`).code).toBe(code);
  });

  it("two heredocs on one line end one after the other", () => {
    const code = ["paste <<A <<B", F, "A", F, "B", "echo ok"].join("\n");
    expect(parseReply(`${F}bash\n${code}\n${F}\nlater`)).toEqual({ reasoning: "", code, droppedBlocks: 0 });
  });

  it("a here-string <<< does not start a heredoc", () => {
    const text = `${F}bash\ncat <<<EOF\n${F}\nThen:\n${F}bash\necho second\n${F}`;
    expect(parseReply(text)).toEqual({ reasoning: "", code: "cat <<<EOF", droppedBlocks: 1 });
  });

  it("<< after a # is a comment, not a heredoc", () => {
    const text = `${F}bash\necho hi # like <<EOF\n${F}\n${F}bash\necho two\n${F}`;
    expect(parseReply(text)).toEqual({ reasoning: "", code: "echo hi # like <<EOF", droppedBlocks: 1 });
  });

  it.each([
    ['echo "a <<EOF b"'],
    ["echo 'a <<EOF b'"],
    ['echo "say \\"<<EOF\\" loud"'],
    ["printf $'it\\'s <<EOF'"],
    ['echo "a #" <<<x "<<EOF"'],
  ])("<< inside quotes opens no heredoc: %s", (line) => {
    const text = `${F}bash\n${line}\n${F}\n${F}bash\necho two\n${F}`;
    expect(parseReply(text)).toEqual({ reasoning: "", code: line, droppedBlocks: 1 });
  });

  it("a heredoc after a quoted string on the same line still opens", () => {
    const code = ['echo "<<NOT" \'#\' "a \\" b"; cat <<EOF', F, "EOF"].join("\n");
    expect(parseReply(`${F}bash\n${code}\n${F}\nafter`)).toEqual({ reasoning: "", code, droppedBlocks: 0 });
  });

  it("an escaped quote outside quotes does not start a string", () => {
    const code = ["echo don\\'t; cat <<EOF", F, "EOF"].join("\n");
    expect(parseReply(`${F}bash\n${code}\n${F}`).code).toBe(code);
  });

  it("<<\\EOF opens a heredoc", () => {
    const code = ["cat <<\\EOF", F, "EOF"].join("\n");
    expect(parseReply(`${F}bash\n${code}\n${F}\nafter`)).toEqual({ reasoning: "", code, droppedBlocks: 0 });
  });

  it("a # that starts a word after ; is a comment too", () => {
    expect(parseReply(`${F}bash\necho hi;# <<EOF\n${F}\nafter`)).toEqual({ reasoning: "", code: "echo hi;# <<EOF", droppedBlocks: 0 });
  });

  it("a block in another language does not track heredocs: <<EOF in python does not swallow the bash block after it", () => {
    const text = [`${F}python`, 'print("""', "cat <<EOF", '""")', F, "Now:", `${F}bash`, "echo real", F].join("\n");
    expect(parseReply(text)).toEqual({
      reasoning: [`${F}python`, 'print("""', "cat <<EOF", '""")', F, "Now:"].join("\n"),
      code: "echo real",
      droppedBlocks: 0,
    });
  });

  it("nor does a non-shell block after the bash block swallow the next one", () => {
    const text = `${F}bash\necho 1\n${F}\n${F}ruby\nx = <<EOF\n${F}\n${F}bash\necho 2\n${F}`;
    expect(parseReply(text)).toEqual({ reasoning: "", code: "echo 1", droppedBlocks: 1 });
  });

  it("a heredoc never closed runs to the end of the text", () => {
    const code = ["cat <<EOF", F, "no end here"].join("\n");
    expect(parseReply(`${F}bash\n${code}`)).toEqual({ reasoning: "", code, droppedBlocks: 0 });
  });
});

describe("parseReply: cut-off and line endings", () => {
  it("an unclosed block runs to the end of the text", () => {
    expect(parseReply(`Start.\n${F}bash\necho a\necho b`)).toEqual({ reasoning: "Start.", code: "echo a\necho b", droppedBlocks: 0 });
  });

  it("CRLF input: the same split, with no carriage returns left", () => {
    const text = `Think.\r\nMore.\r\n${F}bash\r\ncat <<'EOF'\r\n${F}\r\nEOF\r\necho hi\r\n${F}\r\n`;
    expect(parseReply(text)).toEqual({ reasoning: "Think.\nMore.", code: `cat <<'EOF'\n${F}\nEOF\necho hi`, droppedBlocks: 0 });
  });

  it("the reasoning is the text before the first fence, trimmed; text after the block is not in it", () => {
    expect(parseReply(`\n\n   Let me look.  \n\n${F}bash\nls\n${F}\n\nI will see.`)).toEqual({
      reasoning: "Let me look.",
      code: "ls",
      droppedBlocks: 0,
    });
  });
});
