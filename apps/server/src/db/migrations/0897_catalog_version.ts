import { type Kysely, type Migration, sql } from "kysely";

/** Tables whose rows make up a product's answer, with their organization's column. */
const WITH_ORGANIZATION = [
  "kassa_product",
  "kassa_product_price",
  "kassa_benefit",
  "kassa_meter",
  "kassa_custom_field",
  "kassa_file",
];
/** Join tables naming a product, whose organization is the product's. */
const OF_A_PRODUCT = ["kassa_product_benefit", "kassa_product_media", "kassa_product_custom_field"];

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // An organization's catalog version: bumped, in the writing transaction, by every change to
    // a row that a product's answer is made of (the product, its prices and their meters, its
    // benefits, media and custom fields). The products module answers a list or a get it has
    // already built when the version has not moved since (one primary-key read instead of the
    // whole statement); triggers, so no writer in any module or process can forget it.
    await sql`create table kassa_catalog_version (
      organization_id text primary key,
      version bigint not null
    )`.execute(db);
    await sql`create function kassa_catalog_bump(org text) returns void language plpgsql as $fn$
      begin
        if org is null then return; end if;
        insert into kassa_catalog_version (organization_id, version) values (org, 1)
          on conflict (organization_id) do update set version = kassa_catalog_version.version + 1;
      end $fn$`.execute(db);
    await sql`create function kassa_catalog_changed() returns trigger language plpgsql as $fn$
      begin
        if tg_op = 'INSERT' then
          perform kassa_catalog_bump(new.organization_id);
        elsif tg_op = 'DELETE' then
          perform kassa_catalog_bump(old.organization_id);
        else
          perform kassa_catalog_bump(old.organization_id);
          if new.organization_id is distinct from old.organization_id then
            perform kassa_catalog_bump(new.organization_id);
          end if;
        end if;
        return null;
      end $fn$`.execute(db);
    await sql`create function kassa_catalog_product_part_changed() returns trigger language plpgsql as $fn$
      declare pid text;
      begin
        if tg_op = 'DELETE' then pid := old.product_id; else pid := new.product_id; end if;
        perform kassa_catalog_bump((select organization_id from kassa_product where id = pid));
        if tg_op = 'UPDATE' then
          if new.product_id is distinct from old.product_id then
            perform kassa_catalog_bump((select organization_id from kassa_product where id = old.product_id));
          end if;
        end if;
        return null;
      end $fn$`.execute(db);
    for (const table of WITH_ORGANIZATION)
      await sql`create trigger ${sql.raw(`${table}_catalog`)} after insert or update or delete on ${sql.table(table)}
        for each row execute function kassa_catalog_changed()`.execute(db);
    for (const table of OF_A_PRODUCT)
      await sql`create trigger ${sql.raw(`${table}_catalog`)} after insert or update or delete on ${sql.table(table)}
        for each row execute function kassa_catalog_product_part_changed()`.execute(db);
  },
};
