// Types of bin/cli-bundle.mjs, for the tests that run the command line as a process (they build its bundle first).
export const CACHE: URL;
/** The bundle's entry module when it is up to date with the sources, else null. */
export function freshBundle(): URL | null;
/** The fresh bundle's entry, built first when there is none (once, whoever else is waiting). */
export function ensureBundle(opts?: { onBuild?: () => void }): Promise<URL>;
/** Builds a new bundle and makes it current. */
export function buildBundle(): Promise<URL>;
