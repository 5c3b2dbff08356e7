// The scan's WebAssembly module, assembled when first asked for: under the
// sources (the tests, tsx). The command line's bundle has its bytes written
// out as a module instead, assembled when it is built (bin/cli-bundle.mjs),
// so a start does not run the assembler.
import { assemble } from "./context-scan-wasm-code";

export const scanModuleBytes = (): Uint8Array<ArrayBuffer> => assemble();
