// Runs on PGlite only: a pure rule of what an error's log line may hold; no database at all.
import { describe, expect, it } from "vitest";
import { loggablePath } from "../src/kit/edge.js";

/** An unexpected error logs its request's path; a secret in that path must not reach the log. */
describe("the path an error logs", () => {
  it("cuts a secret segment to its prefix and leaves ids and words alone", () => {
    expect(loggablePath("/v1/checkouts/client/polar_c_Ab12Cd34Ef56/confirm")).toBe(
      "/v1/checkouts/client/polar_c_…/confirm",
    );
    expect(loggablePath("/v1/checkout-links/polar_cl_Zz99/redirect")).toBe(
      "/v1/checkout-links/polar_cl_…/redirect",
    );
    expect(loggablePath("/v1/customer-portal/polar_cst_secret")).toBe("/v1/customer-portal/polar_cst_…");
    const id = "0b7c7f0e-2a5c-4d0e-9a57-1f0e8d3c2b1a";
    expect(loggablePath(`/v1/orders/${id}/invoice`)).toBe(`/v1/orders/${id}/invoice`);
    expect(loggablePath("/v1/products/")).toBe("/v1/products/");
  });
});
