#!/usr/bin/env node
// `npx reverie <command>`: the command line, sharing lib/ with the app.
// tsx runs the TypeScript sources directly (Node 20 cannot strip types).
import { tsImport } from "tsx/esm/api";

const { main } = await tsImport("../cli/reverie.ts", import.meta.url);
process.exitCode = await main(process.argv.slice(2));
