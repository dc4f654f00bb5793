import { lazy } from "react";

/**
 * The billing pages, one chunk for the router to load (one dynamic import keeps the sign-in
 * entry small: each import site carries its own list of chunks to preload). The product
 * editor (Markdown, the price editor) stays a chunk of its own, loaded when it is opened.
 */
export { AccessTokensPage } from "./access-tokens";
export { BenefitsPage } from "./benefits";
export { BillingSettingsPage } from "./billing-settings";
export { CheckoutLinksPage } from "./checkout-links";
export { CheckoutPage, CheckoutsPage } from "./checkouts";
export { CustomFieldsPage } from "./custom-fields";
export { CustomerPage, CustomersPage } from "./customers";
export { DiscountsPage } from "./discounts";
export { EventsPage } from "./events";
export { LicenseKeysPage } from "./license-keys";
export { MeterPage, MetersPage } from "./meters";
export { OrderPage, OrdersPage } from "./orders";
export { ProductsPage } from "./products";
export { SubscriptionPage, SubscriptionsPage } from "./subscriptions";
export { TaxRatesPage } from "./tax-rates";
export { WebhookEndpointPage, WebhooksPage } from "./webhooks";

export const ProductEditorPage = lazy(() =>
  import("./product-editor").then((m) => ({ default: m.ProductEditorPage })),
);
