// Debian's Chromium, driven by playwright-core. As root it needs --no-sandbox;
// the background-networking flags keep it off this machine's closed network.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startModelServer, type ModelServer, type Responder } from "../fixtures/model-server";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface E2eEnv {
  readonly browser: Browser;
  /** The scripted model server (a fake at the model's HTTP boundary). */
  readonly model: ModelServer;
}

/** One Chromium and one scripted model server for a test file, started before its tests and closed after. */
export function browserAndModelForFile(opts: { responder?: Responder } = {}): E2eEnv {
  let browser: Browser | undefined;
  let model: ModelServer | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
    model = await startModelServer(opts.responder ? { responder: opts.responder } : {});
  });
  afterAll(async () => {
    await browser?.close();
    await model?.close();
  });
  const need = <T>(v: T | undefined, what: string): T => {
    if (!v) throw new Error(`${what} is not started yet (use it inside a test or hook)`);
    return v;
  };
  return {
    get browser() {
      return need(browser, "the browser");
    },
    get model() {
      return need(model, "the model server");
    },
  };
}
