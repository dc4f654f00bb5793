/**
 * The `/v1` wire format (Polar's public API v1), one file per noun: the request and answer
 * schemas the server's routes validate and document with, and their types for the web app.
 */
export * from "./address.js";
export * from "./benefit-grants.js";
export * from "./benefits.js";
export * from "./checkout-links.js";
export * from "./checkouts.js";
export * from "./common.js";
export * from "./custom-fields.js";
export * from "./customer-meters.js";
export * from "./customer-portal.js";
export * from "./customer-sessions.js";
export * from "./customers.js";
export * from "./discounts.js";
export * from "./events.js";
export * from "./files.js";
export * from "./license-keys.js";
export * from "./meters.js";
export * from "./metrics.js";
export * from "./orders.js";
export * from "./organization-access-tokens.js";
export * from "./organizations.js";
export * from "./products.js";
export * from "./refunds.js";
export * from "./sandbox.js";
export * from "./subscriptions.js";
export * from "./tax.js";
export * from "./values.js";
export * from "./webhooks.js";
