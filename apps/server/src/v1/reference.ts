import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { V1App } from "../kit/api/env.js";

/**
 * The API reference page: Swagger UI from the `swagger-ui-dist` package, served by Kassa
 * itself (no CDN), reading `/v1/openapi.json`. A strict Content-Security-Policy keeps the page
 * from reaching any other origin (Swagger UI's online validator is switched off too).
 */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kassa billing API reference</title>
<link rel="icon" href="/v1/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/v1/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/v1/docs/assets/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
`;

export function mountReference(api: V1App) {
  const dir = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const cache = new Map<string, Buffer>();
  const headers = (type: string) => ({
    "content-type": type,
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
  });

  api.get("/v1/docs", (c) => c.body(PAGE, 200, headers("text/html; charset=utf-8")));
  api.get("/v1/docs/assets/init.js", (c) => c.body(INIT, 200, headers("text/javascript; charset=utf-8")));
  api.get("/v1/docs/assets/:file", (c) => {
    const file = c.req.param("file");
    const type = ASSETS[file];
    if (!type) return c.json({ error: "ResourceNotFound", detail: "Not Found" }, 404);
    let body = cache.get(file);
    if (!body) {
      body = readFileSync(path.join(dir, file));
      cache.set(file, body);
    }
    return c.body(new Uint8Array(body), 200, { ...headers(type), "cache-control": "public, max-age=3600" });
  });
}
