import type { Order, QueryValue, Subscription } from "../../lib/v1";

/**
 * What the subscription pages work out of a subscription and its orders, without React (unit
 * tested in apps/web/test/subscriptions-lifecycle.test.ts): the list's status filters, the
 * history of a subscription, the dunning schedule of a past-due renewal, and the words of a
 * test clock's advance.
 */

const DAY_MS = 86_400_000;

/** Days between a failed charge and the next attempt (the server's DUNNING_RETRY_DAYS, Polar's). */
export const DUNNING_RETRY_DAYS = [2, 5, 7, 7] as const;

/**
 * The status filter of the list: Polar's parameters (`active`, `cancel_at_period_end`) where
 * they say it, and Kassa's `status` where they cannot (past due, trialing); `status` is also
 * what the page keeps of the answer (`matches`), so a server that ignores the parameter still
 * shows only what the filter names.
 */
export const STATUS_FILTERS = {
  active: { label: "Active", params: { active: true }, matches: () => true },
  trialing: {
    label: "Trialing",
    params: { status: "trialing" },
    matches: (s: Subscription) => s.status === "trialing",
  },
  past_due: {
    label: "Past due",
    params: { status: "past_due" },
    matches: (s: Subscription) => s.status === "past_due",
  },
  canceling: {
    label: "Ending at period end",
    params: { active: true, cancel_at_period_end: true },
    matches: () => true,
  },
  canceled: {
    label: "Canceled",
    params: { active: false },
    matches: () => true,
  },
} satisfies Record<
  string,
  { label: string; params: Record<string, QueryValue>; matches: (s: Subscription) => boolean }
>;

export type StatusFilter = keyof typeof STATUS_FILTERS;

export const isStatusFilter = (value: unknown): value is StatusFilter =>
  typeof value === "string" && Object.hasOwn(STATUS_FILTERS, value);

/** The older name of "canceled" in addresses (`?status=ended`) still opens the same list. */
export function statusFilterOf(value: unknown): StatusFilter | null {
  if (value === "ended") return "canceled";
  return isStatusFilter(value) ? value : null;
}

export type HistoryTone = "green" | "blue" | "red" | "gray" | "orange";

export interface HistoryEvent {
  at: string;
  title: string;
  detail?: string;
  tone: HistoryTone;
  /** A date still to come (a scheduled end, the end of a trial). */
  upcoming?: boolean;
}

const money = (amount: number, currency: string, format: (a: number, c: string) => string) =>
  format(amount, currency);

/**
 * The subscription's history, oldest first: its start and trial, each order of it (the first
 * payment, renewals, plan changes, a renewal left unpaid), its cancellation, and its end (past,
 * or scheduled). `now` is the organization's time (the test clock's on the sandbox).
 */
export function subscriptionHistory(
  s: Subscription,
  orders: Order[],
  now: Date,
  formatMoney: (amount: number, currency: string) => string,
): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  const start = s.started_at ?? s.created_at;
  events.push({ at: start, title: "Started", tone: "green" });
  if (s.trial_start && s.trial_end) {
    const ended = new Date(s.trial_end).getTime() <= now.getTime();
    events.push({ at: s.trial_start, title: "Trial started", tone: "blue" });
    events.push({
      at: s.trial_end,
      title: ended ? "Trial ended" : "Trial ends",
      tone: "blue",
      upcoming: !ended,
    });
  }
  for (const o of orders) {
    const amount = money(o.total_amount, o.currency, formatMoney);
    if (o.status === "pending") {
      events.push({
        at: o.created_at,
        title: "Past due",
        detail: `The payment of ${amount} failed; it is retried.`,
        tone: "red",
      });
      continue;
    }
    if (o.status === "void") {
      events.push({
        at: o.created_at,
        title: "Renewal unpaid",
        detail: `${amount}, never paid`,
        tone: "gray",
      });
      continue;
    }
    const title =
      o.billing_reason === "subscription_create"
        ? "First payment"
        : o.billing_reason === "subscription_update"
          ? "Plan changed"
          : o.billing_reason === "subscription_cycle"
            ? "Renewed"
            : "Paid";
    const refunded =
      o.status === "refunded" ? " (refunded)" : o.status === "partially_refunded" ? " (partly refunded)" : "";
    events.push({ at: o.created_at, title, detail: `${amount}${refunded}`, tone: "green" });
  }
  if (s.canceled_at) {
    const reason = s.customer_cancellation_reason
      ? cancellationReasonLabel(s.customer_cancellation_reason)
      : null;
    events.push({
      at: s.canceled_at,
      title: s.ended_at && s.ended_at === s.canceled_at ? "Revoked" : "Canceled",
      ...(reason
        ? {
            detail: `Reason: ${reason}${s.customer_cancellation_comment ? ` (“${s.customer_cancellation_comment}”)` : ""}`,
          }
        : {}),
      tone: "orange",
    });
  }
  if (s.ended_at) events.push({ at: s.ended_at, title: "Ended", tone: "gray" });
  else if (s.cancel_at_period_end && (s.ends_at ?? s.current_period_end))
    events.push({ at: s.ends_at ?? s.current_period_end, title: "Ends", tone: "gray", upcoming: true });
  // Stable: events of the same instant keep the order above (canceled before ended).
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => new Date(a.e.at).getTime() - new Date(b.e.at).getTime() || a.i - b.i)
    .map(({ e }) => e);
}

export const CANCELLATION_REASON_LABELS: Record<string, string> = {
  customer_service: "Customer service",
  low_quality: "Low quality",
  missing_features: "Missing features",
  switched_service: "Switched to another service",
  too_complex: "Too complex",
  too_expensive: "Too expensive",
  unused: "Not used",
  other: "Other",
};

export const cancellationReasonLabel = (reason: string) =>
  CANCELLATION_REASON_LABELS[reason] ?? reason.replace(/_/g, " ");

export interface DunningAttempt {
  at: Date;
  /** Days after the previous attempt (2, 5, 7, 7). */
  afterDays: number;
  done: boolean;
}

export interface Dunning {
  /** When the first charge failed (the renewal order's creation). */
  since: Date;
  amountDue: number;
  currency: string;
  /** The next planned attempt, or null when every retry has run. */
  nextAttempt: Date | null;
  attempts: DunningAttempt[];
  /** When the subscription is revoked if every retry fails. */
  revokedAt: Date;
}

/**
 * The dunning of a past-due subscription from its unpaid (`pending`) renewal orders: retries
 * at +2, +5, +7 and +7 days after the first failure, then the end. The order's own
 * `next_payment_attempt_at` wins when the server sends it (after a new card, the retry is at
 * once). Null when nothing is unpaid.
 */
export function dunningOf(orders: Order[], now: Date): Dunning | null {
  const pending = orders.filter((o) => o.status === "pending" && o.billing_reason !== "purchase");
  if (pending.length === 0) return null;
  const first = pending.reduce((a, b) => (new Date(a.created_at) <= new Date(b.created_at) ? a : b));
  const since = new Date(first.created_at);
  let offset = 0;
  const attempts = DUNNING_RETRY_DAYS.map((days) => {
    offset += days;
    const at = new Date(since.getTime() + offset * DAY_MS);
    return { at, afterDays: days, done: at.getTime() <= now.getTime() };
  });
  const planned = pending
    .map((o) => (o as { next_payment_attempt_at?: string | null }).next_payment_attempt_at)
    .filter((v): v is string => typeof v === "string")
    .map((v) => new Date(v))
    .sort((a, b) => a.getTime() - b.getTime())[0];
  return {
    since,
    amountDue: pending.reduce((sum, o) => sum + o.total_amount, 0),
    currency: first.currency,
    nextAttempt: planned ?? attempts.find((a) => !a.done)?.at ?? null,
    attempts,
    revokedAt: new Date(since.getTime() + offset * DAY_MS),
  };
}

/** What a test clock's advance ran, in words ("3 renewals, 1 payment failed"). */
export function advanceSummary(ran: {
  renewals: number;
  ended: number;
  charges: number;
  paid: number;
  failed: number;
  revoked: number;
  trial_reminders: number;
  meter_cycles?: number;
  checkouts_expired?: number;
}): string {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const parts = [
    ran.renewals > 0 && n(ran.renewals, "renewal", "renewals"),
    ran.paid > 0 && n(ran.paid, "payment succeeded", "payments succeeded"),
    ran.failed > 0 && n(ran.failed, "payment failed", "payments failed"),
    ran.ended > 0 && n(ran.ended, "subscription ended", "subscriptions ended"),
    ran.revoked > 0 && n(ran.revoked, "subscription revoked", "subscriptions revoked"),
    ran.trial_reminders > 0 && n(ran.trial_reminders, "trial reminder", "trial reminders"),
    (ran.meter_cycles ?? 0) > 0 && n(ran.meter_cycles ?? 0, "meter period settled", "meter periods settled"),
    (ran.checkouts_expired ?? 0) > 0 &&
      n(ran.checkouts_expired ?? 0, "checkout expired", "checkouts expired"),
  ].filter((p): p is string => typeof p === "string");
  return parts.length > 0 ? parts.join(", ") : "Nothing was due";
}

/** The advances the sandbox banner offers, as ISO 8601 durations. */
export const ADVANCE_STEPS = [
  { label: "+1 day", by: "P1D" },
  { label: "+1 week", by: "P7D" },
  { label: "+1 month", by: "P1M" },
] as const;

/** A `datetime-local` input's value (local time, minutes) for a date. */
export function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(
    date.getMinutes(),
  )}`;
}

/** A subscription's state in a few words beside its badge ("Ends on 3 Mar 2026"). */
export function endingNote(s: Subscription, formatDate: (iso: string) => string): string | null {
  if (s.ended_at) return `Ended on ${formatDate(s.ended_at)}`;
  if (s.cancel_at_period_end) return `Ends on ${formatDate(s.ends_at ?? s.current_period_end)}`;
  return null;
}
