/**
 * The server's import rules (issue 13), checked in CI by `npm run lint`:
 * - a module (`src/modules/<noun>/`) reaches another only through that module's `index.ts`;
 * - `src/kit/` is the toolkit every module uses: it imports no module and nothing of the API's
 *   assembly (`src/v1/`), so it can never pull a module in behind a helper.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "module-through-index",
      comment:
        "A module imports another module only through its index.ts (what it offers the others). " +
        "Add what you need to that index, or move the code to the module that owns it.",
      severity: "error",
      from: { path: "^apps/server/src/modules/([^/]+)/" },
      to: {
        path: "^apps/server/src/modules/[^/]+/",
        pathNot: ["^apps/server/src/modules/$1/", "^apps/server/src/modules/[^/]+/index\\.ts$"],
      },
    },
    {
      name: "outside-through-index",
      comment:
        "Code outside the modules (the composition root, the API's assembly) imports a module " +
        "only through its index.ts.",
      severity: "error",
      from: { path: "^apps/server/src/", pathNot: "^apps/server/src/modules/" },
      to: { path: "^apps/server/src/modules/[^/]+/(?!index\\.ts$)" },
    },
    {
      name: "kit-imports-no-module",
      comment:
        "kit/ is the toolkit under every module: it imports no module and not the API's assembly (v1/).",
      severity: "error",
      from: { path: "^apps/server/src/kit/" },
      to: { path: "^apps/server/src/(modules|v1)/" },
    },
    {
      name: "modules-not-assembly",
      comment:
        "Modules build their routes with kit/api (env, openapi, scopes); v1/ assembles the API " +
        "from the modules and is imported by none of them.",
      severity: "error",
      from: { path: "^apps/server/src/modules/" },
      to: { path: "^apps/server/src/v1/" },
    },
    {
      name: "no-circular",
      comment: "No import cycles in the server.",
      severity: "error",
      from: { path: "^apps/server/src/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/" },
    tsPreCompilationDeps: true,

    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
