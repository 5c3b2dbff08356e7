"use client";
// The page's end of real Node: one WebContainer for the whole tab (the API
// allows one booted instance per page), shared by every mind the tab runs
// whose human switched it on; each mind gets its own folder in it (see
// lib/shell/webcontainer/paths). It boots here, never in a worker, and only
// in a cross-origin-isolated page; each mind's worker hears the status and
// sends its node/npm/npx calls here (lib/protocol runtime-* messages).
import type { WebContainer } from "@webcontainer/api";
import type { RuntimeStatus } from "@/lib/shell/ports";
import type { WebContainerLike } from "@/lib/shell/webcontainer/api";
import type { RuntimeReplyMessage } from "@/lib/shell/webcontainer/bridge";
import { linkRuntime, type RuntimeLink } from "@/lib/shell/webcontainer/link";
import { WebContainerRuntime } from "@/lib/shell/webcontainer/runtime";
import { systemClock } from "@/lib/system/system";

export type { RuntimeLink };

// The real WebContainer has (at least) the surface the runtime uses.
const _fits: (wc: WebContainer) => WebContainerLike = (wc) => wc;

async function bootWebContainer(): Promise<WebContainerLike> {
  // Loaded only when a mind asks for it, so other pages never fetch it.
  const { WebContainer } = await import("@webcontainer/api");
  // The page is served with COEP credentialless (next.config.ts); the container must match.
  return WebContainer.boot({ coep: "credentialless", workdirName: "reverie" });
}

let shared: WebContainerRuntime | null = null;
const runtime = () => (shared ??= new WebContainerRuntime(bootWebContainer, systemClock));

/** Connect one mind's worker to the tab's WebContainer. */
export function linkWorkerRuntime(mindId: string, post: (msg: RuntimeReplyMessage) => void, onStatus: (s: RuntimeStatus) => void): RuntimeLink {
  return linkRuntime({ runtime, space: mindId, post, onStatus, isolated: () => globalThis.crossOriginIsolated === true, now: systemClock.now });
}
