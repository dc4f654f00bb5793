import { randomUUID } from "node:crypto";
import { type Selectable, sql } from "kysely";
import type { CustomerOAuthAccountTable } from "../../db/schema.js";
import type { Db } from "../../kit/context.js";
import type { OAuthPlatform } from "./platforms.js";

export type AccountRow = Selectable<CustomerOAuthAccountTable>;

/** The customer's connected accounts, the most recently connected first. */
export function accountsOf(db: Db, organizationId: string, customerId: string, platform?: OAuthPlatform) {
  let q = db
    .selectFrom("kassa_customer_oauth_account")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId);
  if (platform) q = q.where("platform", "=", platform);
  return q
    .orderBy((eb) => eb.fn.coalesce("modified_at", "created_at"), "desc")
    .orderBy("id")
    .execute();
}

/** Stores a connection; connecting the same account again replaces its tokens and name. */
export async function upsertAccount(
  db: Db,
  row: Omit<AccountRow, "id" | "created_at" | "modified_at">,
  now: Date,
): Promise<void> {
  await db
    .insertInto("kassa_customer_oauth_account")
    .values({ ...row, id: randomUUID(), created_at: now, modified_at: null })
    .onConflict((oc) =>
      oc.columns(["customer_id", "platform", "account_id"]).doUpdateSet({
        account_username: row.account_username,
        access_token: row.access_token,
        refresh_token: row.refresh_token,
        expires_at: row.expires_at,
        modified_at: now,
      }),
    )
    .execute();
}

export async function updateTokens(
  db: Db,
  id: string,
  tokens: Pick<AccountRow, "access_token" | "refresh_token" | "expires_at">,
  now: Date,
) {
  await db
    .updateTable("kassa_customer_oauth_account")
    .set({ ...tokens, modified_at: now })
    .where("id", "=", id)
    .execute();
}

/**
 * Records a connect state's nonce as used. True for the first caller only: a second callback
 * with the same state (replayed, or racing the first in another transaction) meets the primary
 * key and gets false. Used nonces past their state's expiry are dropped on the way.
 */
export async function claimStateNonce(
  db: Db,
  input: { nonce: string; customerId: string; expiresAt: Date; now: Date },
): Promise<boolean> {
  await db.deleteFrom("kassa_oauth_connect_state").where("expires_at", "<", input.now).execute();
  const row = await db
    .insertInto("kassa_oauth_connect_state")
    .values({
      nonce: input.nonce,
      customer_id: input.customerId,
      used_at: input.now,
      expires_at: input.expiresAt,
    })
    .onConflict((oc) => oc.column("nonce").doNothing())
    .returning(sql<number>`1`.as("claimed"))
    .executeTakeFirst();
  return row !== undefined;
}
