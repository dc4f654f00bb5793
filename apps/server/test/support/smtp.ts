import type { AddressInfo } from "node:net";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

export interface CaughtMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Every http(s) link in the plain-text part, in order. */
  links: string[];
}

/** A real SMTP server on loopback that keeps every mail it receives. */
export class MailCatcher {
  readonly mails: CaughtMail[] = [];
  private waiters: Array<() => void> = [];
  private server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onAuth: (_auth, _session, cb) => cb(null, { user: "test" }),
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", async () => {
          const parsed = await PostalMime.parse(Buffer.concat(chunks));
          const text = parsed.text ?? "";
          this.mails.push({
            from: parsed.from?.address ?? "",
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject ?? "",
            text,
            html: parsed.html ?? "",
            links: [...text.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]),
          });
          for (const w of this.waiters.splice(0)) w();
          cb();
        });
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url() {
    return `smtp://test:test@127.0.0.1:${this.port}`;
  }

  /**
   * Resolves with the first mail (received before or after the call) matching, or throws after
   * `ms`. 25 s by default, under a test's 30: on a loaded CI machine an invitation's mail once
   * took longer than 15 s to arrive (its job queued behind the others, or retried after its backoff).
   */
  async waitFor(match: (m: CaughtMail) => boolean, ms = 25_000): Promise<CaughtMail> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.mails.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no matching mail within ${ms} ms; got: ${this.mails.map((m) => `${m.to} "${m.subject}"`).join(", ")}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The newest mail to `to` whose subject matches, waiting for it. */
  async latest(to: string, subject: RegExp, after = 0): Promise<CaughtMail> {
    return this.waitFor(
      (m) => this.mails.indexOf(m) >= after && m.to.includes(to.toLowerCase()) && subject.test(m.subject),
    );
  }

  async stop() {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
