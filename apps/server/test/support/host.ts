/**
 * Test host: runs a real Kassa server in its own process (so vitest's NODE_ENV=test and
 * TEST never reach Better Auth) and answers the test process over IPC with what only the
 * server side can do: read the database and call Better Auth's server-only API (host-ops.ts).
 */
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/kit/logger.js";
import type { PurchaseInput } from "../../src/modules/orders/index.js";
import { startKassa } from "../../src/server.js";
import {
  type ApiArgs,
  hostError,
  hostOps,
  type LicenseKeyOp,
  type MeterAction,
  type MeterActionInput,
  testPasswordHasher,
} from "./host-ops.js";

type Request =
  | { id: number; op: "sql"; text: string; params: unknown[] }
  | { id: number; op: "api"; name: string; args: ApiArgs }
  | { id: number; op: "stop" }
  | { id: number; op: "payments"; target: "processor" | "tax"; method: string; args: unknown }
  | { id: number; op: "purchase"; input: PurchaseInput; now?: string }
  | { id: number; op: "licenseKeys"; licenseKeyOp: LicenseKeyOp; args: Record<string, unknown> }
  | { id: number; op: "meter"; action: MeterAction; input: MeterActionInput };

const send = (message: unknown) => process.send?.(message);

const password = testPasswordHasher(process.env.KASSA_TEST_FAST_HASH === "1");
const config = loadConfig();
const server = await startKassa(config, {
  logger: createLogger(config.logLevel),
  ...(password ? { password } : {}),
});
const ops = hostOps(server);

process.on("message", async (raw: Request) => {
  try {
    let value: unknown = null;
    if (raw.op === "sql") value = await ops.sql(raw.text, raw.params);
    else if (raw.op === "api") value = await ops.api(raw.name, raw.args);
    else if (raw.op === "payments") value = await ops.payments(raw.target, raw.method, raw.args);
    else if (raw.op === "purchase") value = await ops.purchase(raw.input, raw.now);
    else if (raw.op === "licenseKeys") value = await ops.licenseKeys(raw.licenseKeyOp, raw.args);
    else if (raw.op === "meter") value = await ops.meter(raw.action, raw.input);
    else if (raw.op === "stop") {
      await server.close();
      send({ id: raw.id, ok: true, value: null });
      process.exit(0);
    }
    send({ id: raw.id, ok: true, value });
  } catch (error) {
    send({ id: raw.id, ok: false, error: hostError(error) });
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    server.close().then(() => process.exit(0));
  });
}

send({ ready: true, port: server.port });
