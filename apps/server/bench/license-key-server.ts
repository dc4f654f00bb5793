/**
 * A Kassa server (the built `dist/`, as the bench's main server) holding one license key to
 * validate: the organization, customer and benefit written with SQL, the key made by
 * `grantLicenseKey` as the grant engine makes it. Tells the bench its port, organization and key.
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
process.send?.({ ready: true, port: kassa.port, organizationId, key: row.rows[0]?.key });
process.on("SIGTERM", () => kassa.close().then(() => process.exit(0)));
