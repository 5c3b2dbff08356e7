// Preloaded (`node --import ./bench/peak-rss.mjs …`) into a process a
// benchmark measures from outside: as the process exits, its peak resident
// memory in bytes goes to the file $REVERIE_BENCH_RSS_FILE.
import { writeFileSync } from "node:fs";

const file = process.env.REVERIE_BENCH_RSS_FILE;
if (file) process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
