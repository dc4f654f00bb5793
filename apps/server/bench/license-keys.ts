/**
 * License-key validations per second: `POST /v1/customer-portal/license-keys/validate` (the
 * public endpoint a merchant's desktop app calls; no credential, each validation counted on the
 * key) on a Kassa server (license-key-server.ts), against the bare primary-key route in the same
 * run (`runPaired`). Two lines: every caller validating one key (the worst case, one row), and
 * callers picking keys at random among 1,000 (a merchant's installed base).
 */
import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type LoadResult, leanHttp, runPaired } from "./load.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface LicenseKeyBenchResult {
  baseline: LoadResult;
  validate: LoadResult;
  /** The same bare route, paired with the many-keys line. */
  baselineMany: LoadResult;
  validateMany: LoadResult;
  keys: number;
}

export async function benchLicenseKeys(opts: {
  env: Record<string, string>;
  baselineUrl: string;
  seconds: number;
  rounds: number;
  concurrency: number;
}): Promise<LicenseKeyBenchResult> {
  const child: ChildProcess = fork(path.join(here, "license-key-server.ts"), [], {
    env: { ...opts.env, PORT: "0" },
    // BENCH_KASSA_ARGS as the main Kassa process (e.g. `--cpu-prof` to profile this one).
    execArgv: ["--import", "tsx", ...(process.env.BENCH_KASSA_ARGS ?? "").split(" ").filter(Boolean)],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  try {
    type Ready = { ready?: boolean; port: number; organizationId: string; key: string; keys: string[] };
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.on("message", (m: Ready) => {
        if (m.ready) resolve(m);
      });
      child.once("exit", (code) => reject(new Error(`license-key-server exited with ${code}`)));
    });
    const url = `http://127.0.0.1:${ready.port}/v1/customer-portal/license-keys/validate`;
    const body = JSON.stringify({ key: ready.key, organization_id: ready.organizationId });
    const client = leanHttp(opts.concurrency);
    const validate = async () => {
      const r = await client.request(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      return r.status === 200;
    };
    const bodies = ready.keys.map((key) => JSON.stringify({ key, organization_id: ready.organizationId }));
    const validateAny = async () => {
      const r = await client.request(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: bodies[Math.floor(Math.random() * bodies.length)] as string,
      });
      return r.status === 200;
    };
    const bare = async () => (await client.request(opts.baselineUrl)).status === 200;
    // Unmeasured warm-up of both paths.
    await runPaired({
      seconds: 1,
      rounds: 1,
      concurrency: opts.concurrency,
      baseline: bare,
      subject: validate,
    });
    const pair = await runPaired({
      seconds: opts.seconds,
      rounds: opts.rounds,
      concurrency: opts.concurrency,
      baseline: bare,
      subject: validate,
    });
    const pairMany = await runPaired({
      seconds: opts.seconds,
      rounds: opts.rounds,
      concurrency: opts.concurrency,
      baseline: bare,
      subject: validateAny,
    });
    client.close();
    return {
      baseline: pair.baseline,
      validate: pair.subject,
      baselineMany: pairMany.baseline,
      validateMany: pairMany.subject,
      keys: bodies.length,
    };
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }
}
