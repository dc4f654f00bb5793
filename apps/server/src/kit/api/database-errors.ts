import type { InputFault } from "../../db/errors.js";
import { ApiError, RequestValidationError, ResourceAlreadyExists } from "./errors.js";

/**
 * A database error that means bad input (db/errors.ts), in Polar's shapes: a taken value or a
 * row still in use is a 409; anything else a 422 naming the column when PostgreSQL named it
 * (Kassa's columns are the wire's snake_case field names).
 */
export function databaseFaultAsApiError(fault: InputFault): ApiError {
  if (fault.kind === "taken") return new ResourceAlreadyExists(fault.message);
  if (fault.kind === "in_use") return new ApiError("ResourceInUse", 409, fault.message);
  const loc = fault.column ? ["body", fault.column] : ["body"];
  return RequestValidationError.field(loc, fault.message, null);
}
