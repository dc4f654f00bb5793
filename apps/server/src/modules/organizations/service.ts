import { listResult, type Page } from "../../kit/api/list.js";
import { iso } from "../../kit/api/schemas.js";
import { type Ctx, emit, inTransaction } from "../../kit/context.js";
import { OrganizationNotFound, OrganizationSlugTaken } from "./errors.js";
import * as repo from "./repository.js";
import type { OrganizationUpdateInput, OrganizationWire } from "./schemas.js";

type Proration = OrganizationWire["proration_behavior"];

function toWire(row: repo.OrganizationRow): OrganizationWire {
  const proration = (row.proration_behavior ?? "prorate") as Proration;
  const allowCustomerUpdates = row.allow_customer_updates ?? true;
  return {
    created_at: iso(new Date(row.created_at)),
    modified_at: iso(row.modified_at ?? null),
    id: row.id,
    name: row.name,
    slug: row.slug,
    avatar_url: row.logo ?? null,
    proration_behavior: proration,
    allow_customer_updates: allowCustomerUpdates,
    email: row.email ?? null,
    website: row.website ?? null,
    socials: (row.socials ?? []) as OrganizationWire["socials"],
    status: "active",
    details_submitted_at: iso(row.details_submitted_at ?? null),
    default_presentment_currency: "usd",
    default_tax_behavior: "location",
    feature_settings: {
      issue_funding_enabled: row.issue_funding_enabled ?? false,
      usage_based_billing_enabled: row.usage_based_billing_enabled ?? false,
      meter_cycling_enabled: row.meter_cycling_enabled ?? false,
    },
    subscription_settings: {
      allow_multiple_subscriptions: row.allow_multiple_subscriptions ?? false,
      allow_customer_updates: allowCustomerUpdates,
      proration_behavior: proration,
      benefit_revocation_grace_period: row.benefit_revocation_grace_period ?? 0,
      prevent_trial_abuse: false,
    },
    notification_settings: { new_order: true, new_subscription: true },
    customer_email_settings: {
      order_confirmation: true,
      subscription_cancellation: true,
      subscription_confirmation: true,
      subscription_cycled: true,
      subscription_cycled_after_trial: true,
      subscription_past_due: true,
      subscription_renewal_reminder: true,
      subscription_revoked: true,
      subscription_trial_conversion_reminder: true,
      subscription_uncanceled: true,
      subscription_updated: true,
    },
    customer_portal_settings: {
      usage: { show: true },
      subscription: { update_seats: true, update_plan: true },
    },
    account_id: null,
    payout_account_id: null,
    capabilities: {
      checkout_payments: true,
      subscription_renewals: true,
      payouts: false,
      refunds: true,
      api_access: true,
      dashboard_access: true,
    },
  };
}

export async function listOrganizations({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & { slug?: string[] | undefined };
}) {
  const rows = await repo.listOrganizations(ctx.db, ctx.organizationId, { slug: input.slug });
  const items = input.page === 1 ? rows.map(toWire) : [];
  return listResult(items, rows.length, input);
}

export async function getOrganization({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  if (input.id !== ctx.organizationId) throw new OrganizationNotFound();
  const row = await repo.findOrganization(ctx.db, ctx.organizationId);
  if (!row) throw new OrganizationNotFound();
  return toWire(row);
}

/**
 * Updates the billing side of the caller's organization. Name, slug and avatar are written to
 * Better Auth's organization row, the rest to Kassa's settings row, in one transaction that
 * also records `organization.updated`.
 */
export async function updateOrganization({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; patch: OrganizationUpdateInput };
}) {
  if (input.id !== ctx.organizationId) throw new OrganizationNotFound();
  const p = input.patch;
  return inTransaction(ctx, async (trx) => {
    await repo.lockOrganization(trx, ctx.organizationId);
    const current = await repo.findOrganization(trx, ctx.organizationId);
    if (!current) throw new OrganizationNotFound();
    if (p.slug && p.slug !== current.slug && (await repo.slugTakenByAnother(trx, ctx.organizationId, p.slug)))
      throw new OrganizationSlugTaken(p.slug);
    await repo.updateAccountRow(trx, ctx.organizationId, {
      ...(p.name ? { name: p.name } : {}),
      ...(p.slug ? { slug: p.slug } : {}),
      ...(p.avatar_url !== undefined ? { logo: p.avatar_url } : {}),
    });
    const fs = p.feature_settings ?? {};
    const ss = p.subscription_settings ?? {};
    await repo.upsertSettings(trx, ctx.organizationId, {
      ...(p.email !== undefined ? { email: p.email } : {}),
      ...(p.website !== undefined ? { website: p.website } : {}),
      ...(p.socials !== undefined ? { socials: JSON.stringify(p.socials ?? []) } : {}),
      ...(p.details_submitted_at !== undefined
        ? { details_submitted_at: p.details_submitted_at ? new Date(p.details_submitted_at) : null }
        : {}),
      ...(fs.issue_funding_enabled !== undefined ? { issue_funding_enabled: fs.issue_funding_enabled } : {}),
      ...(fs.usage_based_billing_enabled !== undefined
        ? { usage_based_billing_enabled: fs.usage_based_billing_enabled }
        : {}),
      ...(fs.meter_cycling_enabled !== undefined ? { meter_cycling_enabled: fs.meter_cycling_enabled } : {}),
      ...(ss.allow_multiple_subscriptions !== undefined
        ? { allow_multiple_subscriptions: ss.allow_multiple_subscriptions }
        : {}),
      ...(ss.allow_customer_updates !== undefined
        ? { allow_customer_updates: ss.allow_customer_updates }
        : {}),
      ...(ss.proration_behavior !== undefined ? { proration_behavior: ss.proration_behavior } : {}),
      ...(ss.benefit_revocation_grace_period !== undefined
        ? { benefit_revocation_grace_period: ss.benefit_revocation_grace_period }
        : {}),
      modified_at: ctx.clock.now(),
    });
    const updated = await repo.findOrganization(trx, ctx.organizationId);
    if (!updated) throw new OrganizationNotFound();
    const wire = toWire(updated);
    await emit(ctx, trx, "organization.updated", wire);
    return wire;
  });
}
