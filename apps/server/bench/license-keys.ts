/**
 * License-key validations per second: `POST /v1/customer-portal/license-keys/validate` (the
 * public endpoint a merchant's desktop app calls; no credential, each validation counted in the
 * key's row) on a Kassa server holding one key (license-key-server.ts), against the bare
 * primary-key route in the same run (`runPaired`).
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
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  try {
    const ready = await new Promise<{ port: number; organizationId: string; key: string }>(
      (resolve, reject) => {
        child.on("message", (m: { ready?: boolean; port: number; organizationId: string; key: string }) => {
          if (m.ready) resolve(m);
        });
        child.once("exit", (code) => reject(new Error(`license-key-server exited with ${code}`)));
      },
    );
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
    client.close();
    return { baseline: pair.baseline, validate: pair.subject };
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }
}
