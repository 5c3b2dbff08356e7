// lib/mind/state/memory-state.ts: the in-memory MindState (unit tests, command-line
// runs) keeps what every home of a mind's state keeps (helpers/mind-state-contract.ts).
import { MemoryMindState } from "../../../../lib/mind/state/memory-state";
import { mindStateContract } from "../../helpers/mind-state-contract";

mindStateContract("MemoryMindState", async (mindId) => new MemoryMindState(mindId, { name: "Reverie", model: "m" }));
