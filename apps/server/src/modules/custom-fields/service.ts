import { randomUUID } from "node:crypto";
import { isUniqueViolation } from "../../db/errors.js";
import { RequestValidationError } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { toValidationIssues } from "../../kit/api/validation.js";
import { type Ctx, inTransaction } from "../../kit/context.js";
import { CustomFieldNotFound, CustomFieldSlugTaken } from "./errors.js";
import * as repo from "./repository.js";
import {
  type CustomFieldCreateInput,
  type CustomFieldType,
  type CustomFieldUpdateInput,
  type CustomFieldWire,
  PROPERTIES,
} from "./schemas.js";

export function customFieldToWire(row: repo.CustomFieldRow): CustomFieldWire {
  return {
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    metadata: row.metadata,
    type: row.type,
    slug: row.slug,
    name: row.name,
    organization_id: row.organization_id,
    properties: row.properties,
  } as CustomFieldWire;
}

async function slugUnique<T>(slug: string | undefined | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (slug && isUniqueViolation(error, repo.SLUG_CONSTRAINT)) throw new CustomFieldSlugTaken(slug);
    throw error;
  }
}

export async function listCustomFields({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    query?: string | undefined;
    type?: string[] | undefined;
    sorting?: string[] | undefined;
    metadata: Record<string, string[]>;
  };
}) {
  const { rows, total } = await repo.listCustomFields(
    ctx.db,
    ctx.organizationId,
    { query: input.query, types: input.type, metadata: input.metadata },
    input,
    parseSorting<repo.CustomFieldSortField>(input.sorting),
  );
  return listResult(rows.map(customFieldToWire), total, input);
}

export async function getCustomField({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findCustomField(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new CustomFieldNotFound();
  return customFieldToWire(row);
}

export async function createCustomField({ ctx, input }: { ctx: Ctx; input: CustomFieldCreateInput }) {
  const row = await slugUnique(input.slug, () =>
    inTransaction(ctx, (trx) =>
      repo.insertCustomField(trx, {
        id: randomUUID(),
        organization_id: ctx.organizationId,
        type: input.type,
        slug: input.slug,
        name: input.name,
        properties: JSON.stringify(input.properties),
        metadata: JSON.stringify(input.metadata ?? {}),
        created_at: ctx.clock.now(),
        modified_at: null,
      }),
    ),
  );
  return customFieldToWire(row);
}

export async function updateCustomField({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; patch: CustomFieldUpdateInput };
}) {
  if (!isUuid(input.id)) throw new CustomFieldNotFound();
  const p = input.patch;
  const row = await slugUnique(p.slug, () =>
    inTransaction(ctx, async (trx) => {
      const current = await repo.findCustomField(trx, ctx.organizationId, input.id);
      if (!current) throw new CustomFieldNotFound();
      if (p.type && p.type !== current.type)
        throw RequestValidationError.field(
          ["body", "type"],
          `The type of a custom field cannot change (it is ${current.type})`,
          p.type,
        );
      let properties: Record<string, unknown> | undefined;
      if (p.properties) {
        const parsed = PROPERTIES[current.type as CustomFieldType].safeParse(p.properties);
        if (!parsed.success)
          throw new RequestValidationError(
            toValidationIssues(parsed.error.issues, "body", p.properties).map((i) => ({
              ...i,
              loc: ["body", "properties", ...i.loc.slice(1)],
            })),
          );
        properties = parsed.data;
      }
      const updated = await repo.updateCustomField(trx, ctx.organizationId, input.id, {
        ...(p.name ? { name: p.name } : {}),
        ...(p.slug ? { slug: p.slug } : {}),
        ...(properties ? { properties: JSON.stringify(properties) } : {}),
        ...(p.metadata !== undefined ? { metadata: JSON.stringify(p.metadata) } : {}),
        modified_at: ctx.clock.now(),
      });
      if (!updated) throw new CustomFieldNotFound();
      return updated;
    }),
  );
  return customFieldToWire(row);
}

export async function deleteCustomField({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  if (!isUuid(input.id)) throw new CustomFieldNotFound();
  const deleted = await inTransaction(ctx, (trx) =>
    repo.deleteCustomField(trx, ctx.organizationId, input.id),
  );
  if (!deleted) throw new CustomFieldNotFound();
}
