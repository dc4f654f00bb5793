import type { ReplayRequest, WebhookEndpointCreate, WebhookEndpointUpdate } from "@kassa/contracts/v1";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import {
  getQuery,
  invalidate,
  listQuery,
  type QueryValue,
  v1,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookReplayResult,
} from "../../lib/v1";

const ENDPOINTS = "webhooks/endpoints";

/** The organization's webhook endpoints, a page of them. */
export const endpointsQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<WebhookEndpoint>(organizationId, ENDPOINTS, params);

/** One endpoint. */
export const endpointQuery = (organizationId: string, endpointId: string) =>
  getQuery<WebhookEndpoint>(organizationId, ENDPOINTS, endpointId);

/** An endpoint's deliveries, newest first, refreshed every 5 s (they arrive as events happen). */
export const deliveriesQuery = (organizationId: string, params: Record<string, QueryValue>) => ({
  ...listQuery<WebhookDelivery>(organizationId, "webhooks/deliveries", params),
  refetchInterval: 5000,
});

/** Adds an endpoint (`POST /v1/webhooks/endpoints`); its answer holds the signing secret in full, once. */
export function useCreateEndpoint(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof WebhookEndpointCreate>) =>
      v1<WebhookEndpoint>(organizationId, `/${ENDPOINTS}`, { method: "POST", body }),
    onSuccess: () => invalidate(queryClient, organizationId, ENDPOINTS),
  });
}

/** Changes an endpoint (`PATCH /v1/webhooks/endpoints/{id}`): its events, or enables it. */
export function useUpdateEndpoint(organizationId: string, endpointId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof WebhookEndpointUpdate>) =>
      v1<WebhookEndpoint>(organizationId, `/${ENDPOINTS}/${endpointId}`, { method: "PATCH", body }),
    onSuccess: () => invalidate(queryClient, organizationId, ENDPOINTS),
  });
}

/** Sends an endpoint again the events of a time range (`POST /v1/webhooks/endpoints/{id}/replay`). */
export function useReplay(organizationId: string, endpointId: string) {
  return useMutation({
    mutationFn: (body: z.input<typeof ReplayRequest>) =>
      v1<WebhookReplayResult>(organizationId, `/${ENDPOINTS}/${endpointId}/replay`, { method: "POST", body }),
  });
}

/** Rotates an endpoint's signing secret; the answer holds the new one in full, once. */
export function useRotateSecret(organizationId: string, endpointId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      v1<WebhookEndpoint>(organizationId, `/${ENDPOINTS}/${endpointId}/secret`, { method: "PATCH" }),
    onSuccess: () => invalidate(queryClient, organizationId, ENDPOINTS),
  });
}

/** Deletes an endpoint. */
export function useDeleteEndpoint(organizationId: string, endpointId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => v1(organizationId, `/${ENDPOINTS}/${endpointId}`, { method: "DELETE" }),
    onSuccess: () => invalidate(queryClient, organizationId, ENDPOINTS),
  });
}

/** Queues an event again for its endpoints (`POST /v1/webhooks/events/{id}/redeliver`). */
export function useRedeliver(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (eventId: string) =>
      v1(organizationId, `/webhooks/events/${eventId}/redeliver`, { method: "POST" }),
    onSuccess: () => invalidate(queryClient, organizationId, "webhooks/deliveries"),
  });
}
