import type { Db } from "../../kit/context.js";

/** SQL of the processor events (the sandbox's own tables are in sandbox/repository.ts). */

export async function insertProcessorEvent(
  db: Db,
  event: { processor: string; id: string; type: string; payload: unknown; receivedAt: Date },
): Promise<boolean> {
  const row = await db
    .insertInto("kassa_processor_event")
    .values({
      processor: event.processor,
      id: event.id,
      type: event.type,
      payload: JSON.stringify(event.payload),
      received_at: event.receivedAt,
    })
    .onConflict((oc) => oc.columns(["processor", "id"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

export function findProcessorEvent(db: Db, processor: string, id: string) {
  return db
    .selectFrom("kassa_processor_event")
    .selectAll()
    .where("processor", "=", processor)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function markProcessorEventProcessed(db: Db, processor: string, id: string, at: Date) {
  await db
    .updateTable("kassa_processor_event")
    .set({ processed_at: at })
    .where("processor", "=", processor)
    .where("id", "=", id)
    .execute();
}
