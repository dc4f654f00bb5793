import { type Kysely, type Migration, sql } from "kysely";

/**
 * The events and their deduplication keys lose their foreign key to `organization` (issue 16).
 * Each inserted row's check of it is a row-level trigger, a lookup and a `FOR KEY SHARE` lock
 * of the organization row per event: two per event with an external id, a third of a
 * 700-event group statement's time measured with `EXPLAIN ANALYZE` (docs/benchmarks.md, "Usage
 * billing: the ingest's foreign keys"); and concurrent statements sharing that lock on one row
 * make PostgreSQL create a multixact for it. An event's organization is always the
 * authenticated one (the ingest writes `ctx.organizationId`).
 *
 * What the cascade did stays: deleting an organization deletes its events and keys, in the same
 * statement, by one statement-level trigger on `organization` (one delete of each table per
 * statement, whatever the number of events, where the ingest no longer pays a check per row).
 *
 * The constraints are found by what they are, not by name (the partitioned table's was named
 * when it was `kassa_event_partitioned`); the partitions' own copies go with the parent's.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`do $$
      declare c record;
      begin
        for c in select conrelid::regclass as tbl, conname from pg_constraint
          where contype = 'f' and conparentid = 0 and confrelid = 'organization'::regclass
            and conrelid in ('kassa_event'::regclass, 'kassa_event_key'::regclass)
        loop
          execute format('alter table %s drop constraint %I', c.tbl, c.conname);
        end loop;
      end $$`.execute(db);
    await sql`create function kassa_event_organization_deleted() returns trigger language plpgsql as $$
      begin
        delete from kassa_event where organization_id in (select id from deleted);
        delete from kassa_event_key where organization_id in (select id from deleted);
        return null;
      end $$`.execute(db);
    await sql`create trigger kassa_event_organization_deleted after delete on organization
      referencing old table as deleted for each statement
      execute function kassa_event_organization_deleted()`.execute(db);
  },
};
