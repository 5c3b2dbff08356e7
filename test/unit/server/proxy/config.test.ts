// The proxy's configuration from the environment, and `npm start`'s refusal
// to serve a proxy without its caps.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseProxyConfig } from "@/lib/server/proxy/config";

const GOOD = {
  LLM_PROXY_UPSTREAM_URL: "http://127.0.0.1:1234/v1/",
  LLM_PROXY_API_KEY: "fake-key-test-not-a-real-key",
  LLM_PROXY_MODELS: "small, big",
  LLM_PROXY_PRICES: JSON.stringify({ small: { input: 0.15, output: 0.6 }, big: { input: 3, output: 15 } }),
  LLM_PROXY_CAP_DAY_USD: "20",
  LLM_PROXY_CLIENT_CAP_HOUR_USD: "0.5",
  LLM_PROXY_CLIENT_CAP_DAY_USD: "2",
  LLM_PROXY_REQUEST_CAP_USD: "0.1",
};

describe("parseProxyConfig", () => {
  it("is off, not an error, without LLM_PROXY_UPSTREAM_URL", () => {
    expect(parseProxyConfig({})).toEqual({ kind: "off" });
    expect(parseProxyConfig({ ...GOOD, LLM_PROXY_UPSTREAM_URL: " " })).toEqual({ kind: "off" });
  });

  it("reads a full configuration", () => {
    expect(parseProxyConfig({ ...GOOD, LLM_PROXY_TOKENS: "tok-a, ,tok-b" })).toEqual({
      kind: "ok",
      config: {
        upstreamUrl: "http://127.0.0.1:1234/v1",
        apiKey: "fake-key-test-not-a-real-key",
        models: ["small", "big"],
        prices: { small: { input: 0.15, output: 0.6 }, big: { input: 3, output: 15 } },
        caps: { globalDayUsd: 20, clientHourUsd: 0.5, clientDayUsd: 2, requestUsd: 0.1 },
        tokens: ["tok-a", "tok-b"],
        adminToken: undefined,
        upstreamTimeoutMs: 120_000,
        reasoningModels: [],
        showUpstreamErrors: false,
      },
    });
  });

  it("reads the optional settings: admin token, upstream timeout, reasoning models, upstream error detail", () => {
    const r = parseProxyConfig({
      ...GOOD,
      LLM_PROXY_ADMIN_TOKEN: " admin-tok ",
      LLM_PROXY_UPSTREAM_TIMEOUT_S: "2.5",
      LLM_PROXY_REASONING_MODELS: "big",
      LLM_PROXY_SHOW_UPSTREAM_ERRORS: "1",
    });
    expect(r).toMatchObject({ kind: "ok", config: { adminToken: "admin-tok", upstreamTimeoutMs: 2500, reasoningModels: ["big"], showUpstreamErrors: true } });
  });

  it.each([
    [{ LLM_PROXY_UPSTREAM_TIMEOUT_S: "0" }, 'LLM_PROXY_UPSTREAM_TIMEOUT_S must be a number of seconds between 0 and 3600 (got "0")'],
    [{ LLM_PROXY_UPSTREAM_TIMEOUT_S: "soon" }, 'LLM_PROXY_UPSTREAM_TIMEOUT_S must be a number of seconds between 0 and 3600 (got "soon")'],
    [{ LLM_PROXY_SHOW_UPSTREAM_ERRORS: "yes" }, 'LLM_PROXY_SHOW_UPSTREAM_ERRORS must be 1 or 0 (got "yes")'],
    [{ LLM_PROXY_TOKENS: "a,b", LLM_PROXY_ADMIN_TOKEN: "b" }, "LLM_PROXY_ADMIN_TOKEN must not also be in LLM_PROXY_TOKENS (the admin view is not a client that spends)"],
  ])("refuses %o", (extra, problem) => {
    expect(parseProxyConfig({ ...GOOD, ...extra })).toMatchObject({ kind: "invalid", problems: [problem] });
  });

  it("names every missing setting when only the upstream is given", () => {
    const r = parseProxyConfig({ LLM_PROXY_UPSTREAM_URL: GOOD.LLM_PROXY_UPSTREAM_URL });
    expect(r.kind).toBe("invalid");
    if (r.kind !== "invalid") return;
    expect(r.problems.map((p) => p.split(" ")[0])).toEqual([
      "LLM_PROXY_API_KEY",
      "LLM_PROXY_MODELS",
      "LLM_PROXY_PRICES",
      "LLM_PROXY_CAP_DAY_USD",
      "LLM_PROXY_CLIENT_CAP_HOUR_USD",
      "LLM_PROXY_CLIENT_CAP_DAY_USD",
      "LLM_PROXY_REQUEST_CAP_USD",
    ]);
    for (const p of r.problems) expect(r.message).toContain(p);
  });

  it.each([["0"], ["-1"], ["abc"], ["Infinity"], ["1e999"]])("refuses the cap %s", (value) => {
    const r = parseProxyConfig({ ...GOOD, LLM_PROXY_CLIENT_CAP_HOUR_USD: value });
    expect(r).toMatchObject({ kind: "invalid", problems: [`LLM_PROXY_CLIENT_CAP_HOUR_USD must be a positive number of USD (got "${value}")`] });
  });

  it("needs a price for every model, and a parseable table", () => {
    const unpriced = parseProxyConfig({ ...GOOD, LLM_PROXY_MODELS: "small,big,other" });
    expect(unpriced).toMatchObject({ kind: "invalid", problems: ["LLM_PROXY_PRICES has no price for other (every model in LLM_PROXY_MODELS needs one)"] });
    const bad = parseProxyConfig({ ...GOOD, LLM_PROXY_PRICES: '{"small": {"input": -1, "output": 1}}' });
    expect(bad.kind === "invalid" && bad.problems[0]).toMatch(/^LLM_PROXY_PRICES is invalid: small\.input: /);
    const notJson = parseProxyConfig({ ...GOOD, LLM_PROXY_PRICES: "{" });
    expect(notJson.kind === "invalid" && notJson.problems[0]).toMatch(/^LLM_PROXY_PRICES is invalid: not JSON/);
  });

  it("refuses an upstream that is not an http(s) URL", () => {
    expect(parseProxyConfig({ ...GOOD, LLM_PROXY_UPSTREAM_URL: "localhost:1234" })).toMatchObject({ kind: "invalid" });
    expect(parseProxyConfig({ ...GOOD, LLM_PROXY_UPSTREAM_URL: "not a url" })).toMatchObject({
      kind: "invalid",
      problems: ["LLM_PROXY_UPSTREAM_URL is not a URL (expected an OpenAI-compatible base URL ending in /v1)"],
    });
  });

  it("never puts the key in its message", () => {
    const r = parseProxyConfig({ ...GOOD, LLM_PROXY_CAP_DAY_USD: "" });
    expect(r.kind).toBe("invalid");
    expect(JSON.stringify(r)).not.toContain(GOOD.LLM_PROXY_API_KEY);
  });
});

describe("npm start with a proxy but no caps", () => {
  it("exits non-zero before building or serving, naming each variable at fault", () => {
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, ...GOOD, LLM_PROXY_CAP_DAY_USD: "", LLM_PROXY_REQUEST_CAP_USD: "lots", PORT: "1" };
    delete env.LLM_PROXY_CLIENT_CAP_DAY_USD;
    const r = spawnSync(process.execPath, ["scripts/start.mjs"], { env: env as NodeJS.ProcessEnv, encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("LLM_PROXY_CAP_DAY_USD is missing");
    expect(r.stderr).toContain("LLM_PROXY_CLIENT_CAP_DAY_USD is missing");
    expect(r.stderr).toContain('LLM_PROXY_REQUEST_CAP_USD must be a positive number of USD (got "lots")');
    expect(r.stderr).not.toContain("LLM_PROXY_CLIENT_CAP_HOUR_USD");
    // It stopped before any build or server: neither said a word.
    expect(r.stdout).not.toMatch(/build|Ready|started/i);
  });
});
