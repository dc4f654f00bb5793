import { createExampleApp } from "./app.js";

/**
 * `npm start` in this folder: the example app against a Kassa you already run. The four
 * values come from Kassa's dashboard (Settings: access tokens and webhooks; a product).
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set (see examples/better-auth-app/README.md)`);
    process.exit(1);
  }
  return value;
}

const port = Number(process.env.PORT ?? 4000);
const { server } = createExampleApp({
  kassaUrl: process.env.KASSA_URL ?? "http://localhost:3000",
  accessToken: required("KASSA_ACCESS_TOKEN"),
  webhookSecret: required("KASSA_WEBHOOK_SECRET"),
  productId: required("KASSA_PRODUCT_ID"),
  baseURL: process.env.BASE_URL ?? `http://localhost:${port}`,
  ...(process.env.BETTER_AUTH_SECRET ? { secret: process.env.BETTER_AUTH_SECRET } : {}),
});
server.listen(port, () => console.log(`Example app on http://localhost:${port}`));
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => server.close(() => process.exit(0)));
