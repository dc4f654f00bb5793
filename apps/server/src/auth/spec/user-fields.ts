import { APIError } from "better-auth/api";
import { bodyOf, type HookContext } from "./context.js";

export const userFieldPaths = ["/sign-up/email", "/update-user"];

/** The user's own fields and the types they must have when present (`null` only where allowed). */
const FIELDS: Record<string, { nullable: boolean }> = {
  name: { nullable: false },
  username: { nullable: false },
  displayUsername: { nullable: false },
  image: { nullable: true },
};

/**
 * Sign-up and update-user accept the user's additional fields loosely typed in Better Auth
 * 1.7, and the username plugin lower-cases whatever arrives (a number threw a TypeError, a
 * 500). A field of the wrong type is refused here, naming it, before any plugin reads it.
 */
export async function userFieldTypes(ctx: HookContext) {
  const body = bodyOf(ctx);
  for (const [field, rule] of Object.entries(FIELDS)) {
    const value = body[field];
    if (value === undefined || typeof value === "string" || (value === null && rule.nullable)) continue;
    throw new APIError("BAD_REQUEST", {
      code: "VALIDATION_ERROR",
      message: `[body.${field}] Expected string, received ${value === null ? "null" : typeof value}`,
    });
  }
}
