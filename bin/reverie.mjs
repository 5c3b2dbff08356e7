#!/usr/bin/env node
// `npx reverie <command>`: the command line, sharing lib/ with the app.
// tsx runs the TypeScript sources directly (Node 20 cannot strip types).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/reverie.ts");
process.exitCode = await main(process.argv.slice(2));
