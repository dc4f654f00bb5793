/**
 * Kassa's own migrations, one file each, in the order they ship (Kysely runs them sorted by
 * name). Never edit one that has shipped: add the next file and list it here.
 */
import type { Migration } from "kysely";
import { migration as m0001_mail } from "./0001_mail.js";
import { migration as m0100_v1_platform } from "./0100_v1_platform.js";
import { migration as m0101_meters } from "./0101_meters.js";
import { migration as m0102_custom_fields } from "./0102_custom_fields.js";
import { migration as m0103_products } from "./0103_products.js";
import { migration as m0104_benefits } from "./0104_benefits.js";
import { migration as m0105_discounts } from "./0105_discounts.js";
import { migration as m0200_jobs } from "./0200_jobs.js";
import { migration as m0200_webhooks } from "./0200_webhooks.js";
import { migration as m0300_payments_sandbox } from "./0300_payments_sandbox.js";
import { migration as m0300_processor_events } from "./0300_processor_events.js";
import { migration as m0300_tax_rates } from "./0300_tax_rates.js";
import { migration as m0400_files } from "./0400_files.js";
import { migration as m0500_commerce } from "./0500_commerce.js";
import { migration as m0520_checkouts } from "./0520_checkouts.js";
import { migration as m0540_customer_sessions } from "./0540_customer_sessions.js";
import { migration as m0550_idempotency } from "./0550_idempotency.js";
import { migration as m0560_refunds } from "./0560_refunds.js";
import { migration as m0600_schema_state } from "./0600_schema_state.js";
import { migration as m0610_checkout_reconcile } from "./0610_checkout_reconcile.js";
import { migration as m0700_subscription_lifecycle } from "./0700_subscription_lifecycle.js";
import { migration as m0710_billing_entries } from "./0710_billing_entries.js";
import { migration as m0720_trials } from "./0720_trials.js";
import { migration as m0800_benefit_grants } from "./0800_benefit_grants.js";
import { migration as m0810_license_keys } from "./0810_license_keys.js";
import { migration as m0820_events } from "./0820_events.js";
import { migration as m0821_meter_hard_cap } from "./0821_meter_hard_cap.js";
import { migration as m0830_portal } from "./0830_portal.js";
import { migration as m0840_benefit_grace } from "./0840_benefit_grace.js";
import { migration as m0850_metrics_indexes } from "./0850_metrics_indexes.js";
import { migration as m0880_customer_oauth_accounts } from "./0880_customer_oauth_accounts.js";
import { migration as m0892_event_partitions } from "./0892_event_partitions.js";
import { migration as m0893_usage_rules } from "./0893_usage_rules.js";
import { migration as m0894_oauth_connect_states } from "./0894_oauth_connect_states.js";
import { migration as m0897_catalog_version } from "./0897_catalog_version.js";
import { migration as m0900_session_epoch } from "./0900_session_epoch.js";
import { migration as m0901_test_clock_advance } from "./0901_test_clock_advance.js";
import { migration as m0909_webhook_event_seq } from "./0909_webhook_event_seq.js";
import { migration as m0911_event_no_organization_fk } from "./0911_event_no_organization_fk.js";
import { migration as m0912_webhook_delivery_no_send_fk } from "./0912_webhook_delivery_no_send_fk.js";
import { migration as m0913_meter_totals_fillfactor } from "./0913_meter_totals_fillfactor.js";
import { migration as m0914_claimed_events_carry_customer } from "./0914_claimed_events_carry_customer.js";
import { migration as m0915_event_orphans } from "./0915_event_orphans.js";
import { migration as m0916_subscription_discount_redemptions } from "./0916_subscription_discount_redemptions.js";
import { migration as m0917_customer_session_purpose } from "./0917_customer_session_purpose.js";
import { migration as m0918_customer_meter_recount_mark } from "./0918_customer_meter_recount_mark.js";
import { migration as m0919_webhook_send_redeliver } from "./0919_webhook_send_redeliver.js";
import { migration as m0920_payment_method_detach } from "./0920_payment_method_detach.js";
import { migration as m0921_benefit_grant_merchant_revoked } from "./0921_benefit_grant_merchant_revoked.js";
import { migration as m0922_order_paid_at } from "./0922_order_paid_at.js";
import { migration as m0923_checkout_opened_at } from "./0923_checkout_opened_at.js";
import { migration as m0924_license_key_granted_terms } from "./0924_license_key_granted_terms.js";
import { migration as m0925_meter_cycle } from "./0925_meter_cycle.js";

export const kassaMigrations: Record<string, Migration> = {
  "0001_mail": m0001_mail,
  "0100_v1_platform": m0100_v1_platform,
  "0101_meters": m0101_meters,
  "0102_custom_fields": m0102_custom_fields,
  "0103_products": m0103_products,
  "0104_benefits": m0104_benefits,
  "0105_discounts": m0105_discounts,
  "0200_jobs": m0200_jobs,
  "0200_webhooks": m0200_webhooks,
  "0300_payments_sandbox": m0300_payments_sandbox,
  "0300_processor_events": m0300_processor_events,
  "0300_tax_rates": m0300_tax_rates,
  "0400_files": m0400_files,
  "0500_commerce": m0500_commerce,
  "0520_checkouts": m0520_checkouts,
  "0540_customer_sessions": m0540_customer_sessions,
  "0560_refunds": m0560_refunds,
  "0550_idempotency": m0550_idempotency,
  "0600_schema_state": m0600_schema_state,
  "0610_checkout_reconcile": m0610_checkout_reconcile,
  "0700_subscription_lifecycle": m0700_subscription_lifecycle,
  "0710_billing_entries": m0710_billing_entries,
  "0720_trials": m0720_trials,
  "0810_license_keys": m0810_license_keys,
  "0830_portal": m0830_portal,
  "0800_benefit_grants": m0800_benefit_grants,
  "0840_benefit_grace": m0840_benefit_grace,
  "0820_events": m0820_events,
  "0821_meter_hard_cap": m0821_meter_hard_cap,
  "0850_metrics_indexes": m0850_metrics_indexes,
  "0880_customer_oauth_accounts": m0880_customer_oauth_accounts,
  "0892_event_partitions": m0892_event_partitions,
  "0893_usage_rules": m0893_usage_rules,
  "0894_oauth_connect_states": m0894_oauth_connect_states,
  "0897_catalog_version": m0897_catalog_version,
  "0900_session_epoch": m0900_session_epoch,
  "0901_test_clock_advance": m0901_test_clock_advance,
  "0909_webhook_event_seq": m0909_webhook_event_seq,
  "0911_event_no_organization_fk": m0911_event_no_organization_fk,
  "0912_webhook_delivery_no_send_fk": m0912_webhook_delivery_no_send_fk,
  "0913_meter_totals_fillfactor": m0913_meter_totals_fillfactor,
  "0914_claimed_events_carry_customer": m0914_claimed_events_carry_customer,
  "0915_event_orphans": m0915_event_orphans,
  "0916_subscription_discount_redemptions": m0916_subscription_discount_redemptions,
  "0917_customer_session_purpose": m0917_customer_session_purpose,
  "0918_customer_meter_recount_mark": m0918_customer_meter_recount_mark,
  "0919_webhook_send_redeliver": m0919_webhook_send_redeliver,
  "0920_payment_method_detach": m0920_payment_method_detach,
  "0921_benefit_grant_merchant_revoked": m0921_benefit_grant_merchant_revoked,
  "0922_order_paid_at": m0922_order_paid_at,
  "0923_checkout_opened_at": m0923_checkout_opened_at,
  "0924_license_key_granted_terms": m0924_license_key_granted_terms,
  "0925_meter_cycle": m0925_meter_cycle,
};
