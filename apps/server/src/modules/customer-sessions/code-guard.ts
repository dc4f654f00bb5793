import { TooManyRequests } from "../../kit/api/errors.js";
import type { Clock } from "../../kit/clock.js";
import type { Logger } from "../../kit/logger.js";
import type { RateLimiter } from "../../kit/rate-limit.js";

/** The key under which wrong sign-in codes are counted, one for the whole installation. */
export const CODE_FAILURES_KEY = "portal:code-failures";

/**
 * A budget of wrong sign-in codes for the whole installation. Polar's authenticate call sends
 * the code alone, so a code cannot be tied to the e-mail it went to, and the per-address limit
 * does not stop guessing spread over many addresses. Past `failures`' limit in its window, code
 * sign-in is refused (429) until the window ends: a flood of guesses costs the attacker the
 * window, never a customer's account. Each process learns of a spent budget at its first wrong
 * code after it, from the shared store; the pre-authenticated links of customer sessions are
 * not affected.
 */
export function codeFailureGuard(opts: { failures: RateLimiter; clock: Clock; logger: Logger }) {
  let closedUntil = 0;
  return {
    /** Throws 429 while the budget is spent. */
    check(): void {
      const now = opts.clock.now().getTime();
      if (now < closedUntil) throw new TooManyRequests(Math.max(1, Math.ceil((closedUntil - now) / 1000)));
    },
    /** Counts one wrong (unknown, used or expired) code. */
    async failed(): Promise<void> {
      const verdict = await opts.failures(CODE_FAILURES_KEY);
      if (verdict.allowed) return;
      const now = opts.clock.now().getTime();
      if (now >= closedUntil)
        opts.logger.warn(
          "portal sign-in codes: too many wrong codes across all addresses (PORTAL_CODE_FAILURE_LIMIT); code sign-in refused until the window ends",
          { retry_after_seconds: verdict.retryAfter },
        );
      closedUntil = now + verdict.retryAfter * 1000;
    },
  };
}

export type CodeFailureGuard = ReturnType<typeof codeFailureGuard>;
