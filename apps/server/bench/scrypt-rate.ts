/**
 * Raw scrypt with Better Auth's parameters: the sign-in line's baseline (in the bench process)
 * and, run as a child (`--child <concurrency> <seconds>`), the rate of a fresh process, so the
 * bench can set the child's allocator (kit/huge-pages.ts) and show what it changes.
 */
import { fork } from "node:child_process";
import { randomBytes, scrypt } from "node:crypto";
import { fileURLToPath } from "node:url";
import {
  envWithTunables,
  HUGE_PAGES_TUNABLE,
  withHugePages,
  withoutHugePages,
} from "../src/kit/huge-pages.js";

/** Better Auth 1.7's password hash: scrypt N=16384, r=16, p=1, 64-byte key (node:crypto, libuv pool). */
export const scryptOnce = (password: string, salt: string) =>
  new Promise<boolean>((resolve) =>
    scrypt(
      password.normalize("NFKC"),
      salt,
      64,
      { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 * 2 },
      (e) => resolve(!e),
    ),
  );

/** Hashes per second with `concurrency` in flight for `seconds`, after one unmeasured hash. */
async function rate(concurrency: number, seconds: number): Promise<number> {
  const salt = randomBytes(16).toString("hex");
  await scryptOnce("bench password 123", salt);
  const start = performance.now();
  const until = start + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) if (await scryptOnce("bench password 123", salt)) done++;
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

function childRate(tunables: string | undefined, concurrency: number, seconds: number): Promise<number> {
  const child = fork(fileURLToPath(import.meta.url), ["--child", String(concurrency), String(seconds)], {
    env: envWithTunables(tunables),
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m: { rate: number }) => resolve(m.rate));
    child.once("exit", (code) => reject(new Error(`scrypt child exited with ${code}`)));
  });
}

/**
 * The same hashes in a process started without huge pages and in one started with them, taking
 * turns (`rounds` each), as hashes a second.
 */
export async function scryptAllocators(concurrency: number, seconds: number, rounds: number) {
  const without = withoutHugePages(process.env.GLIBC_TUNABLES);
  const sides = { plain: 0, huge: 0 };
  for (let i = 0; i < rounds; i++) {
    sides.plain += await childRate(without, concurrency, seconds / rounds);
    sides.huge += await childRate(withHugePages(without), concurrency, seconds / rounds);
  }
  return { plain: sides.plain / rounds, huge: sides.huge / rounds, tunable: HUGE_PAGES_TUNABLE };
}

if (process.argv[2] === "--child") {
  const r = await rate(Number(process.argv[3]), Number(process.argv[4]));
  process.send?.({ rate: r }, undefined, undefined, () => process.exit(0));
}
