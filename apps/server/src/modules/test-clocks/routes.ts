import type { z } from "@hono/zod-openapi";
import { TestClock, TestClockAdvance, TestClockAdvanceResult } from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { ErrorBody, errorResponses, route } from "../../kit/api/openapi.js";
import { advanceTestClock, getTestClock, type TestClockDeps } from "./service.js";

const TAG = "test_clock";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const get = route({
  method: "get",
  path: "/v1/test-clock",
  tags: [TAG],
  summary: "Get the organization's test clock",
  description: "The sandbox only: the organization's simulated time.",
  scope: "subscriptions:read",
  responses: { 200: ok(TestClock), ...errorResponses({ notFound: true }) },
});

const advance = route({
  method: "post",
  path: "/v1/test-clock/advance",
  tags: [TAG],
  summary: "Advance the organization's test clock",
  description:
    "The sandbox only. Moves the clock forward to `to` or by `by`, running everything due on the way in time order (renewals, charges, dunning retries, scheduled cancellations, trial reminders). The clock never moves back. By default the answer comes when the advance is done (200, what ran); with `wait: false` it comes at once (202, the clock `advancing`), the job queue runs the advance, and `GET /v1/test-clock` shows its progress until the clock is `ready` (or `failed`, with the error). One advance at a time: another while one runs is refused (409).",
  scope: "subscriptions:write",
  request: { body: { required: true, content: { "application/json": { schema: TestClockAdvance } } } },
  responses: {
    200: ok(TestClockAdvanceResult),
    202: {
      description: "The advance began (`wait: false`)",
      content: { "application/json": { schema: TestClock } },
    },
    409: {
      description: "An advance of this clock is under way",
      content: { "application/json": { schema: ErrorBody("TestClockAdvancing") } },
    },
    ...errorResponses({ notFound: true }),
  },
});

export function registerTestClockRoutes(app: V1App, deps: TestClockDeps) {
  app.openapi(get, async (c) => c.json(await getTestClock({ ctx: c.var.ctx, deps }), 200));
  app.openapi(advance, async (c) => {
    const answer = await advanceTestClock({ ctx: c.var.ctx, deps, input: c.req.valid("json") });
    return answer.status === 202 ? c.json(answer.body, 202) : c.json(answer.body, 200);
  });
}
