// Import cycles fail `npm run check` (the layer rules are scripts/check-layers.mjs).
// A type-only cycle counts too: it is still two modules that need each other.
/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules that import each other, directly or round a loop (type-only imports included): move what both need into a module of its own, or hand one side in as a parameter.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    includeOnly: "^(app|components|workers|lib|cli)/",
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports are read too (they vanish from the emitted JavaScript, not from the design).
    tsPreCompilationDeps: true,
    skipAnalysisNotInRules: true,
  },
};
