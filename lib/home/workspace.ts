// A mind's workspace as its home opens it: just-bash's filesystem over the
// saved files (persisted after each block), the sandbox its runs use, and a
// scratch sandbox over an in-memory copy for `self try`. Loaded on demand, so
// a tab's worker does not load the sandbox (about half its code) before the
// mind can wake.
import type { IFileSystem } from "just-bash";
import type { Clock, Ids, ShellPort } from "../mind/ports";
import type { FileStore } from "../mind/state/state";
import type { HomeNetwork } from "./home";

export interface OpenWorkspace {
  fs: IFileSystem;
  /** Save what changed (the sandbox does after each block; a change made beside it, here). */
  flush: () => Promise<void>;
  /** The sandbox over it, with the home's network and runtime. */
  shell: ShellPort;
  /** A sandbox over a copy of it as it is now, in memory, never saved (no runtime). */
  scratch(): Promise<ShellPort>;
}

export async function openWorkspace(files: FileStore, net: HomeNetwork, ports: { ids: Ids; clock: Clock }): Promise<OpenWorkspace> {
  const [{ openPersistentFs }, { justBashSandbox }] = await Promise.all([import("../shell/persistent-fs"), import("../shell/just-bash-sandbox")]);
  const { permissions } = net;
  const { fs, flush } = await openPersistentFs(files, { maxBytes: permissions.limits.max_workspace_bytes });
  const reach = { permissions, ids: ports.ids, clock: ports.clock, ...(net.fetch ? { fetch: net.fetch } : {}), ...(net.sandbox ? { network: net.sandbox } : {}) };
  const runtime = permissions.webcontainer ? net.runtime : undefined;
  return {
    fs,
    flush,
    shell: justBashSandbox({ fs, flush, ...reach, ...(runtime ? { runtime } : {}) }),
    async scratch() {
      const { scratchSandbox } = await import("../shell/scratch-fs");
      return scratchSandbox(fs, reach);
    },
  };
}
