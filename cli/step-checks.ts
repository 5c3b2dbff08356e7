// The compiled checks of cli/step-check-gen.ts, made when this module loads:
// under the sources (the tests, tsx). The command line's bundle has them
// written out as a module instead, made when it is built (bin/cli-bundle.mjs),
// so a start loads neither zod nor the schemas.
import { util } from "zod/v4/core";
import { checksBody, type CompiledChecks } from "./step-check-gen";

const compiled = new Function("zodUtil", checksBody().body)(util) as CompiledChecks;

export default compiled;
