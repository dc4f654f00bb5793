import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server speaking the few Stripe API endpoints Kassa's Stripe adapter uses
 * (customers, setup intents, payment intents, refunds, a customer's payment methods), with
 * Stripe's form-encoded requests, error bodies and idempotency keys. Confirmation tokens are
 * named after the card they stand for: `ctoken_<card>_<anything>`, with <card> one of
 * `visa` (succeeds), `declined` (generic_decline), `insufficient` (insufficient_funds),
 * `chargeFails` (saves, but charges are declined: Stripe's 0341), `lostLater` (saves, and charges
 * are declined as a card reported lost: `lost_card`, which no retry can mend), `threeDS` (needs action).
 */

type Obj = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  form: URLSearchParams;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  /** The status the fake answered with, once it has. */
  answered?: number;
}

type CardKind = "visa" | "declined" | "insufficient" | "chargeFails" | "lostLater" | "threeDS";

const DECLINES: Record<string, { decline_code: string; message: string }> = {
  declined: { decline_code: "generic_decline", message: "Your card was declined." },
  insufficient: { decline_code: "insufficient_funds", message: "Your card has insufficient funds." },
  chargeFails: { decline_code: "generic_decline", message: "Your card was declined." },
  lostLater: { decline_code: "lost_card", message: "Your card was declined." },
};

class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: Obj,
  ) {
    super(String(body.message));
  }
}

const missing = (what: string, id: string, param: string) =>
  new StripeFailure(404, {
    type: "invalid_request_error",
    code: "resource_missing",
    param,
    message: `No such ${what}: '${id}'`,
  });

export interface FakeStripe {
  url: string;
  requests: RecordedRequest[];
  /** A Stripe object by id, as the fake holds it (for assertions). */
  object(id: string): Obj | undefined;
  /** The first object the fake holds that `match` accepts (for assertions). */
  find(match: (o: Obj) => boolean): Obj | undefined;
  /** The status new refunds get: `succeeded` (default) or `pending` (as bank transfers refund). */
  settings: {
    refundStatus: "succeeded" | "pending";
    /** Answers this many refund requests with a 500 after making the refund (a lost answer). */
    lostRefundAnswers: number;
    /**
     * Awaited before a request acts (`beforeRoute`) and after it acted, before its answer
     * (`beforeReply`): a test holds requests there to order those of several processes.
     */
    beforeRoute?: ((request: RecordedRequest) => Promise<void> | void) | undefined;
    beforeReply?: ((request: RecordedRequest, status: number) => Promise<void> | void) | undefined;
  };
  /**
   * Fails a pending refund as the bank would (or cancels it, `canceled`, as Stripe does with a
   * refund whose destination details never came): the amount is refundable again on its charge.
   */
  failRefund(id: string, status?: "failed" | "canceled"): Obj;
  /** The customer passes a setup intent's 3-D Secure challenge: it succeeds, its card saved on the customer. */
  completeSetupAction(id: string): Obj;
  /** The customer fails the challenge: the setup intent wants another card, with Stripe's error. */
  failSetupAction(id: string): Obj;
  /**
   * The buyer passes a payment intent's 3-D Secure challenge: the intent succeeds and, when it
   * was made for future use, its card is saved on the customer, as Stripe does. Answers the
   * intent as Stripe's `payment_intent.succeeded` carries it (the card by id).
   */
  completeAction(id: string): Obj;
  close(): Promise<void>;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const objects = new Map<string, Obj>();
  const usedTokens = new Set<string>();
  const idempotency = new Map<string, { hash: string; status: number; body: Obj }>();
  const requests: RecordedRequest[] = [];
  const settings: FakeStripe["settings"] = { refundStatus: "succeeded", lostRefundAnswers: 0 };
  let counter = 0;
  const newId = (prefix: string) => `${prefix}_fake${String(++counter).padStart(6, "0")}`;

  const metadataOf = (form: URLSearchParams) => {
    const out: Record<string, string> = {};
    for (const [k, v] of form) {
      const m = /^metadata\[(.+)\]$/.exec(k);
      if (m?.[1]) out[m[1]] = v;
    }
    return out;
  };

  const customerOr404 = (id: string | null, param = "customer") => {
    const c = id ? objects.get(id) : undefined;
    if (c?.object !== "customer") throw missing("customer", id ?? "", param);
    return c;
  };

  const cardFromToken = (token: string): CardKind => {
    const kind = /^ctoken_([A-Za-z]+)_/.exec(token)?.[1] as CardKind | undefined;
    if (!kind || !["visa", "declined", "insufficient", "chargeFails", "lostLater", "threeDS"].includes(kind))
      throw missing("confirmationtoken", token, "confirmation_token");
    if (usedTokens.has(token))
      throw new StripeFailure(400, {
        type: "invalid_request_error",
        code: "confirmation_token_already_used",
        param: "confirmation_token",
        message: "This ConfirmationToken has already been used.",
      });
    usedTokens.add(token);
    return kind;
  };

  const newMethod = (kind: CardKind): Obj => {
    const pm = {
      id: newId("pm"),
      object: "payment_method",
      type: "card",
      customer: null,
      card: { brand: "visa", last4: kind === "visa" ? "4242" : "0341", exp_month: 12, exp_year: 2034 },
      _kind: kind,
    };
    objects.set(pm.id, pm);
    return pm;
  };

  const publicView = (o: Obj): Obj => {
    const { _kind, ...rest } = o;
    return rest;
  };

  function setupIntent(form: URLSearchParams): Obj {
    const customer = customerOr404(form.get("customer"));
    const kind = cardFromToken(form.get("confirmation_token") ?? "");
    const siId = newId("seti");
    const si: Obj = {
      id: siId,
      object: "setup_intent",
      customer: customer.id,
      client_secret: `${siId}_secret_${counter}`,
      metadata: metadataOf(form),
      usage: form.get("usage"),
      last_setup_error: null,
    };
    const pm = newMethod(kind);
    if (kind === "declined" || kind === "insufficient") {
      const decline = DECLINES[kind]!;
      Object.assign(si, { status: "requires_payment_method", payment_method: null });
      objects.set(si.id as string, si);
      throw new StripeFailure(402, {
        type: "card_error",
        code: "card_declined",
        ...decline,
        setup_intent: si,
      });
    }
    if (kind === "threeDS") {
      Object.assign(si, { status: "requires_action", payment_method: pm.id });
    } else {
      pm.customer = customer.id;
      Object.assign(si, { status: "succeeded", payment_method: publicView(pm) });
    }
    objects.set(si.id as string, si);
    return si;
  }

  function paymentIntent(form: URLSearchParams): Obj {
    const customer = customerOr404(form.get("customer"));
    const amount = Number(form.get("amount"));
    let pm: Obj;
    const pmId = form.get("payment_method");
    if (pmId) {
      const found = objects.get(pmId);
      if (found?.object !== "payment_method") throw missing("payment_method", pmId, "payment_method");
      if (found.customer !== customer.id)
        throw new StripeFailure(400, {
          type: "invalid_request_error",
          code: "payment_method_not_available",
          param: "payment_method",
          message: "The provided PaymentMethod does not belong to this customer.",
        });
      pm = found;
    } else {
      pm = newMethod(cardFromToken(form.get("confirmation_token") ?? ""));
    }
    const kind = pm._kind as CardKind;
    const pi: Obj = {
      id: newId("pi"),
      object: "payment_intent",
      amount,
      amount_received: 0,
      currency: form.get("currency"),
      customer: customer.id,
      client_secret: `pi_secret_${counter}`,
      metadata: metadataOf(form),
      off_session: form.get("off_session") === "true",
      setup_future_usage: form.get("setup_future_usage"),
      last_payment_error: null,
      payment_method: publicView(pm),
    };
    objects.set(pi.id as string, pi);
    const decline = DECLINES[kind];
    if (decline) {
      const error = { type: "card_error", code: "card_declined", ...decline };
      Object.assign(pi, { status: "requires_payment_method", last_payment_error: error });
      throw new StripeFailure(402, { ...error, payment_intent: pi });
    }
    if (kind === "threeDS" && !pi.off_session) {
      pi.status = "requires_action";
      return pi;
    }
    if (form.get("setup_future_usage") === "off_session") pm.customer = customer.id;
    Object.assign(pi, { status: "succeeded", amount_received: amount, _refunded: 0 });
    return pi;
  }

  function refund(form: URLSearchParams): Obj {
    const piId = form.get("payment_intent") ?? "";
    const pi = objects.get(piId);
    if (pi?.object !== "payment_intent") throw missing("payment_intent", piId, "payment_intent");
    const refunded = Number(pi._refunded ?? 0);
    const left = Number(pi.amount_received) - refunded;
    if (left <= 0)
      throw new StripeFailure(400, {
        type: "invalid_request_error",
        code: "charge_already_refunded",
        message: `Charge ${piId} has already been refunded.`,
      });
    const amount = form.get("amount") ? Number(form.get("amount")) : left;
    if (amount > left)
      throw new StripeFailure(400, {
        type: "invalid_request_error",
        code: "amount_too_large",
        param: "amount",
        message: `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`,
      });
    pi._refunded = refunded + amount;
    const re: Obj = {
      id: newId("re"),
      object: "refund",
      amount,
      currency: pi.currency,
      payment_intent: pi.id,
      reason: form.get("reason"),
      metadata: metadataOf(form),
      status: settings.refundStatus,
    };
    objects.set(re.id as string, re);
    return re;
  }

  function route(method: string, path: string, form: URLSearchParams, query: URLSearchParams): Obj {
    if (method === "POST" && path === "/v1/customers") {
      const c = {
        id: newId("cus"),
        object: "customer",
        email: form.get("email"),
        name: form.get("name"),
        metadata: metadataOf(form),
      };
      objects.set(c.id, c);
      return c;
    }
    let m = /^\/v1\/customers\/([^/]+)$/.exec(path);
    if (method === "GET" && m?.[1]) return customerOr404(m[1], "id");
    m = /^\/v1\/customers\/([^/]+)\/payment_methods$/.exec(path);
    if (method === "GET" && m?.[1]) {
      const c = customerOr404(m[1], "customer");
      const data = [...objects.values()]
        .filter(
          (o) =>
            o.object === "payment_method" && o.customer === c.id && o.type === (query.get("type") ?? "card"),
        )
        .reverse()
        .map(publicView);
      return { object: "list", data, has_more: false, url: path };
    }
    if (method === "POST" && path === "/v1/setup_intents") return setupIntent(form);
    m = /^\/v1\/setup_intents\/([^/]+)$/.exec(path);
    if (method === "GET" && m?.[1]) {
      const si = objects.get(m[1]);
      if (si?.object !== "setup_intent") throw missing("setup_intent", m[1], "intent");
      const ref = si.payment_method;
      const pmId = typeof ref === "string" ? ref : ((ref as Obj | null)?.id as string | undefined);
      const pm = pmId ? objects.get(pmId) : undefined;
      const expand = [...query.entries()].some(([k, v]) => k.startsWith("expand") && v === "payment_method");
      return { ...si, payment_method: pm && expand ? publicView(pm) : (pmId ?? null) };
    }
    if (method === "POST" && path === "/v1/payment_intents") return publicView(paymentIntent(form));
    if (method === "GET" && path === "/v1/payment_intents/search") {
      // Only the query form Kassa sends: metadata['<key>']:'<value>'.
      const q = /^metadata\['([^']+)'\]:'([^']*)'$/.exec(query.get("query") ?? "");
      if (!q)
        throw new StripeFailure(400, {
          type: "invalid_request_error",
          param: "query",
          message: "The fake understands only metadata['key']:'value'.",
        });
      const data = [...objects.values()]
        .filter((o) => o.object === "payment_intent" && (o.metadata as Obj)?.[q[1]!] === q[2])
        .reverse()
        .map(publicView);
      return { object: "search_result", data, has_more: false, next_page: null, url: path };
    }
    m = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(path);
    if (method === "POST" && m?.[1]) {
      const pi = objects.get(m[1]);
      if (pi?.object !== "payment_intent") throw missing("payment_intent", m[1], "intent");
      // Stripe cancels an intent still waiting for something, never a finished one.
      if (pi.status === "succeeded" || pi.status === "canceled")
        throw new StripeFailure(400, {
          type: "invalid_request_error",
          code: "payment_intent_unexpected_state",
          message: `You cannot cancel this PaymentIntent because it has a status of ${pi.status as string}.`,
        });
      Object.assign(pi, { status: "canceled", cancellation_reason: form.get("cancellation_reason") });
      return publicView(pi);
    }
    if (method === "POST" && path === "/v1/refunds") return refund(form);
    throw new StripeFailure(404, {
      type: "invalid_request_error",
      message: `Unrecognized request URL (${method}: ${path}).`,
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? "/", "http://fake");
    const form = new URLSearchParams(raw);
    const method = req.method ?? "GET";
    const key = req.headers["idempotency-key"] as string | undefined;
    const recorded: RecordedRequest = {
      method,
      path: url.pathname,
      form,
      idempotencyKey: key,
      authorization: req.headers.authorization,
    };
    requests.push(recorded);
    const reply = (status: number, body: Obj) => {
      recorded.answered = status;
      res.writeHead(status, { "content-type": "application/json", "request-id": `req_${counter}` });
      res.end(JSON.stringify(body));
    };
    if (!req.headers.authorization?.startsWith("Bearer sk_test_"))
      return reply(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });

    const hash = createHash("sha256").update(`${method} ${url.pathname} ${raw}`).digest("hex");
    if (method === "POST" && key) {
      const seen = idempotency.get(key);
      if (seen) {
        if (seen.hash !== hash)
          return reply(400, {
            error: {
              type: "idempotency_error",
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            },
          });
        if (url.pathname === "/v1/refunds" && settings.lostRefundAnswers > 0) {
          settings.lostRefundAnswers -= 1;
          return reply(500, { error: { type: "api_error", message: "An unknown error occurred." } });
        }
        return reply(seen.status, seen.body);
      }
    }
    let status = 200;
    let body: Obj;
    await settings.beforeRoute?.(recorded);
    try {
      body = route(method, url.pathname, form, url.searchParams);
    } catch (error) {
      if (!(error instanceof StripeFailure)) throw error;
      status = error.status;
      body = { error: error.body };
    }
    if (method === "POST" && key) idempotency.set(key, { hash, status, body });
    if (method === "POST" && url.pathname === "/v1/refunds" && settings.lostRefundAnswers > 0) {
      settings.lostRefundAnswers -= 1;
      return reply(500, { error: { type: "api_error", message: "An unknown error occurred." } });
    }
    await settings.beforeReply?.(recorded, status);
    reply(status, body);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { type: "api_error", message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    object: (id) => objects.get(id),
    find: (match) => [...objects.values()].find(match),
    settings,
    failRefund(id, status = "failed") {
      const re = objects.get(id);
      if (re?.object !== "refund") throw new Error(`no refund ${id}`);
      const pi = objects.get(re.payment_intent as string);
      if (pi && re.status !== "failed" && re.status !== "canceled")
        pi._refunded = Number(pi._refunded ?? 0) - Number(re.amount);
      re.status = status;
      return re;
    },
    failSetupAction(id) {
      const si = objects.get(id);
      if (si?.object !== "setup_intent" || si.status !== "requires_action")
        throw new Error(`no setup intent ${id} waiting for an action`);
      Object.assign(si, {
        status: "requires_payment_method",
        last_setup_error: {
          type: "card_error",
          code: "setup_intent_authentication_failure",
          message:
            "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
        },
      });
      return si;
    },
    completeSetupAction(id) {
      const si = objects.get(id);
      if (si?.object !== "setup_intent" || si.status !== "requires_action")
        throw new Error(`no setup intent ${id} waiting for an action`);
      const pm = objects.get(si.payment_method as string);
      if (pm) pm.customer = si.customer;
      si.status = "succeeded";
      return si;
    },
    completeAction(id) {
      const pi = objects.get(id);
      if (pi?.object !== "payment_intent" || pi.status !== "requires_action")
        throw new Error(`no payment intent ${id} waiting for an action`);
      const pm = objects.get((pi.payment_method as Obj).id as string);
      if (pm && pi.setup_future_usage === "off_session") pm.customer = pi.customer;
      Object.assign(pi, { status: "succeeded", amount_received: pi.amount, _refunded: 0 });
      return { ...publicView(pi), payment_method: pm?.id ?? null };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
