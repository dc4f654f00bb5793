import type { CustomerBenefitGrantUpdateValue } from "@kassa/contracts/v1";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { RequestValidationError } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { isUuid } from "../../kit/api/schemas.js";
import { type Ctx, type Db, inTransaction } from "../../kit/context.js";
import { findBenefitsWithDeleted } from "../benefits/index.js";
import { connectedAccounts, type OAuthPlatform } from "../oauth-accounts/index.js";
import { BenefitGrantNotFound, BenefitNotFound } from "./errors.js";
import { enqueueGrantSyncs } from "./jobs.js";
import * as repo from "./repository.js";
import { grantsWire } from "./wire.js";

const uuids = (ids: string[] | undefined) => (ids && ids.length > 0 ? ids.filter(isUuid) : undefined);

export interface GrantListInput extends Page {
  customer_id?: string[] | undefined;
  external_customer_id?: string[] | undefined;
  is_granted?: boolean | undefined;
  sorting?: string[] | undefined;
}

/** `GET /v1/benefit-grants/`: the organization's grants. */
export async function listGrants({ ctx, input }: { ctx: Ctx; input: GrantListInput }) {
  const { rows, total } = await repo.listGrants(
    ctx.db,
    ctx.organizationId,
    {
      customerIds: uuids(input.customer_id),
      externalCustomerIds: input.external_customer_id?.length ? input.external_customer_id : undefined,
      isGranted: input.is_granted,
    },
    input,
    parseSorting<repo.GrantSortField>(input.sorting),
  );
  return listResult(await grantsWire(ctx.db, ctx.organizationId, rows), total, input);
}

/** `GET /v1/benefits/{id}/grants`: a benefit's grants (404 for a benefit the organization does not have). */
export async function listBenefitGrants({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: GrantListInput & { id: string };
}) {
  const [benefit] = isUuid(input.id)
    ? await findBenefitsWithDeleted(ctx.db, ctx.organizationId, [input.id])
    : [];
  if (!benefit || benefit.deleted_at) throw new BenefitNotFound();
  const { rows, total } = await repo.listGrants(
    ctx.db,
    ctx.organizationId,
    { benefitIds: [benefit.id], customerIds: uuids(input.customer_id), isGranted: input.is_granted },
    input,
    parseSorting<repo.GrantSortField>(input.sorting),
  );
  return listResult(await grantsWire(ctx.db, ctx.organizationId, rows), total, input);
}

/**
 * Kassa's `POST /v1/benefit-grants/{id}/retry`: runs the customer's sync again now, trying this
 * grant even when its failure waits for the customer. Answers the grant as it is; the outcome
 * arrives with `benefit_grant.created` (or `.updated`).
 */
export async function retryGrant({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findGrant(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new BenefitGrantNotFound();
  await inTransaction(ctx, (trx) =>
    enqueueGrantSyncs(trx, [
      { organizationId: ctx.organizationId, customerId: row.customer_id, retryGrantId: row.id },
    ]),
  );
  const [wire] = await grantsWire(ctx.db, ctx.organizationId, [row]);
  return wire!;
}

/** A customer's own grants (the portal): rows, for the portal module to answer in its shapes. */
export async function listCustomerGrantRows(
  ctx: Ctx,
  caller: { organizationId: string; customerId: string },
  input: Page & {
    type?: string[] | undefined;
    benefit_id?: string[] | undefined;
    order_id?: string[] | undefined;
    subscription_id?: string[] | undefined;
    checkout_id?: string[] | undefined;
    query?: string | undefined;
    sorting?: string[] | undefined;
  },
) {
  return repo.listGrants(
    ctx.db,
    caller.organizationId,
    {
      customerIds: [caller.customerId],
      benefitTypes: input.type?.length ? input.type : undefined,
      benefitIds: uuids(input.benefit_id),
      orderIds: uuids(input.order_id),
      subscriptionIds: uuids(input.subscription_id),
      checkoutIds: uuids(input.checkout_id),
      notRevoked: true,
      query: input.query,
    },
    input,
    parseSorting<repo.GrantSortField>(input.sorting?.length ? input.sorting : ["-granted_at"]),
  );
}

/** One of the customer's grants (not revoked: the portal shows none), or undefined. */
export async function findCustomerGrantRow(
  ctx: Ctx,
  caller: { organizationId: string; customerId: string },
  id: string,
) {
  if (!isUuid(id)) return undefined;
  const row = await repo.findGrant(ctx.db, caller.organizationId, id);
  return row && row.customer_id === caller.customerId && row.revoked_at === null ? row : undefined;
}

/** A customer's grants for one cause (an order, or a subscription), revoked ones included. */
export async function grantsOfCause(
  db: Db,
  organizationId: string,
  customerId: string,
  cause: { orderId: string | null; subscriptionId: string | null },
) {
  const rows = await repo.grantsOfCustomer(db, organizationId, customerId);
  return rows.filter((g) =>
    cause.subscriptionId ? g.subscription_id === cause.subscriptionId : g.order_id === cause.orderId,
  );
}

/**
 * The customer connected an account of the platform a benefit type acts on (the portal's OAuth
 * callback, in its transaction): each grant of that type waiting for them gets the account
 * (`account_id`, as Polar does) and is granted again by a sync queued here, whose outcome is
 * sent as `benefit_grant.updated`.
 */
export async function grantAwaitingAccount(
  trx: Db,
  input: { organizationId: string; customerId: string; benefitType: string; accountId: string; now: Date },
): Promise<void> {
  await repo.lockCustomerGrants(trx, input.customerId);
  const waiting = await repo.lockGrantsAwaitingAccount(
    trx,
    input.organizationId,
    input.customerId,
    input.benefitType,
  );
  for (const g of waiting)
    await repo.updateGrant(trx, g.id, {
      properties: JSON.stringify({ ...g.properties, account_id: input.accountId }),
      modified_at: input.now,
    });
  await enqueueGrantSyncs(trx, [
    {
      organizationId: input.organizationId,
      customerId: input.customerId,
      connectedGrantIds: waiting.map((g) => g.id),
    },
  ]);
}

/** The platform whose connected account a benefit type acts on. */
const ACCOUNT_PLATFORM: Partial<Record<string, OAuthPlatform>> = {
  github_repository: "github",
  discord: "discord",
};

/**
 * `PATCH /v1/customer-portal/benefit-grants/{id}` (Polar's): the customer picks which of their
 * connected accounts a GitHub or Discord grant goes to (`properties.account_id`; `null` for
 * none). Under the customer's grant lock: the grant must be theirs and not revoked, the
 * `benefit_type` the grant's and the account one the customer connected on that
 * platform (422 naming the field). The account is put on the grant, its error cleared, and a
 * sync queued that grants it again (moving access from the previous account) and sends
 * `benefit_grant.updated`. For other types nothing changes. Undefined: not the customer's grant.
 */
export async function updateCustomerGrant(
  ctx: Ctx,
  caller: { organizationId: string; customerId: string },
  id: string,
  update: CustomerBenefitGrantUpdateValue,
): Promise<repo.GrantRow | undefined> {
  if (!isUuid(id)) return undefined;
  return inTransaction(ctx, async (trx) => {
    await repo.lockCustomerGrants(trx, caller.customerId);
    const row = await repo.findGrant(trx, caller.organizationId, id);
    // A revoked grant is not found, as Polar's portal reads only grants not revoked (its 403
    // "Cannot update a revoked benefit grant." cannot be reached either).
    if (!row || row.customer_id !== caller.customerId || row.revoked_at !== null) return undefined;
    const [benefit] = await findBenefitsWithDeleted(trx, caller.organizationId, [row.benefit_id]);
    if (!benefit || benefit.type !== update.benefit_type)
      throw RequestValidationError.field(
        ["body", "benefit_type"],
        "Benefit type must match the existing granted benefit type.",
        update.benefit_type,
      );
    const platform = ACCOUNT_PLATFORM[benefit.type];
    if (!platform || !("properties" in update)) return row;
    const accountId = update.properties.account_id;
    if (accountId !== null) {
      const accounts = await connectedAccounts(trx, caller.organizationId, caller.customerId);
      if (!accounts[`${platform}:${accountId}`])
        throw RequestValidationError.field(
          ["body", "properties", "account_id"],
          "OAuth account does not exist.",
          accountId,
        );
    }
    const updated = await repo.updateGrant(trx, row.id, {
      properties: JSON.stringify({ ...row.properties, account_id: accountId }),
      error: JSON.stringify(null),
      modified_at: ctx.clock.now(),
    });
    await enqueueGrantSyncs(trx, [
      { organizationId: caller.organizationId, customerId: caller.customerId, updatedGrantIds: [row.id] },
    ]);
    return updated;
  });
}

/**
 * A merchant set a license key's status (`PATCH /v1/license-keys/{id}`), in that transaction,
 * as Polar's `license_key.sync_benefit_grant`: `revoked` takes the key's grant back
 * (`benefit_grant.revoked`), and marks it so that the customer's later syncs (a renewal, a
 * catalog edit) do not give it again; `granted` lifts the mark and grants it again when its
 * cause still entitles the customer. `disabled` is the key's alone.
 */
export async function licenseKeyStatusSet(
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  key: { id: string; benefitId: string; customerId: string; status: string },
): Promise<void> {
  if (key.status !== "revoked" && key.status !== "granted") return;
  const grant = await repo.lockGrantOfLicenseKey(trx, ctx.organizationId, key);
  if (!grant) return;
  const revoke = key.status === "revoked";
  if (revoke === (grant.merchant_revoked_at !== null)) return;
  await repo.updateGrant(trx, grant.id, {
    merchant_revoked_at: revoke ? ctx.clock.now() : null,
    modified_at: ctx.clock.now(),
  });
  await enqueueGrantSyncs(trx, [{ organizationId: ctx.organizationId, customerId: key.customerId }]);
}
