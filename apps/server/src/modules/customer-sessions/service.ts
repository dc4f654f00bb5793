import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { RequestValidationError } from "../../kit/api/errors.js";
import { checkReferences } from "../../kit/api/references.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { type Clock, systemClock } from "../../kit/clock.js";
import { type Ctx, type Db, inTransaction } from "../../kit/context.js";
import type { Mailer } from "../../mail/mailer.js";
import { mailTemplates } from "../../mail/templates.js";
import { customerWire, findCustomer, findCustomerByExternalId } from "../customers/index.js";
import { findOrganization } from "../organizations/index.js";
import * as repo from "./repository.js";
import type {
  CustomerSessionCreateInput,
  CustomerSessionMailedWire,
  CustomerSessionWire,
} from "./schemas.js";
import { CUSTOMER_SESSION_PREFIX, generateSessionToken, hashSessionToken } from "./token.js";

/** How long a customer session stays valid, as on Polar. */
export const CUSTOMER_SESSION_TTL_MS = 60 * 60 * 1000;

/** A `polar_cst_...` token valid 1 hour; stored as SHA-256; the token is returned once. */
export async function createCustomerSession(
  trx: Db,
  input: {
    organizationId: string;
    customerId: string;
    returnUrl?: string | null;
    now: Date;
    /** Only saving a card (`CustomerSessionPurpose`); the whole portal without it. */
    purpose?: CustomerSessionPurpose;
  },
): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = generateSessionToken();
  const id = randomUUID();
  // Real time, as it is checked (`authenticateCustomerSession`): a session's hour is the
  // customer's, not the sandbox's test clock's (after an advance of a year, an hour from the
  // organization's clock would last a year; the session survives an advance, as a browser's).
  const expiresAt = new Date(systemClock.now().getTime() + CUSTOMER_SESSION_TTL_MS);
  await repo.insertSession(trx, {
    id,
    organization_id: input.organizationId,
    customer_id: input.customerId,
    token_hash: hashSessionToken(token),
    return_url: input.returnUrl ?? null,
    expires_at: expiresAt,
    created_at: input.now,
    modified_at: null,
    purpose: input.purpose ?? null,
  });
  return { id, token, expiresAt };
}

/** A session that may do one thing only: `payment_methods`, save a card (a dunning mail's link). */
export type CustomerSessionPurpose = "payment_methods";

/**
 * What a session of that purpose may send: saving a card (and finishing a save the bank asked
 * the customer to confirm), nothing else of the portal.
 */
const PURPOSE_REQUESTS: Record<CustomerSessionPurpose, { method: string; paths: readonly string[] }> = {
  payment_methods: {
    method: "POST",
    paths: [
      "/v1/customer-portal/customers/me/payment-methods",
      "/v1/customer-portal/customers/me/payment-methods/confirm",
    ],
  },
};

/** Whether a session of `purpose` may send this request (a trailing slash tolerated). */
export function purposeAllows(purpose: CustomerSessionPurpose, method: string, path: string): boolean {
  const allowed = PURPOSE_REQUESTS[purpose];
  return method === allowed.method && allowed.paths.includes(path.replace(/\/$/, ""));
}

export interface AuthenticatedCustomerSession {
  sessionId: string;
  organizationId: string;
  customerId: string;
  purpose: CustomerSessionPurpose | null;
}

/**
 * The session behind a `polar_cst_...` bearer credential, or null when it is unknown, expired
 * or its customer was deleted. The lookup is by SHA-256 of the presented value through a
 * unique index: only hashes are compared, so timing says nothing about a token.
 */
export async function authenticateCustomerSession(
  db: Db,
  clock: Clock,
  presented: string,
): Promise<AuthenticatedCustomerSession | null> {
  if (!presented.startsWith(CUSTOMER_SESSION_PREFIX)) return null;
  const row = await repo.findLiveSessionByHash(db, hashSessionToken(presented));
  if (!row || row.expires_at.getTime() <= clock.now().getTime()) return null;
  return {
    sessionId: row.id,
    organizationId: row.organization_id,
    customerId: row.customer_id,
    purpose: (row.purpose as CustomerSessionPurpose | null) ?? null,
  };
}

/**
 * Where a customer session opens the customer portal: Kassa's web app at
 * `/portal/{organization slug}`, with the token (and the e-mail, as Polar adds it) in the query.
 */
export function customerPortalUrl(baseURL: string, slug: string, token: string, email: string): string {
  const query = new URLSearchParams({ customer_session_token: token, email });
  return `${baseURL}/portal/${encodeURIComponent(slug)}?${query.toString()}`;
}

const CUSTOMER_MISSING = "Customer does not exist.";

function customerMissing(field: string, input: unknown) {
  return RequestValidationError.field(["body", field], CUSTOMER_MISSING, input);
}

type SessionCustomer = NonNullable<Awaited<ReturnType<typeof findCustomer>>>;

/**
 * A session for a live customer of the caller's organization, named by `customer_id` or by
 * `external_customer_id`; `then` runs in the same transaction (the answer, or the mail that
 * carries the link), so the session exists exactly when it commits.
 */
async function withNewSession<T>(
  ctx: Ctx,
  input: CustomerSessionCreateInput,
  then: (
    trx: Transaction<KassaDatabase>,
    made: {
      customer: SessionCustomer;
      session: { id: string; token: string; expiresAt: Date };
      returnUrl: string | null;
      now: Date;
    },
  ) => Promise<T>,
): Promise<T> {
  const externalId = input.external_customer_id ?? input.customer_external_id;
  let by: { id: string } | { externalId: string };
  let field: string;
  let value: string;
  if (input.customer_id !== undefined) {
    if (!isUuid(input.customer_id))
      throw RequestValidationError.field(
        ["body", "customer_id"],
        "Input should be a valid UUID",
        input.customer_id,
        "uuid_parsing",
      );
    by = { id: input.customer_id };
    field = "customer_id";
    value = input.customer_id;
  } else if (externalId !== undefined) {
    by = { externalId };
    field = "external_customer_id";
    value = externalId;
  } else {
    throw new RequestValidationError([
      { type: "missing", loc: ["body", "customer_id"], msg: "Field required", input: null },
      { type: "missing", loc: ["body", "external_customer_id"], msg: "Field required", input: null },
    ]);
  }
  const now = ctx.clock.now();
  return inTransaction(ctx, async (trx) => {
    if ("id" in by)
      await checkReferences(trx, ctx.organizationId, [
        { kind: "customer", id: by.id, loc: ["body", field], msg: CUSTOMER_MISSING },
      ]);
    const customer =
      "id" in by
        ? await findCustomer(trx, ctx.organizationId, by.id)
        : await findCustomerByExternalId(trx, ctx.organizationId, by.externalId);
    if (!customer) throw customerMissing(field, value);
    const returnUrl = input.return_url ?? null;
    const session = await createCustomerSession(trx, {
      organizationId: ctx.organizationId,
      customerId: customer.id,
      returnUrl,
      now,
    });
    // Sessions expired for a day are dead weight: a bounded batch goes with each new one.
    await repo.deleteExpired(
      trx,
      ctx.organizationId,
      new Date(systemClock.now().getTime() - 24 * 60 * 60 * 1000),
      100,
    );
    return then(trx, { customer, session, returnUrl, now });
  });
}

/** `POST /v1/customer-sessions/`: a session for a live customer of the caller's organization. */
export async function openCustomerSession({
  ctx,
  input,
  baseURL,
}: {
  ctx: Ctx;
  input: CustomerSessionCreateInput;
  baseURL: string;
}): Promise<CustomerSessionWire> {
  return withNewSession(ctx, input, async (trx, { customer, session, returnUrl, now }) => {
    const slug = await repo.organizationSlug(trx, ctx.organizationId);
    return {
      created_at: iso(now),
      modified_at: null,
      id: session.id,
      token: session.token,
      expires_at: iso(session.expiresAt),
      return_url: returnUrl,
      customer_portal_url: customerPortalUrl(baseURL, slug, session.token, customer.email),
      customer_id: customer.id,
      customer: customerWire(customer),
    };
  });
}

/**
 * `POST /v1/customer-sessions/email` (Kassa's own): the same session, its portal link mailed to
 * the customer's own address (plain text and HTML) in the transaction that makes it. The token
 * is not answered: the merchant who sends the link never holds it.
 */
export async function mailCustomerSession({
  ctx,
  input,
  baseURL,
  mailer,
}: {
  ctx: Ctx;
  input: CustomerSessionCreateInput;
  baseURL: string;
  mailer: Mailer;
}): Promise<CustomerSessionMailedWire> {
  return withNewSession(ctx, input, async (trx, { customer, session, returnUrl, now }) => {
    const organization = await findOrganization(trx, ctx.organizationId);
    if (!organization) throw new Error(`organization ${ctx.organizationId} vanished`);
    await mailer.send(
      mailTemplates.portalLink({
        to: customer.email,
        name: customer.name,
        organizationName: organization.name,
        expiresInMinutes: CUSTOMER_SESSION_TTL_MS / 60_000,
        url: customerPortalUrl(baseURL, organization.slug, session.token, customer.email),
      }),
      trx,
    );
    return {
      id: session.id,
      created_at: iso(now),
      expires_at: iso(session.expiresAt),
      return_url: returnUrl,
      customer_id: customer.id,
      email: customer.email,
    };
  });
}
