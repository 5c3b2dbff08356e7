import type { NextConfig } from "next";

// Cross-origin isolation on every page, so a WebContainer (which needs
// SharedArrayBuffer) can be switched on later without changing the host.
// `credentialless` rather than `require-corp`, so the page can still fetch
// model APIs and images that do not send CORP headers.
const isolationHeaders = [
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Cross-Origin-Embedder-Policy", value: "credentialless" },
];

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The app's own sources only; tests, benchmarks and the CLI are checked by `npm run check`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
  // The server runner's sandbox: loaded by Node as it is, not bundled (its Node build names optional native modules, such as zstd, it loads only when asked).
  serverExternalPackages: ["just-bash"],
  async headers() {
    return [{ source: "/:path*", headers: isolationHeaders }];
  },
};

export default nextConfig;
