import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { iso } from "../../kit/api/schemas.js";
import type { Clocks } from "../../kit/clock.js";
import type { Ctx } from "../../kit/context.js";
import type { Mailer } from "../../mail/mailer.js";
import { mailTemplates } from "../../mail/templates.js";
import { findCustomer, findCustomerByEmail, markCustomerEmailVerified } from "../customers/index.js";
import { findOrganization } from "../organizations/index.js";
import { generateCode, hashCode, sameHash } from "./code.js";
import { CustomerSessionCodeInvalidOrExpired } from "./errors.js";
import * as repo from "./repository.js";
import { createCustomerSession } from "./service.js";

/** How long a mailed sign-in code works, as on Polar. */
export const CODE_TTL_MS = 30 * 60 * 1000;

export interface CodeDeps {
  db: Kysely<KassaDatabase>;
  clocks: Clocks;
  mailer: Mailer;
  baseURL: string;
}

/**
 * `POST /v1/customer-portal/customer-session/request`: mails a sign-in code to the customer of
 * the organization with this e-mail. Says nothing about whether one exists: an unknown e-mail
 * or organization gets the same answer and no mail. A new code replaces the customer's earlier
 * ones. Kassa's e-mails are unique per organization, so Polar's 409 (several customers share
 * the e-mail) cannot happen; `customer_id`, when given, must be that customer.
 */
export async function requestCode(
  deps: CodeDeps,
  input: { email: string; organization_id: string; customer_id?: string | null | undefined },
): Promise<void> {
  const organization = await findOrganization(deps.db, input.organization_id);
  if (!organization) return;
  const customer = await findCustomerByEmail(deps.db, organization.id, input.email);
  if (!customer) return;
  if (input.customer_id && input.customer_id !== customer.id) return;
  const now = deps.clocks.of(organization.id).now();
  await deps.db.transaction().execute(async (trx) => {
    await repo.deleteCodesOf(trx, organization.id, customer.id);
    await repo.deleteExpiredCodes(trx, organization.id, now);
    let code = "";
    // 36^6 codes: two live ones rarely collide, and the unique hash makes a collision a redraw.
    for (let attempt = 0; attempt < 5 && !code; attempt++) {
      const drawn = generateCode();
      const stored = await repo.insertCode(trx, {
        id: randomUUID(),
        organization_id: organization.id,
        customer_id: customer.id,
        code_hash: hashCode(drawn),
        email: customer.email,
        expires_at: new Date(now.getTime() + CODE_TTL_MS),
        created_at: now,
      });
      if (stored) code = drawn;
    }
    if (!code) throw new Error("could not draw a free sign-in code");
    const query = new URLSearchParams({ email: customer.email });
    await deps.mailer.send(
      mailTemplates.portalSignInCode({
        to: customer.email,
        name: customer.name,
        organizationName: organization.name,
        code,
        expiresInMinutes: CODE_TTL_MS / 60_000,
        url: `${deps.baseURL}/portal/${encodeURIComponent(organization.slug)}?${query.toString()}`,
      }),
      trx,
    );
  });
}

/**
 * `POST /v1/customer-portal/customer-session/authenticate`: a code for a customer session
 * token. The code is taken (deleted) in the same statement that finds it, so it works once
 * even when presented twice at the same time; an expired one is gone as well. The e-mail it
 * was sent to counts as verified from now on.
 */
export async function authenticateCode(deps: CodeDeps, input: { code: string }): Promise<{ token: string }> {
  const presented = hashCode(input.code);
  return deps.db.transaction().execute(async (trx) => {
    const row = await repo.takeCode(trx, presented);
    // The lookup is by the hash through a unique index; the comparison again, in constant time.
    if (!row || !sameHash(row.code_hash, presented)) throw new CustomerSessionCodeInvalidOrExpired();
    const now = deps.clocks.of(row.organization_id).now();
    if (row.expires_at.getTime() <= now.getTime()) throw new CustomerSessionCodeInvalidOrExpired();
    const customer = await findCustomer(trx, row.organization_id, row.customer_id);
    if (!customer || customer.deleted_at) throw new CustomerSessionCodeInvalidOrExpired();
    await markCustomerEmailVerified(trx, row.organization_id, customer.id, row.email, now);
    const session = await createCustomerSession(trx, {
      organizationId: row.organization_id,
      customerId: customer.id,
      now,
    });
    return { token: session.token };
  });
}

function sessionOf(ctx: Ctx) {
  if (ctx.actor.kind !== "customer") throw new CustomerSessionCodeInvalidOrExpired();
  return { sessionId: ctx.actor.sessionId, customerId: ctx.actor.customerId };
}

/** `GET .../customer-session/introspect`: when the session ends and where the portal returns to. */
export async function introspect({ ctx }: { ctx: Ctx }) {
  const row = await repo.findSession(ctx.db, ctx.organizationId, sessionOf(ctx).sessionId);
  if (!row) throw new CustomerSessionCodeInvalidOrExpired();
  return { expires_at: iso(row.expires_at), return_url: row.return_url };
}

/** `GET .../customer-session/user`: Polar's `PortalAuthenticatedUser` (Kassa has no members). */
export async function authenticatedUser({ ctx }: { ctx: Ctx }) {
  const { customerId } = sessionOf(ctx);
  const customer = await findCustomer(ctx.db, ctx.organizationId, customerId);
  if (!customer) throw new CustomerSessionCodeInvalidOrExpired();
  return { type: "customer", name: customer.name, email: customer.email, customer_id: customer.id };
}
