/**
 * A test server on a database that an older version of Kassa left (migration tests): the
 * database is migrated up to a named migration and written as that version wrote it, then a
 * server starts on it and runs the remaining migrations.
 */
import { CompiledQuery } from "kysely";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { createLogger } from "../../src/kit/logger.js";
import { prepareDatabase } from "../../src/prepare-database.js";
import { createTestDatabase, type TestDatabase } from "./database.js";
import { startTestServer, type TestServer } from "./server.js";
import { TEST_ENV_VARIABLES } from "./test-env.js";
import { call, createMerchant, createToken } from "./v1.js";

/** Runs SQL on the old database ($1..$n parameters), answering its rows. */
export type OldQuery = (text: string, ...params: unknown[]) => Promise<unknown[]>;

/** The environment a test server gets, as the configuration of the steps before it starts. */
function configFor(db: TestDatabase) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !(TEST_ENV_VARIABLES as readonly string[]).includes(k)) env[k] = v;
  Object.assign(env, { BASE_URL: "http://localhost:1", LOG_LEVEL: "warn" }, db.env);
  return loadConfig(env);
}

export interface OnOldDatabase {
  database: TestDatabase;
  server: TestServer;
  /** An organization access token of `organizationId` with the scopes asked for. */
  token: string;
}

/**
 * A new empty database migrated up to `until` (included), written by `write`; then a server
 * started on it (which runs the migrations after `until`), and a new merchant's owner made an
 * owner of `organizationId` (an organization `write` made), with a token of `scopes` on it.
 */
export async function startOnOldDatabase(options: {
  until: string;
  write: (q: OldQuery) => Promise<void>;
  organizationId: string;
  scopes: string[];
}): Promise<OnOldDatabase> {
  const database = await createTestDatabase({ empty: true });
  try {
    const config = configFor(database);
    const logger = createLogger("warn");
    await prepareDatabase(config, logger, { until: options.until });
    const old = await openDatabase(config, logger);
    try {
      await options.write(
        async (text, ...params) => (await old.db.executeQuery(CompiledQuery.raw(text, params))).rows,
      );
    } finally {
      await old.close();
    }
  } catch (error) {
    await database.drop();
    throw error;
  }
  const server = await startTestServer({ inProcess: true, database });
  const merchant = await createMerchant(server, "Migrated");
  await server.sql(
    `insert into "member" (id, "organizationId", "userId", role, "createdAt") values (gen_random_uuid()::text, $1, $2, 'owner', now())`,
    options.organizationId,
    merchant.owner.id,
  );
  const token = await createToken({ ...merchant, organizationId: options.organizationId }, options.scopes);
  return { database, server, token };
}

/**
 * Makes a count-by-name meter recompute its totals from the events: a filter equivalent to
 * `name = eventName` (the clause added never excludes an event) is still a change.
 */
export async function recomputeByName(server: TestServer, token: string, meterId: string, eventName: string) {
  const res = await call(server, token, "PATCH", `/v1/meters/${meterId}`, {
    filter: {
      conjunction: "and",
      clauses: [
        { property: "name", operator: "eq", value: eventName },
        { property: "name", operator: "ne", value: "never" },
      ],
    },
  });
  if (res.status !== 200) throw new Error(`recompute: ${res.status} ${JSON.stringify(res.body)}`);
}
