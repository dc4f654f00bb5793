import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import { FileCreate, FilePatch, FileRead, FileUpload, FileUploadCompleted } from "./schemas.js";
import * as service from "./service.js";

const TAG = "files";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

const list = route({
  method: "get",
  path: "/v1/files/",
  tags: [TAG],
  summary: "List files",
  scope: "files:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      ids: repeatable(z.string()),
      ...pageParams,
    }),
  },
  responses: { 200: ok(listResource(FileRead, "FileRead")), ...errorResponses() },
});

const create = route({
  method: "post",
  path: "/v1/files/",
  tags: [TAG],
  summary: "Create a file",
  description:
    "Declares a file and its parts. Each part of the answer has a `url` (signed by Kassa, valid for an hour) to `PUT` the part's bytes to; the answer to each PUT carries an `ETag`. Then `POST /v1/files/{id}/uploaded` with the parts' ETags completes the upload.",
  scope: "files:write",
  request: { body: jsonBody(FileCreate) },
  responses: { 201: { ...ok(FileUpload), description: "Created" }, ...errorResponses() },
});

const uploaded = route({
  method: "post",
  path: "/v1/files/{id}/uploaded",
  tags: [TAG],
  summary: "Complete a file upload",
  scope: "files:write",
  request: { params: IdParam, body: jsonBody(FileUploadCompleted) },
  responses: { 200: ok(FileRead), ...errorResponses({ notFound: true }) },
});

const update = route({
  method: "patch",
  path: "/v1/files/{id}",
  tags: [TAG],
  summary: "Update a file",
  scope: "files:write",
  request: { params: IdParam, body: jsonBody(FilePatch) },
  responses: { 200: ok(FileRead), ...errorResponses({ notFound: true }) },
});

const remove = route({
  method: "delete",
  path: "/v1/files/{id}",
  tags: [TAG],
  summary: "Delete a file",
  scope: "files:write",
  request: { params: IdParam },
  responses: { 204: { description: "File deleted" }, ...errorResponses({ notFound: true }) },
});

export function registerFileRoutes(app: V1App, env: service.FilesEnv) {
  app.openapi(list, async (c) =>
    c.json(await service.listFiles({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(create, async (c) =>
    c.json(await service.createFile({ ctx: c.var.ctx, env, input: c.req.valid("json") }), 201),
  );
  app.openapi(uploaded, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.completeUpload({ ctx: c.var.ctx, env, input: { id, body: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateFile({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(remove, async (c) => {
    await service.deleteFile({ ctx: c.var.ctx, env, input: c.req.valid("param") });
    return c.body(null, 204);
  });
}
