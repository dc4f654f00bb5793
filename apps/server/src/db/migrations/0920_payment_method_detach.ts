import { type Kysely, type Migration, sql } from "kysely";

/**
 * A saved card being detached at the processor (the portal's delete): while its hold stands, no
 * subscription may be set to pay with it (modules/subscriptions). The delete checks that no
 * subscription pays with the card and takes the hold in one transaction, under the locks of the
 * customer's subscriptions that a "make this card the default" takes too, then detaches it.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_payment_method_detach (
      organization_id text not null,
      payment_method_id text not null,
      customer_id text not null,
      held_until timestamptz not null,
      created_at timestamptz not null,
      primary key (organization_id, payment_method_id)
    )`.execute(db);
    await sql`create index kassa_payment_method_detach_customer
      on kassa_payment_method_detach (organization_id, customer_id)`.execute(db);
  },
};
