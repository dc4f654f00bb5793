import { type Kysely, sql } from "kysely";
import nodemailer from "nodemailer";
import type { KassaDatabase } from "../db/schema.js";
import type { Clock } from "../kit/clock.js";
import type { Logger } from "../kit/logger.js";

export interface MailMessage {
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /**
   * Stores the message durably and schedules its delivery. Returns once it is stored. With
   * `db` (a transaction), it is stored in it: the mail exists exactly when the change commits.
   */
  send(message: MailMessage, db?: Kysely<KassaDatabase>): Promise<void>;
  /** Whether mail leaves the server (SMTP) or stays in the development mailbox. */
  readonly mode: "smtp" | "mailbox";
  /**
   * Starts delivering stored mail (SMTP only). Call it after the migrations: the dispatcher
   * reads `kassa_mail`, which does not exist before them. Nothing is delivered until then;
   * `send` still stores its message.
   */
  start(): void;
  close(): Promise<void>;
}

const MAX_ATTEMPTS = 8;
const POLL_MS = 5_000;
interface ClaimedMail {
  id: string;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  attempts: number;
  created_at: Date | string;
}

/** How long a claimed mail is this process's to send before another may retry it. */
const CLAIM_LEASE_MS = 10 * 60_000;

/**
 * Every mail is written to `kassa_mail` first (an outbox), so a failed SMTP server loses
 * nothing: delivery is retried with exponential backoff. Without SMTP the table is the
 * development mailbox and nothing is ever sent.
 */
export function createMailer(opts: {
  db: Kysely<KassaDatabase>;
  smtpUrl: string | undefined;
  from: string;
  clock: Clock;
  logger: Logger;
}): Mailer {
  const { db, smtpUrl, from, clock, logger } = opts;

  const store = (message: MailMessage, into: Kysely<KassaDatabase> = db) =>
    into
      .insertInto("kassa_mail")
      .values({
        kind: message.kind,
        to_address: message.to,
        subject: message.subject,
        text_body: message.text,
        html_body: message.html,
        created_at: clock.now(),
      })
      .execute();

  if (!smtpUrl) {
    return {
      mode: "mailbox",
      async send(message, into) {
        await store(message, into);
        // Not the subject: a sign-in code's is the code itself, and logs are read more widely
        // than the mailbox (which the dashboard's dev page and `/api/dev/mailbox` show).
        logger.info(`dev mailbox: ${message.kind} mail to ${message.to}`, { kind: message.kind });
      },
      start() {},
      async close() {},
    };
  }

  const transport = nodemailer.createTransport(smtpUrl);
  let closed = false;
  let started = false;
  let running: Promise<void> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;

  const deliverDue = async () => {
    // Claimed, not just read: every server process runs a dispatcher on the same outbox, and
    // a mail two of them read at once would be sent twice. The claim moves the mail's next
    // attempt past the lease, so another process retries it only if this one dies sending.
    const now = clock.now();
    const due = (
      await sql<ClaimedMail>`
        update kassa_mail set next_attempt_at = ${new Date(now.getTime() + CLAIM_LEASE_MS)}
        where id in (
          select id from kassa_mail
          where sent_at is null and attempts < ${MAX_ATTEMPTS} and next_attempt_at <= ${now}
          order by created_at limit 20
          for update skip locked)
        returning id, kind, to_address, subject, text_body, html_body, attempts, created_at`.execute(db)
    ).rows.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime());
    for (const mail of due) {
      if (closed) return;
      try {
        await transport.sendMail({
          from,
          to: mail.to_address,
          subject: mail.subject,
          text: mail.text_body,
          html: mail.html_body,
        });
        // Sent: drop the body, which may carry a one-time link.
        await db.deleteFrom("kassa_mail").where("id", "=", mail.id).execute();
      } catch (error) {
        const attempts = mail.attempts + 1;
        const delay = Math.min(2 ** attempts * 1000, 3_600_000) * (0.5 + Math.random() / 2);
        logger.warn(`mail delivery failed (attempt ${attempts} of ${MAX_ATTEMPTS})`, {
          kind: mail.kind,
          error: error instanceof Error ? error.message : String(error),
        });
        await db
          .updateTable("kassa_mail")
          .set({
            attempts,
            last_error: error instanceof Error ? error.message : String(error),
            next_attempt_at: new Date(clock.now().getTime() + delay),
          })
          .where("id", "=", mail.id)
          .execute();
      }
    }
  };

  const kick = () => {
    if (!started || closed || running) return;
    running = deliverDue()
      .catch((error: unknown) => logger.error("mail dispatcher failed", { error }))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    mode: "smtp",
    start() {
      if (started || closed) return;
      started = true;
      timer = setInterval(kick, POLL_MS);
      timer.unref();
      kick();
    },
    async send(message, into) {
      await store(message, into);
      if (running) void running.then(kick);
      else kick();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await running;
      transport.close();
    },
  };
}

/** The development mailbox: the newest stored mails, optionally to one address. */
export async function readMailbox(db: Kysely<KassaDatabase>, opts: { to?: string; limit: number }) {
  let query = db.selectFrom("kassa_mail").selectAll().orderBy("created_at", "desc").limit(opts.limit);
  if (opts.to) query = query.where("to_address", "=", opts.to.toLowerCase());
  return query.execute();
}
