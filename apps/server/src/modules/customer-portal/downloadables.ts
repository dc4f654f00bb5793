import { createHash } from "node:crypto";
import { z } from "@hono/zod-openapi";
import { DownloadableRead } from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { listResource, listResult, pageParams, repeatable } from "../../kit/api/list.js";
import { customerRoute, errorResponses } from "../../kit/api/openapi.js";
import { systemClock } from "../../kit/clock.js";
import { listCustomerGrantRows } from "../benefit-grants/index.js";
import { downloadUrl, fileCommonToWire, findFiles, type UrlSigner } from "../files/index.js";
import { callerOf } from "./service.js";

/** The grants read in one statement. */
const GRANT_PAGE = 100;

/** How long a download link of the portal works. */
const DOWNLOAD_URL_TTL_SECONDS = 600;

const listDownloadables = customerRoute({
  method: "get",
  path: "/v1/customer-portal/downloadables/",
  tags: ["customer_portal"],
  summary: "List the files the authenticated customer was granted, each with a download link",
  description:
    "The files of the customer's granted `downloadables` benefits (a file archived later stays with those who were granted it), each with a signed download URL that works for 10 minutes.",
  request: { query: z.object({ benefit_id: repeatable(z.string()), ...pageParams }) },
  responses: {
    200: {
      description: "Successful Response",
      content: { "application/json": { schema: listResource(DownloadableRead, "DownloadableRead") } },
    },
    ...errorResponses(),
  },
});

/** A stable id per (grant, file): the same file in two benefits is two downloadables. */
function downloadableId(grantId: string, fileId: string) {
  const h = createHash("sha256").update(`${grantId}:${fileId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * `GET /v1/customer-portal/downloadables/`: the customer's granted files with short-lived
 * signed download URLs (the files module serves them at `/storage/downloads/{id}`). Only the
 * customer's own grants, never revoked ones.
 */
export function registerPortalDownloadableRoutes(app: V1App, env: { signer: UrlSigner; baseURL: string }) {
  app.openapi(listDownloadables, async (c) => {
    const ctx = c.var.ctx;
    const input = c.req.valid("query");
    const caller = callerOf(ctx);
    // Every grant, a page at a time: the files are paged below, across all of them.
    const grants: Awaited<ReturnType<typeof listCustomerGrantRows>>["rows"] = [];
    for (let page = 1; ; page++) {
      const { rows } = await listCustomerGrantRows(ctx, caller, {
        type: ["downloadables"],
        benefit_id: input.benefit_id,
        page,
        limit: GRANT_PAGE,
      });
      grants.push(...rows);
      if (rows.length < GRANT_PAGE) break;
    }
    const pairs = grants
      .filter((g) => g.granted_at !== null)
      .flatMap((g) =>
        (Array.isArray(g.properties.files) ? g.properties.files : [])
          .filter((id): id is string => typeof id === "string")
          .map((fileId) => ({ grant: g, fileId })),
      );
    const files = new Map(
      (await findFiles(ctx.db, caller.organizationId, [...new Set(pairs.map((p) => p.fileId))])).map((f) => [
        f.id,
        f,
      ]),
    );
    // Real time: the download route checks the link against it, whatever a test clock says.
    const now = systemClock.now();
    const items = pairs.flatMap(({ grant, fileId }) => {
      const file = files.get(fileId);
      if (!file?.is_uploaded) return [];
      const link = downloadUrl(
        { signer: env.signer, baseURL: env.baseURL },
        file.id,
        now,
        DOWNLOAD_URL_TTL_SECONDS,
      );
      return [
        {
          id: downloadableId(grant.id, file.id),
          benefit_id: grant.benefit_id,
          file: {
            ...fileCommonToWire(file),
            service: "downloadable" as const,
            download: { url: link.url, headers: {}, expires_at: link.expires_at },
          },
        },
      ];
    });
    const start = (input.page - 1) * input.limit;
    return c.json(listResult(items.slice(start, start + input.limit), items.length, input), 200);
  });
}
