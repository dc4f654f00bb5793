/** The webhooks module: the only file other modules import. */
export { type RecordedEvent, recordEvent, webhookEventSink } from "./events.js";
export { webhookJobs } from "./jobs.js";
export { registerWebhookRoutes } from "./routes.js";
export { configureWebhookTargets } from "./service.js";
