import { availableParallelism } from "node:os";
import { hashPassword, verifyPassword } from "better-auth/crypto";

/**
 * Better Auth's own password hash (scrypt N=16384, r=16, p=1 on `node:crypto`, the same stored
 * format), with at most one hash per core running at a time; the others wait their turn in order.
 *
 * Each hash takes 32 MiB and about 70 ms of one core. Unbounded, every sign-in in flight takes a
 * thread of libuv's pool (four by default): on two cores four hashes at once run slower together
 * than two at a time (their memory thrashes the caches, the kernel switches between them), and
 * they hold every pool thread, so a file read or a DNS lookup of a webhook delivery waits behind
 * them. Measured on two cores (docs/benchmarks.md, 2026-12-02 afternoon): raw scrypt with four
 * callers, 22.6-24.6 hashes a second on four threads against 25.5-26.4 on two.
 */
export function gatedPasswordHasher(slots = availableParallelism()) {
  const gate = createGate(slots);
  return {
    hash: (password: string) => gate(() => hashPassword(password)),
    verify: (data: { hash: string; password: string }) => gate(() => verifyPassword(data)),
  };
}

/** Runs the calls given to it `slots` at a time at most, in the order they came. */
export function createGate(slots: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (running < slots) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await run();
    } finally {
      release();
    }
  };
}
