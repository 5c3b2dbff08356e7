// Where the worker's workspace lives inside the WebContainer: the one place
// that maps paths between the two sides.
//
//   worker (just-bash)        container (fs API, relative to its workdir)
//   /workspace                <space>
//   /workspace/src/a.js       <space>/src/a.js
//
// `<space>` is one folder per mind (its id), because a page may boot only
// one WebContainer and all the minds running in the tab share it. Spawned
// processes see the space as `<workdir>/<space>` (an absolute path), so
// arguments naming /workspace/… are rewritten to it, and the output's
// mentions of it are written back as /workspace.
//
// node_modules and .git are never copied either way: dependencies stay in
// the container (npm installs them there), and a repository's internals
// are not the other side's business.
import { WORKSPACE } from "../limits";

export { WORKSPACE };

/** `/workspace/a/b` → `a/b`; `/workspace` → ``; a path outside the workspace → null. */
export function workspaceRelative(path: string): string | null {
  if (path === WORKSPACE || path === `${WORKSPACE}/`) return "";
  if (!path.startsWith(`${WORKSPACE}/`)) return null;
  return path.slice(WORKSPACE.length + 1).replace(/\/+$/, "");
}

/** `a/b` → `/workspace/a/b`. */
export function workspacePath(rel: string): string {
  return rel === "" ? WORKSPACE : `${WORKSPACE}/${rel}`;
}

const LOCAL_ONLY = new Set(["node_modules", ".git"]);

/** Is this workspace-relative path copied between the two sides? */
export function synced(rel: string): boolean {
  return rel !== "" && !rel.split("/").some((part) => LOCAL_ONLY.has(part));
}

/** A workspace-relative path inside a space, as the container's fs API takes it. */
export function inSpace(space: string, rel: string): string {
  return rel === "" ? space : `${space}/${rel}`;
}
