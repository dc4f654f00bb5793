import { randomUUID } from "node:crypto";
import { ApiError, RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";
import { iso } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import { crashPoint } from "../../kit/crash.js";
import { defineJob } from "../../kit/jobs/index.js";
import { type CheckoutEnv, expireCheckoutsDue, nextCheckoutExpiry } from "../checkouts/index.js";
import {
  type DueCounts,
  type LifecycleDeps,
  nextDue,
  noCounts,
  renewBetween,
  runDue,
} from "../subscription-lifecycle/index.js";
import { addInterval } from "../subscriptions/index.js";
import { ADVANCE_JOB, AdvancePayload, enqueueAdvanceJob } from "./job.js";
import * as repo from "./repository.js";
import type { TestClocks } from "./store.js";

export interface TestClockDeps {
  /** Absent on a live (Stripe) server: there is no test clock then. */
  clocks: TestClocks | undefined;
  lifecycle: LifecycleDeps;
  /** What a checkout's wire shape needs: its expiry is one of the clock's stops. */
  checkouts: CheckoutEnv;
}

/** How long a run of an advance holds it without renewing its lease (default: a minute). */
const leaseMsOf = (deps: TestClockDeps) => deps.lifecycle.testClockLeaseMs ?? 60_000;

class NoTestClock extends ResourceNotFound {
  constructor() {
    super("Test clocks exist only on the sandbox processor: a live organization's time is the real time.");
  }
}

/** 409: one advance at a time per organization, whichever process runs it. */
export class TestClockAdvancing extends ApiError {
  constructor(target: Date | null) {
    super(
      "TestClockAdvancing",
      409,
      `The test clock is already advancing${target ? ` (to ${target.toISOString()})` : ""}: wait until GET /v1/test-clock says it is ready.`,
    );
  }
}

type ClockRow = NonNullable<Awaited<ReturnType<typeof repo.findClock>>>;

function ranOf(row: ClockRow | undefined): DueCounts {
  const counts = noCounts();
  const stored = row?.advance_ran ?? {};
  for (const key of Object.keys(counts) as (keyof DueCounts)[]) counts[key] = Number(stored[key] ?? 0) || 0;
  return counts;
}

async function clockWire(deps: TestClockDeps, organizationId: string, known?: ClockRow) {
  const clocks = deps.clocks;
  if (!clocks) throw new NoTestClock();
  const row = known ?? (await repo.findClock(deps.lifecycle.db, organizationId));
  const mine = clocks.of(organizationId).now();
  // Another process may be moving it: its row is ahead of this process's memory until NOTIFY.
  const now = row && row.frozen_at.getTime() > mine.getTime() ? new Date(row.frozen_at) : mine;
  const advance =
    row?.advance_id && row.advance_previous && row.advance_target && row.advance_started_at
      ? {
          id: row.advance_id,
          previous: row.advance_previous.toISOString(),
          target: row.advance_target.toISOString(),
          progress: progressOf(row.status, row.advance_previous, row.advance_target, now),
          steps: row.advance_steps,
          ran: ranOf(row),
          started_at: row.advance_started_at.toISOString(),
          finished_at: iso(row.advance_finished_at),
          error: row.advance_error,
        }
      : null;
  return {
    organization_id: organizationId,
    now: now.toISOString(),
    frozen: clocks.isFrozen(organizationId) || row !== undefined,
    offset_seconds: Math.floor((now.getTime() - deps.lifecycle.clock.now().getTime()) / 1000),
    advanced_at: iso(row?.advanced_at ?? null),
    status: row?.status ?? ("ready" as const),
    advance,
  };
}

/** How far the simulated time has got from `previous` to `target` (0 to 1, in thousandths). */
function progressOf(status: string, previous: Date, target: Date, now: Date) {
  if (status === "ready") return 1;
  const span = target.getTime() - previous.getTime();
  if (span <= 0) return 0;
  const done = Math.min(1, Math.max(0, (now.getTime() - previous.getTime()) / span));
  return Math.floor(done * 1000) / 1000;
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

type AdvanceInput = { to?: string | undefined; by?: string | undefined; wait?: boolean | undefined };

/**
 * Begins an advance of the organization's clock to `to` (or by `by`): refused (409) while one
 * is under way. The clock's row says `advancing` from here, and a job that runs it (at once
 * with `wait: false`; otherwise a lease later, in case this process dies running it) is
 * written in the same transaction.
 */
async function beginAdvance(ctx: Ctx, deps: TestClockDeps, clocks: TestClocks, input: AdvanceInput) {
  const org = ctx.organizationId;
  if ((input.to === undefined) === (input.by === undefined))
    throw RequestValidationError.field(
      ["body", "to"],
      "Give either `to` (a time) or `by` (a duration).",
      input,
    );
  const previous = clocks.of(org).now();
  const target = input.to !== undefined ? new Date(input.to) : addDuration(previous, input.by ?? "");
  // A duration past the calendar's end (`P999999Y`) makes no date; the year 9999 is the last a
  // timestamp is written in everywhere (ISO 8601 without an expanded year).
  if (!Number.isFinite(target.getTime()) || target.getUTCFullYear() > 9999)
    throw RequestValidationError.field(
      ["body", input.to !== undefined ? "to" : "by"],
      "The test clock cannot move past the year 9999.",
      input.to ?? input.by,
    );
  if (target.getTime() < previous.getTime())
    throw RequestValidationError.field(
      ["body", input.to !== undefined ? "to" : "by"],
      `The test clock only moves forward: it is ${previous.toISOString()}.`,
      input.to ?? input.by,
    );
  const realNow = deps.lifecycle.clock.now();
  const id = randomUUID();
  const begun = await deps.lifecycle.db.transaction().execute(async (trx) => {
    const row = await repo.beginAdvance(trx, { organizationId: org, id, previous, target, realNow });
    if (!row) return undefined;
    await enqueueAdvanceJob(
      trx,
      { organizationId: org, advanceId: id },
      {
        // Waited for: the request runs it; the job only takes over if the request's process dies.
        ...(input.wait === false ? {} : { runAt: new Date(realNow.getTime() + leaseMsOf(deps)) }),
      },
    );
    await repo.notifyClocks(trx, org);
    return row;
  });
  if (!begun) {
    const row = await repo.findClock(deps.lifecycle.db, org);
    // The same synchronous request again (a retry, or two processes told the same `to`): it
    // waits for the advance under way instead (docs/decisions.md).
    if (
      input.wait !== false &&
      input.to !== undefined &&
      row?.status === "advancing" &&
      row.advance_id &&
      row.advance_target?.getTime() === target.getTime()
    )
      return { kind: "joined" as const, id: row.advance_id, previous };
    throw new TestClockAdvancing(row?.advance_target ?? null);
  }
  clocks.keep(org, begun.frozen_at);
  return { kind: "begun" as const, begun };
}

/**
 * `POST /v1/test-clock/advance`. By default runs the advance in this request and answers what
 * ran (200); with `wait: false` answers the clock `advancing` at once (202) and the job queue
 * runs it. Either way a job resumes it if the process running it dies.
 */
export async function advanceTestClock({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: TestClockDeps;
  input: AdvanceInput;
}): Promise<
  | { status: 200; body: Awaited<ReturnType<typeof resultOf>> }
  | { status: 202; body: Awaited<ReturnType<typeof clockWire>> }
> {
  const clocks = deps.clocks;
  if (!clocks) throw new NoTestClock();
  const org = ctx.organizationId;
  const started = await beginAdvance(ctx, deps, clocks, input);
  if (started.kind === "joined") {
    await waitForEnd(deps, started.id, org);
    const clock = await clockWire(deps, org);
    return {
      status: 200,
      body: { clock, previous: started.previous.toISOString(), steps: 0, ran: noCounts() },
    };
  }
  const { begun } = started;
  const id = begun.advance_id as string;
  if (input.wait === false) return { status: 202, body: await clockWire(deps, org, begun) };
  const outcome = await runAdvance(deps, org, id, `request:${randomUUID()}`);
  if (outcome.kind === "failed") throw outcome.error;
  // Taken over (this process stalled past its lease): the other runner finishes it.
  if (outcome.kind === "elsewhere") await waitForEnd(deps, id, org);
  return { status: 200, body: await resultOf(deps, org) };
}

async function resultOf(deps: TestClockDeps, org: string) {
  const row = await repo.findClock(deps.lifecycle.db, org);
  const clock = await clockWire(deps, org, row);
  return {
    clock,
    previous: clock.advance?.previous ?? clock.now,
    steps: clock.advance?.steps ?? 0,
    ran: clock.advance?.ran ?? noCounts(),
  };
}

/** Until the advance `id` of the organization's clock has ended (run by another runner). */
async function waitForEnd(deps: TestClockDeps, id: string, org: string) {
  for (;;) {
    const row = await repo.findClock(deps.lifecycle.db, org);
    if (!row || row.advance_id !== id || row.status !== "advancing") return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export type AdvanceOutcome =
  | { kind: "done" }
  | { kind: "failed"; error: unknown }
  /** Another runner holds it (or it ended already). */
  | { kind: "elsewhere" };

const errorText = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).slice(0, 2000) || "failed";

class LostAdvance extends Error {}

/**
 * Runs the advance `id` of the organization's clock as `runner`, from where the clock stands to
 * the advance's target: the clock stops at each moment something falls due (renewals and their
 * charges, dunning retries, scheduled cancellations, trial reminders, checkout expiries), runs it with that time in
 * every row, mail and webhook, records its progress, and goes on. Only while it holds the
 * advance's lease (renewed at each stop and every third of it): a run whose process died is
 * taken over once its lease lapses, from where the clock stands (every stop is idempotent: a
 * subscription renews once per period under its row lock, a claimed charge is not claimed
 * again), with the counts recorded so far.
 */
export async function runAdvance(
  deps: TestClockDeps,
  org: string,
  id: string,
  runner: string,
): Promise<AdvanceOutcome> {
  const clocks = deps.clocks;
  if (!clocks) return { kind: "elsewhere" };
  const { lifecycle } = deps;
  const leaseMs = leaseMsOf(deps);
  const until = () => new Date(lifecycle.clock.now().getTime() + leaseMs);
  const row = await repo.takeAdvance(lifecycle.db, {
    organizationId: org,
    id,
    runner,
    until: until(),
    realNow: lifecycle.clock.now(),
  });
  if (!row?.advance_target) return { kind: "elsewhere" };
  const target = row.advance_target;
  let lost = false;
  const renew = () =>
    repo.recordProgress(lifecycle.db, { organizationId: org, id, runner, until: until() }).then((held) => {
      if (!held) lost = true;
    });
  const heartbeat = setInterval(
    () => void renew().catch((error) => lifecycle.logger.warn("test clock lease renewal failed", { error })),
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();
  const ran = ranOf(row);
  let steps = row.advance_steps;
  const add = (counts: DueCounts) => {
    for (const key of Object.keys(ran) as (keyof DueCounts)[]) ran[key] += counts[key];
  };
  const progress = async () => {
    if (lost) throw new LostAdvance();
    const held = await repo.recordProgress(lifecycle.db, {
      organizationId: org,
      id,
      runner,
      until: until(),
      progress: { steps, ran: { ...ran } },
    });
    if (!held) throw new LostAdvance();
  };
  try {
    // Resumed elsewhere: this process's memory may lag behind the moves of the one that died.
    await clocks.refresh();
    const clock = clocks.of(org);
    // What is due at a stop: the subscriptions' (renewals, charges, retries, reminders), then
    // the checkouts that expire by then, each as of its own expiry.
    const runStop = async () => {
      add(await runDue(lifecycle, { organizationId: org, inline: true }));
      ran.checkouts_expired += await expireCheckoutsDue(
        { db: lifecycle.db, events: lifecycle.events, env: deps.checkouts },
        org,
        clock.now(),
      );
    };
    await runStop();
    for (;;) {
      await progress();
      // The crash tests: a process dying after a stop of an advance has been recorded.
      if (steps > 0) crashPoint("test-clock.stepped");
      const due = await nextDue(lifecycle, org, clock.now(), target);
      const expiry = await nextCheckoutExpiry(lifecycle.db, org, clock.now(), target);
      const period = due.period;
      const other = expiry && (!due.other || expiry.getTime() < due.other.getTime()) ? expiry : due.other;
      if (!period && !other) break;
      if (period && (!other || period.getTime() < other.getTime())) {
        // Renewals come first: those due before anything else (and within a day) run as a batch,
        // each at its own time, several at once; then the clock stands at the last of them and
        // whatever else is due by then runs, as at any stop.
        const last = Math.min(target.getTime(), period.getTime() + DAY_MS - 1, other?.getTime() ?? Infinity);
        const from = clock.now();
        await clocks.moveTo(org, period);
        const batch = await renewBetween(
          lifecycle,
          org,
          from,
          new Date(last),
          lifecycle.testClockConcurrency ?? 1,
        );
        add(batch.counts);
        steps += batch.times.length;
        const at = batch.times.at(-1);
        if (at) await clocks.moveTo(org, at);
      } else {
        await clocks.moveTo(org, other ?? (period as Date));
        steps++;
      }
      await runStop();
    }
    await clocks.moveTo(org, target);
    await runStop();
    const ended = await repo.endAdvance(lifecycle.db, {
      organizationId: org,
      id,
      runner,
      status: "ready",
      realNow: lifecycle.clock.now(),
      progress: { steps, ran: { ...ran } },
    });
    return ended ? { kind: "done" } : { kind: "elsewhere" };
  } catch (error) {
    if (error instanceof LostAdvance || lost) return { kind: "elsewhere" };
    lifecycle.logger.error("a test clock's advance failed", { organizationId: org, error: errorText(error) });
    await repo
      .endAdvance(lifecycle.db, {
        organizationId: org,
        id,
        runner,
        status: "failed",
        realNow: lifecycle.clock.now(),
        error: errorText(error),
        progress: { steps, ran: { ...ran } },
      })
      .catch(() => undefined);
    return { kind: "failed", error };
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * The advance's job: runs it (an advance asked with `wait: false`), or watches over one a
 * request runs (due a lease after it began): while its runner's lease holds, it looks again
 * when the lease would lapse; once it lapsed (the process died), it takes the advance over and
 * finishes it from where the clock stands. An advance already ended is left alone.
 */
export function testClockJobs(deps: TestClockDeps) {
  return [
    defineJob({
      name: ADVANCE_JOB,
      payload: AdvancePayload,
      // Each attempt that dies with its process is resumed by the next; a failure is recorded
      // on the clock (`failed`) by the run itself and not retried.
      maxAttempts: 5,
      async handler({ organizationId, advanceId }, ctx) {
        const { db } = deps.lifecycle;
        const row = await repo.findClock(db, organizationId);
        if (!row || row.advance_id !== advanceId || row.status !== "advancing") return;
        const realNow = deps.lifecycle.clock.now();
        if (row.advance_runner && row.advance_locked_until && row.advance_locked_until > realNow) {
          // Its runner is at it: look again when its lease would lapse.
          await db
            .transaction()
            .execute((trx) =>
              enqueueAdvanceJob(
                trx,
                { organizationId, advanceId },
                { runAt: new Date(row.advance_locked_until!.getTime() + 1000) },
              ),
            );
          return;
        }
        const outcome = await runAdvance(
          deps,
          organizationId,
          advanceId,
          `job:${ctx.job.id}:${ctx.job.attempt}`,
        );
        if (outcome.kind === "elsewhere") {
          // Another runner took it between the read and the take: watch over that one instead.
          const again = await repo.findClock(db, organizationId);
          if (again?.advance_id === advanceId && again.status === "advancing")
            await db.transaction().execute((trx) =>
              enqueueAdvanceJob(
                trx,
                { organizationId, advanceId },
                {
                  runAt: new Date(
                    (again.advance_locked_until ?? deps.lifecycle.clock.now()).getTime() + 1000,
                  ),
                },
              ),
            );
        }
      },
      // In the transaction that marks the job dead: a crash between the two cannot leave the
      // clock `advancing` with no job to finish the advance.
      async onDeadInTransaction({ organizationId, advanceId }, ctx, error) {
        await repo.endAdvance(ctx.db, {
          organizationId,
          id: advanceId,
          status: "failed",
          realNow: deps.lifecycle.clock.now(),
          error: `The advance stopped too often (its process died each time): ${error}`,
        });
      },
    }),
  ];
}
