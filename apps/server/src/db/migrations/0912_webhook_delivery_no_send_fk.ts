import { type Kysely, type Migration, sql } from "kysely";

/**
 * A delivery's log row loses its foreign key to its send (issue 19). The key's check is a
 * row-level trigger, a lookup and a `FOR KEY SHARE` lock of the send per logged attempt: a fifth
 * of the statement that settles a turn's deliveries (`EXPLAIN ANALYZE`, docs/benchmarks.md,
 * "Deliveries without the log's foreign key"), in a statement that updates the same send rows
 * anyway.
 *
 * What the key guaranteed stays, by other means:
 * - No log row without its send: every statement that logs an attempt inserts it from the rows
 *   of its own update of the send (`returning`), so a send deleted before it (its endpoint
 *   deleted) is logged nothing, and one deleted after it waits on that update's row lock and
 *   then takes the log row with it (below).
 * - The cascade: deleting sends (an endpoint or an event deleted) deletes their log rows in the
 *   same statement, by one statement-level trigger on `kassa_webhook_send`, found through the
 *   log's endpoint index (a delivery's endpoint is its send's).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`do $$
      declare c record;
      begin
        for c in select conname from pg_constraint
          where contype = 'f' and conrelid = 'kassa_webhook_delivery'::regclass
            and confrelid = 'kassa_webhook_send'::regclass
        loop
          execute format('alter table kassa_webhook_delivery drop constraint %I', c.conname);
        end loop;
      end $$`.execute(db);
    await sql`create function kassa_webhook_send_deleted() returns trigger language plpgsql as $$
      begin
        delete from kassa_webhook_delivery d using deleted s
          where d.endpoint_id = s.endpoint_id and d.send_id = s.id;
        return null;
      end $$`.execute(db);
    await sql`create trigger kassa_webhook_send_deleted after delete on kassa_webhook_send
      referencing old table as deleted for each statement
      execute function kassa_webhook_send_deleted()`.execute(db);
  },
};
