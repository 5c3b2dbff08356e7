// A WebContainer process writes to a pseudo-terminal: CRLF line ends, colour
// codes and spinners that redraw a line. The mind reads text, so keep what a
// terminal would finally show on each line.

// CSI (colours, cursor moves, erase) and OSC (titles, links) sequences, and two-byte escapes.
// eslint-disable-next-line no-control-regex -- terminal escapes are control characters
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// Cursor to column 1 redraws the line, like a carriage return.
// eslint-disable-next-line no-control-regex -- as above
const TO_COLUMN_ONE = /\x1b\[1?G/g;

export function terminalText(raw: string): string {
  const text = raw.replace(/\r\n/g, "\n").replace(TO_COLUMN_ONE, "\r").replace(ESCAPES, "");
  return text
    .split("\n")
    .flatMap((line) => {
      if (!line.includes("\r")) return [line];
      // A redrawn line shows its last drawing; one redrawn as nothing (a spinner's end) is gone.
      const last = line.slice(line.lastIndexOf("\r") + 1);
      return last === "" ? [] : [last];
    })
    .join("\n");
}
