// Where a mind's own texts live in its workspace (issue 24): the harness reads
// them from these paths, and the sandbox keeps them plain files there.
import { WORKSPACE } from "../limits";

export { SELF_FILES } from "../../mind/self/self";

export const SELF_DIR = `${WORKSPACE}/self`;
export const WATCHERS_DIR = `${SELF_DIR}/watchers`;

/** Whether `path` (absolute, normalised) is `dir` or inside it. */
export const under = (path: string, dir: string) => path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);
