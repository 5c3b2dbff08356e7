// Every limit of the WebContainer backend, in one place.
export const WEBCONTAINER_LIMITS = {
  /** A boot that has not finished by then is given up on: the mind keeps the built-in shell. */
  bootTimeoutMs: 20_000,
  /** After kill(), how long a process may take to exit before the container is torn down and booted again. */
  killGraceMs: 2_000,
  /** Bytes of terminal output kept from one process; past it the process is ended. */
  maxOutputBytes: 1024 * 1024,
  /** Wall time of one process, a backstop under the block's own limit. */
  wallMs: 15 * 60_000,
  /** After exit, how long to wait for the last of the output to arrive. */
  drainMs: 200,
} as const;

export type WebContainerLimits = { [K in keyof typeof WEBCONTAINER_LIMITS]: number };
