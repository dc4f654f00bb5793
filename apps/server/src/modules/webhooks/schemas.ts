/** The wire schemas live in `@kassa/contracts/v1` (webhooks.ts); this module reads them from there. */
export {
  ReplayRequest,
  ReplayResponse,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEvent,
  WebhookEventTypeSchema,
  WebhookFormatSchema,
} from "@kassa/contracts/v1";
