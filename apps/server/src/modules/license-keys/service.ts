import { randomUUID } from "node:crypto";
import type { Transaction, Updateable } from "kysely";
import type { KassaDatabase, LicenseKeyTable } from "../../db/schema.js";
import { ResourceNotFound, Unauthorized } from "../../kit/api/errors.js";
import { listResult, type Page } from "../../kit/api/list.js";
import { isUuid } from "../../kit/api/schemas.js";
import { type Ctx, type Db, inTransaction } from "../../kit/context.js";
import { findBenefit } from "../benefits/index.js";
import { findCustomersById } from "../customers/index.js";
import { findOrganization } from "../organizations/index.js";
import { activateRefusals, LicenseKeyNotFound, validateRefusals } from "./errors.js";
import { cachedKey, cacheKeyRow, forgetLicenseKey } from "./key-cache.js";
import * as repo from "./repository.js";
import type {
  LicenseKeyActivateInput,
  LicenseKeyActivationReadWire,
  LicenseKeyDeactivateInput,
  LicenseKeyStatus,
  LicenseKeyUpdateInput,
  LicenseKeyValidateInput,
  LicenseKeyWithActivationsWire,
  ValidatedLicenseKeyWire,
} from "./schemas.js";
import { publicKeyWire, signingKeyOf } from "./signing.js";
import { pendingValidations, stableRead, validationCountsOf } from "./validation-counts.js";
import { activationWire, licenseKeysWire, licenseKeyWire, oneLicenseKeyWire } from "./wire.js";

/** The customer of a portal session; their reads are limited to their own keys. */
function customerOf(ctx: Ctx): string {
  if (ctx.actor.kind !== "customer") throw new Unauthorized();
  return ctx.actor.customerId;
}

export async function listLicenseKeys({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    organization_id?: string[] | undefined;
    benefit_id?: string[] | undefined;
    status?: LicenseKeyStatus[] | undefined;
  };
}) {
  // A filter on other organizations than the caller's names nothing of theirs.
  if (input.organization_id && !input.organization_id.includes(ctx.organizationId))
    return listResult([], 0, input);
  const { rows, total } = await stableRead(ctx.db, () =>
    repo.listLicenseKeys(
      ctx.db,
      ctx.organizationId,
      { benefitIds: input.benefit_id?.filter(isUuid), statuses: input.status },
      input,
    ),
  );
  return listResult(await licenseKeysWire(ctx.db, ctx.organizationId, counted(ctx, rows)), total, input);
}

/** Rows of a read, with this process's pending validation counts. */
function counted(ctx: Ctx, rows: repo.LicenseKeyRow[]): repo.LicenseKeyRow[] {
  return rows.map((row) => withPendingCounts(ctx, row));
}

async function findOrThrow(db: Db, organizationId: string, id: string, customerId?: string) {
  const row = isUuid(id)
    ? await stableRead(db, () =>
        repo.findLicenseKey(db, organizationId, id, customerId ? { customerId } : {}),
      )
    : undefined;
  if (!row) throw LicenseKeyNotFound();
  return row;
}

async function withActivations(db: Db, row: repo.LicenseKeyRow, show: boolean) {
  const [wire, activations] = await Promise.all([
    oneLicenseKeyWire(db, row),
    show ? repo.listActivations(db, row.id) : Promise.resolve([]),
  ]);
  return { ...wire, activations: activations.map(activationWire) } satisfies LicenseKeyWithActivationsWire;
}

export async function getLicenseKey({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = await findOrThrow(ctx.db, ctx.organizationId, input.id);
  return withActivations(ctx.db, withPendingCounts(ctx, row), true);
}

export async function getActivation({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; activation_id: string };
}): Promise<LicenseKeyActivationReadWire> {
  const row = await findOrThrow(ctx.db, ctx.organizationId, input.id);
  const activation = isUuid(input.activation_id)
    ? await repo.findActivation(ctx.db, row.id, input.activation_id)
    : undefined;
  if (!activation) throw LicenseKeyNotFound();
  return {
    ...activationWire(activation),
    license_key: await oneLicenseKeyWire(ctx.db, withPendingCounts(ctx, row)),
  };
}

/**
 * `PATCH /v1/license-keys/{id}`: only the fields sent change; null clears a limit or the
 * expiry (a null status changes nothing). The key string stays: a signed key keeps the expiry
 * it was signed with offline, while online checks use the new one.
 */
/** What a merchant's change of a key's status tells the key's grant (benefit-grants' `licenseKeyStatusSet`). */
export type StatusSetHook = (
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  key: { id: string; benefitId: string; customerId: string; status: string },
) => Promise<void>;

export async function updateLicenseKey({
  ctx,
  input,
  onStatusSet,
}: {
  ctx: Ctx;
  input: { id: string; patch: LicenseKeyUpdateInput };
  onStatusSet?: StatusSetHook | undefined;
}) {
  return inTransaction(ctx, async (trx) => {
    const p = input.patch;
    // A status change tells the key's grant first, which locks the grant before the key, in
    // the order a grant sync locks them (its grant, then its key): the two never wait in a circle.
    const seen = isUuid(input.id) ? await repo.findLicenseKey(trx, ctx.organizationId, input.id) : undefined;
    if (!seen) throw LicenseKeyNotFound();
    // Every status asked is told (the hook does nothing when the grant already agrees): a
    // parallel PATCH may change the status between this read and the key's lock below.
    if (p.status)
      await onStatusSet?.(trx, ctx, {
        id: seen.id,
        benefitId: seen.benefit_id,
        customerId: seen.customer_id,
        status: p.status,
      });
    const row = await repo.findLicenseKey(trx, ctx.organizationId, input.id, { forUpdate: true });
    if (!row) throw LicenseKeyNotFound();
    const patch: Updateable<LicenseKeyTable> = {};
    if (p.status) patch.status = p.status;
    if (p.usage !== undefined) patch.usage = p.usage;
    if (p.limit_activations !== undefined) patch.limit_activations = p.limit_activations;
    if (p.limit_usage !== undefined) patch.limit_usage = p.limit_usage;
    if (p.expires_at !== undefined) patch.expires_at = p.expires_at === null ? null : new Date(p.expires_at);
    if (Object.keys(patch).length === 0) return oneLicenseKeyWire(trx, withPendingCounts(ctx, row));
    patch.modified_at = ctx.clock.now();
    forgetLicenseKey(row.id);
    const updated = await repo.updateLicenseKey(trx, ctx.organizationId, row.id, patch);
    return oneLicenseKeyWire(trx, withPendingCounts(ctx, updated));
  });
}

/** Polar's comparison of an activation's conditions with the ones a validation sends: equal maps. */
function sameConditions(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/**
 * The checks of a validation, in Polar's order: status, expiry, the activation (and its
 * conditions), the benefit, the customer, the usage left. Answers the activation named.
 */
async function checkValidation(db: Db, row: repo.LicenseKeyRow, input: LicenseKeyValidateInput, now: Date) {
  if (row.status !== "granted") throw validateRefusals.inactive();
  if (row.expires_at && now >= row.expires_at) throw validateRefusals.expired();
  let activation: repo.ActivationRow | undefined;
  if (input.activation_id) {
    activation = await repo.findActivation(db, row.id, input.activation_id);
    if (!activation) throw LicenseKeyNotFound();
    if (
      Object.keys(activation.conditions).length > 0 &&
      !sameConditions(input.conditions, activation.conditions)
    )
      throw validateRefusals.conditions();
  }
  if (input.benefit_id && input.benefit_id !== row.benefit_id) throw validateRefusals.benefit();
  if (input.customer_id && input.customer_id !== row.customer_id) throw validateRefusals.customer();
  const increment = input.increment_usage ?? 0;
  if (increment > 0 && row.limit_usage !== null) {
    const remaining = row.limit_usage - row.usage;
    if (increment > remaining) throw validateRefusals.usage(remaining);
  }
  return activation;
}

/**
 * The key a validate / activate / deactivate names: the body's organization must be the
 * caller's (an access token's), or it is the organization of a public portal call.
 */
function checkOrganization(ctx: Ctx, organizationId: string) {
  if (organizationId !== ctx.organizationId) throw LicenseKeyNotFound();
}

/**
 * `POST .../license-keys/validate`. A plain validation (no usage asked for) reads the key and
 * its customer in one statement, checks them, and counts itself in memory
 * (validation-counts.ts: written about once a second); its answer is the stored counts plus this
 * process's pending ones. A validation that increments usage stays one durable update that
 * re-checks status, expiry and usage left; when a concurrent change made that update miss, the
 * checks run again under the key's row lock, so parallel validations never use more than the
 * usage limit, in any number of processes.
 */
export async function validateLicenseKey({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: LicenseKeyValidateInput;
}): Promise<ValidatedLicenseKeyWire> {
  checkOrganization(ctx, input.organization_id);
  const now = ctx.clock.now();
  const increment = input.increment_usage ?? 0;
  if (increment === 0) return validateAndCount(ctx, input, now);
  // Usage asked for and no activation named: checked, counted and answered in one statement; a
  // miss reads the key and says why.
  if (!input.activation_id) {
    const generation = validationCountsOf(ctx.db).generation();
    const counted = await repo.validateInOneStatement(
      ctx.db,
      ctx.organizationId,
      {
        key: input.key,
        increment,
        benefitId: input.benefit_id ?? undefined,
        customerId: input.customer_id ?? undefined,
      },
      now,
    );
    if (counted) {
      const { customer, ...key } = counted;
      // Its usage moved: a plain validation in this process reads it again.
      forgetLicenseKey(key.id);
      if (!customer) throw new Error(`customer ${key.customer_id} of license key ${key.id} vanished`);
      const answered = withPendingCounts(ctx, await settled(ctx, generation, key));
      return { ...licenseKeyWire(answered, customerFromJson(customer)), activation: null };
    }
  }
  const row = await repo.findByKey(ctx.db, ctx.organizationId, input.key);
  if (!row) throw LicenseKeyNotFound();
  const activation = await checkValidation(ctx.db, row, input, now);
  const generation = validationCountsOf(ctx.db).generation();
  const [fast, customers] = await Promise.all([
    repo.markValidated(ctx.db, row.id, increment, now),
    findCustomersById(ctx.db, ctx.organizationId, [row.customer_id]),
  ]);
  const updated =
    fast ??
    (await inTransaction(ctx, async (trx) => {
      const locked = await repo.findByKey(trx, ctx.organizationId, input.key, { forUpdate: true });
      if (!locked) throw LicenseKeyNotFound();
      await checkValidation(trx, locked, input, now);
      const done = await repo.markValidated(trx, locked.id, increment, now);
      if (!done) throw new Error(`license key ${locked.id} refused a validation its checks allowed`);
      return done;
    }));
  forgetLicenseKey(updated.id);
  const customer = customers[0];
  if (!customer) throw new Error(`customer ${row.customer_id} of license key ${row.id} vanished`);
  return {
    ...licenseKeyWire(withPendingCounts(ctx, await settled(ctx, generation, updated)), customer),
    activation: activation ? activationWire(activation) : null,
  };
}

/**
 * A validation that asks for no usage: one read of the key with its customer, Polar's checks on
 * it, then the count in memory. Its answer is Polar's: validations with this one counted, last
 * validated now.
 */
async function validateAndCount(
  ctx: Ctx,
  input: LicenseKeyValidateInput,
  now: Date,
): Promise<ValidatedLicenseKeyWire> {
  const counts = validationCountsOf(ctx.db);
  let cached = cachedKey(ctx.organizationId, input.key, Date.now());
  if (!cached) {
    const found = await counts.stable(() => repo.findForValidation(ctx.db, ctx.organizationId, input.key));
    if (!found) throw LicenseKeyNotFound();
    const { customer, ...key } = found;
    if (!customer) throw new Error(`customer ${key.customer_id} of license key ${key.id} vanished`);
    // In the same turn as the read's end: no count was written in between (`stable`).
    // The cache's own entry when there is one: the counts it is given as they are written show.
    cached = cacheKeyRow(key, customerFromJson(customer), Date.now()) ?? {
      row: key,
      customer: customerFromJson(customer),
    };
  }
  const { row, customer } = cached;
  const activation = await checkValidation(ctx.db, row, input, now);
  // The row as of the cache's counts: a count written since `row` was read is in `row` (the
  // cache adds what this process writes) or still pending, never both.
  const pending = counts.add(row.id, now);
  const answered = {
    ...row,
    validations: row.validations + pending.count,
    last_validated_at: now,
    modified_at: now,
  };
  return {
    ...licenseKeyWire(answered, customer),
    activation: activation ? activationWire(activation) : null,
  };
}

/**
 * The row a durable validation wrote, or, when a flush of the counts ran meanwhile (its commit
 * may or may not be in the row), the row read again once no flush runs: its usage is the same,
 * its counts then agree with this process's pending ones.
 */
async function settled(ctx: Ctx, generation: number, row: repo.LicenseKeyRow): Promise<repo.LicenseKeyRow> {
  const counts = validationCountsOf(ctx.db);
  // Even: no flush was running when the update was sent; unchanged: none started since.
  if (generation % 2 === 0 && counts.generation() === generation) return row;
  return (await counts.stable(() => repo.findLicenseKey(ctx.db, ctx.organizationId, row.id))) ?? row;
}

/** A customer row as PostgreSQL's `to_json` gave it: its timestamps back to dates. */
function customerFromJson(customer: repo.CustomerJson) {
  return {
    ...customer,
    created_at: new Date(customer.created_at),
    modified_at: customer.modified_at === null ? null : new Date(customer.modified_at),
    deleted_at: customer.deleted_at === null ? null : new Date(customer.deleted_at),
  };
}

/**
 * A key's row as this process sees it: the stored counts plus the validations it counted and
 * has not written yet (validation-counts.ts). Other processes' pending counts show once written.
 */
function withPendingCounts(ctx: Ctx, row: repo.LicenseKeyRow): repo.LicenseKeyRow {
  const pending = pendingValidations(ctx.db, row.id);
  if (!pending) return row;
  const later = (stored: Date | null) => (stored && stored > pending.at ? stored : pending.at);
  return {
    ...row,
    validations: row.validations + pending.count,
    last_validated_at: later(row.last_validated_at),
    modified_at: later(row.modified_at),
  };
}

/**
 * `POST .../license-keys/activate`: under the key's row lock, so parallel activations queue
 * and never exceed the limit. Unlike Polar (polar#7042), an expired key cannot be activated.
 */
export async function activateLicenseKey({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: LicenseKeyActivateInput;
}): Promise<LicenseKeyActivationReadWire> {
  checkOrganization(ctx, input.organization_id);
  const now = ctx.clock.now();
  return inTransaction(ctx, async (trx) => {
    const row = await repo.findByKey(trx, ctx.organizationId, input.key, { forUpdate: true });
    if (!row) throw LicenseKeyNotFound();
    if (row.status !== "granted") throw activateRefusals.inactive();
    if (row.expires_at && now >= row.expires_at) throw activateRefusals.expired();
    if (!row.limit_activations) throw activateRefusals.noActivations();
    if ((await repo.countActivations(trx, row.id)) >= row.limit_activations) throw activateRefusals.limit();
    const activation = await repo.insertActivation(trx, {
      id: randomUUID(),
      license_key_id: row.id,
      label: input.label,
      conditions: JSON.stringify(input.conditions),
      meta: JSON.stringify(input.meta),
      created_at: now,
      modified_at: null,
      deleted_at: null,
    });
    return {
      ...activationWire(activation),
      license_key: await oneLicenseKeyWire(trx, withPendingCounts(ctx, row)),
    };
  });
}

/** `POST .../license-keys/deactivate`: the activation is deleted (softly); 404 when there is none. */
export async function deactivateLicenseKey({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: LicenseKeyDeactivateInput;
}): Promise<void> {
  checkOrganization(ctx, input.organization_id);
  const row = await repo.findByKey(ctx.db, ctx.organizationId, input.key);
  if (!row) throw LicenseKeyNotFound();
  const done = await repo.deleteActivation(ctx.db, row.id, input.activation_id, ctx.clock.now());
  if (!done) throw LicenseKeyNotFound();
}

/** `GET /v1/customer-portal/license-keys/`: the customer's own keys. */
export async function listCustomerLicenseKeys({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & { benefit_id?: string | undefined };
}) {
  const customerId = customerOf(ctx);
  const benefitIds = input.benefit_id === undefined ? undefined : [input.benefit_id].filter(isUuid);
  const { rows, total } = await stableRead(ctx.db, () =>
    repo.listLicenseKeys(ctx.db, ctx.organizationId, { customerId, benefitIds }, input),
  );
  return listResult(await licenseKeysWire(ctx.db, ctx.organizationId, counted(ctx, rows)), total, input);
}

/**
 * `GET /v1/customer-portal/license-keys/{id}`: one of the customer's keys; its activations only
 * when the benefit lets customers manage them (`activations.enable_customer_admin`), as Polar.
 */
export async function getCustomerLicenseKey({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = await findOrThrow(ctx.db, ctx.organizationId, input.id, customerOf(ctx));
  const benefit = await findBenefit(ctx.db, ctx.organizationId, row.benefit_id);
  const activations = (benefit?.properties as { activations?: { enable_customer_admin?: boolean } | null })
    ?.activations;
  return withActivations(ctx.db, withPendingCounts(ctx, row), activations?.enable_customer_admin === true);
}

/**
 * `GET /v1/license-keys/public-key?organization_id=`: the key pair is made on first ask (as on
 * the first signed grant); an organization that does not exist has none and gets none.
 */
export async function getPublicKey({ ctx }: { ctx: Ctx }) {
  if (!isUuid(ctx.organizationId) || !(await findOrganization(ctx.db, ctx.organizationId)))
    throw new ResourceNotFound("Organization not found.");
  const row = await inTransaction(ctx, (trx) => signingKeyOf(trx, ctx.organizationId, ctx.clock.now()));
  return publicKeyWire(row);
}
