// A fake host key, put in the environment of the e2e build so a test can
// check it reached no file the browser can download. Not a real key.
import { openaiStyle } from "../fixtures/fake-keys";
export const KEY_LEAK_CANARY = openaiStyle("reverie-leak-canary-7f3a9c2e51d84b60");

/** Written by the global setup next to a build it made with the canary (outside .next/static, so never served). */
export const CANARY_BUILD_MARKER = ".next/key-leak-canary-build";
