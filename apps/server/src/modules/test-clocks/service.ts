import { RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";
import { iso } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import {
  type DueCounts,
  type LifecycleDeps,
  nextDue,
  noCounts,
  renewBetween,
  runDue,
} from "../subscription-lifecycle/index.js";
import { addInterval } from "../subscriptions/index.js";
import * as repo from "./repository.js";
import type { TestClocks } from "./store.js";

export interface TestClockDeps {
  /** Absent on a live (Stripe) server: there is no test clock then. */
  clocks: TestClocks | undefined;
  lifecycle: LifecycleDeps;
}

class NoTestClock extends ResourceNotFound {
  constructor() {
    super("Test clocks exist only on the sandbox processor: a live organization's time is the real time.");
  }
}

async function clockWire(deps: TestClockDeps, organizationId: string) {
  const clocks = deps.clocks;
  if (!clocks) throw new NoTestClock();
  const row = await repo.findClock(deps.lifecycle.db, organizationId);
  const now = clocks.of(organizationId).now();
  return {
    organization_id: organizationId,
    now: now.toISOString(),
    frozen: clocks.isFrozen(organizationId),
    offset_seconds: Math.floor((now.getTime() - deps.lifecycle.clock.now().getTime()) / 1000),
    advanced_at: iso(row?.advanced_at ?? null),
  };
}

export function getTestClock({ ctx, deps }: { ctx: Ctx; deps: TestClockDeps }) {
  return clockWire(deps, ctx.organizationId);
}

/** `start` plus an ISO 8601 duration: years and months on the calendar (clamped), the rest exactly. */
export function addDuration(start: Date, duration: string): Date {
  const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(
    duration,
  );
  if (!m)
    throw RequestValidationError.field(
      ["body", "by"],
      "Expected an ISO 8601 duration such as P1M.",
      duration,
    );
  const [years, months, weeks, days, hours, minutes, seconds] = m
    .slice(1)
    .map((v) => Number(v ?? 0)) as number[];
  let at = addInterval(start, "month", (years ?? 0) * 12 + (months ?? 0));
  at = new Date(
    at.getTime() +
      (((weeks ?? 0) * 7 + (days ?? 0)) * 86_400 +
        (hours ?? 0) * 3600 +
        (minutes ?? 0) * 60 +
        (seconds ?? 0)) *
        1000,
  );
  return at;
}

const DAY_MS = 86_400_000;

/** One advance at a time per organization in this process (PostgreSQL's own row guards the rest). */
const advancing = new Set<string>();

/**
 * Moves the organization's clock forward to `to` (or by `by`), and on the way runs everything
 * that falls due, in time order: the clock stops at each due time, runs what is due then
 * (renewals and their charges, dunning retries, scheduled cancellations, trial reminders) with
 * that time in every row, mail and webhook, and goes on. Answers the clock and what ran.
 */
export async function advanceTestClock({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: TestClockDeps;
  input: { to?: string | undefined; by?: string | undefined };
}) {
  const clocks = deps.clocks;
  if (!clocks) throw new NoTestClock();
  const org = ctx.organizationId;
  if ((input.to === undefined) === (input.by === undefined))
    throw RequestValidationError.field(
      ["body", "to"],
      "Give either `to` (a time) or `by` (a duration).",
      input,
    );
  const clock = clocks.of(org);
  const previous = clock.now();
  const target = input.to !== undefined ? new Date(input.to) : addDuration(previous, input.by ?? "");
  if (target.getTime() < previous.getTime())
    throw RequestValidationError.field(
      ["body", input.to !== undefined ? "to" : "by"],
      `The test clock only moves forward: it is ${previous.toISOString()}.`,
      input.to ?? input.by,
    );
  if (advancing.has(org))
    throw RequestValidationError.field(["body"], "The test clock is already advancing.", input);
  advancing.add(org);
  const ran: DueCounts = noCounts();
  const add = (counts: DueCounts) => {
    for (const key of Object.keys(ran) as (keyof DueCounts)[]) ran[key] += counts[key];
  };
  let steps = 0;
  try {
    add(await runDue(deps.lifecycle, { organizationId: org, inline: true }));
    for (;;) {
      const { period, other } = await nextDue(deps.lifecycle, org, clock.now(), target);
      if (!period && !other) break;
      if (period && (!other || period.getTime() < other.getTime())) {
        // Renewals come first: those due before anything else (and within a day) run as a batch,
        // each at its own time, several at once; then the clock stands at the last of them and
        // whatever else is due by then runs, as at any stop.
        const until = Math.min(target.getTime(), period.getTime() + DAY_MS - 1, other?.getTime() ?? Infinity);
        const from = clock.now();
        await clocks.moveTo(org, period);
        const batch = await renewBetween(
          deps.lifecycle,
          org,
          from,
          new Date(until),
          deps.lifecycle.testClockConcurrency ?? 1,
        );
        add(batch.counts);
        steps += batch.times.length;
        const last = batch.times.at(-1);
        if (last) await clocks.moveTo(org, last);
      } else {
        await clocks.moveTo(org, other ?? (period as Date));
        steps++;
      }
      add(await runDue(deps.lifecycle, { organizationId: org, inline: true }));
    }
    await clocks.moveTo(org, target);
    add(await runDue(deps.lifecycle, { organizationId: org, inline: true }));
  } finally {
    advancing.delete(org);
  }
  return { clock: await clockWire(deps, org), previous: previous.toISOString(), steps, ran };
}
