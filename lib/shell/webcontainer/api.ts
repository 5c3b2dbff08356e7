// The part of @webcontainer/api (1.6.4) that the runtime uses, as a
// structural type: the real `WebContainer` satisfies it (checked where the
// page imports the real one, components/runner/webcontainer-host.ts), and
// the tests give a fake. Nothing here imports the package, so lib/ and the
// worker never pull it into their bundles.

export interface DirEntLike {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

/** `WebContainer.fs`: paths are relative to the container's workdir. */
export interface WebContainerFsLike {
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  mkdir(path: string, options: { recursive: true }): Promise<string>;
  readdir(path: string, options: { withFileTypes: true }): Promise<DirEntLike[]>;
  rm(path: string, options?: { force?: boolean; recursive?: boolean }): Promise<void>;
}

export interface WebContainerProcessLike {
  /** stdout and stderr together, as a terminal shows them. */
  output: ReadableStream<string>;
  exit: Promise<number>;
  kill(): void;
}

export interface WebContainerLike {
  fs: WebContainerFsLike;
  /** Absolute path of the working directory, the root of `fs` paths. */
  readonly workdir: string;
  spawn(command: string, args: string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<WebContainerProcessLike>;
  on(event: "error", listener: (error: { message: string }) => void): () => void;
  teardown(): void;
}

/** Boots the one WebContainer a page may have. */
export type BootFn = () => Promise<WebContainerLike>;
