/**
 * A Kassa server (the built `dist/`, as the bench's main server) holding license keys to
 * validate: the organization, customer and benefit written with SQL, the keys made by
 * `grantLicenseKey` as the grant engine makes them. One key (the worst case: every caller on one
 * row) and a merchant's installed base of `MANY_KEYS` keys, one customer each. Tells the bench
 * its port, organization and keys.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { loadConfig } from "../dist/config.js";
import { grantLicenseKey } from "../dist/modules/license-keys/index.js";
import { startKassa } from "../dist/server.js";

const kassa = await startKassa(loadConfig());
const db = kassa.database.db;
const organizationId = randomUUID();
const customerId = randomUUID();
const benefitId = randomUUID();
const properties = { prefix: "BENCH", activations: { limit: 5 }, limit_usage: null, expires: null };
const now = new Date();
await sql`insert into organization (id, name, slug, "createdAt") values (${organizationId}, 'Bench keys', ${`bench-keys-${organizationId.slice(0, 8)}`}, ${now})`.execute(
  db,
);
await sql`insert into kassa_customer (id, organization_id, email, metadata, created_at)
  values (${customerId}, ${organizationId}, ${`buyer-${customerId.slice(0, 8)}@example.test`}, '{}'::jsonb, ${now})`.execute(
  db,
);
await sql`insert into kassa_benefit (id, organization_id, type, description, properties, metadata, created_at)
  values (${benefitId}, ${organizationId}, 'license_keys', 'Bench license', ${JSON.stringify(properties)}::jsonb, '{}'::jsonb, ${now})`.execute(
  db,
);
const granted = await db.transaction().execute((trx) =>
  grantLicenseKey(trx, {
    organizationId,
    customerId,
    benefitId,
    benefitProperties: properties,
    expires: true,
    now,
  }),
);
const row = await sql<{
  key: string;
}>`select key from kassa_license_key where id = ${granted.license_key_id}`.execute(db);

const MANY_KEYS = 1000;
await db.transaction().execute(async (trx) => {
  for (let i = 0; i < MANY_KEYS; i++) {
    const buyer = randomUUID();
    await sql`insert into kassa_customer (id, organization_id, email, metadata, created_at)
      values (${buyer}, ${organizationId}, ${`buyer-${buyer.slice(0, 8)}@example.test`}, '{}'::jsonb, ${now})`.execute(
      trx,
    );
    await grantLicenseKey(trx, {
      organizationId,
      customerId: buyer,
      benefitId,
      benefitProperties: properties,
      expires: true,
      now,
    });
  }
});
const many = await sql<{
  key: string;
}>`select key from kassa_license_key where organization_id = ${organizationId} and id <> ${granted.license_key_id}`.execute(
  db,
);
process.send?.({
  ready: true,
  port: kassa.port,
  organizationId,
  key: row.rows[0]?.key,
  keys: many.rows.map((r) => r.key),
});
process.on("SIGTERM", () => kassa.close().then(() => process.exit(0)));
