/**
 * Errors of the billing API (`/v1`), in Polar's shapes. A domain module declares its own
 * errors beside it by extending these (see `modules/<noun>/errors.ts`); one handler
 * (`v1/app.ts`) renders every one of them, so a domain failure is never a 500.
 */

/** One entry of a 422 answer's `detail`, as Polar (FastAPI / pydantic) writes it. */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

export class ApiError extends Error {
  constructor(
    /** Polar's error name, e.g. `ResourceNotFound`. */
    readonly error: string,
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429,
    readonly detail: string,
  ) {
    super(detail);
    this.name = error;
  }

  body(): Record<string, unknown> {
    return { error: this.error, detail: this.detail };
  }

  headers(): Record<string, string> {
    return {};
  }
}

export class ResourceNotFound extends ApiError {
  constructor(detail = "Not found") {
    super("ResourceNotFound", 404, detail);
  }
}

export class NotPermitted extends ApiError {
  constructor(detail = "You don't have the permission to perform this action.") {
    super("NotPermitted", 403, detail);
  }
}

export class BadRequest extends ApiError {
  constructor(detail: string) {
    super("BadRequest", 400, detail);
  }
}

export class ResourceAlreadyExists extends ApiError {
  constructor(detail = "This resource already exists.") {
    super("ResourceAlreadyExists", 409, detail);
  }
}

export class ResourceUnavailable extends ApiError {
  constructor(detail = "This resource is no longer available.") {
    super("ResourceUnavailable", 410, detail);
  }
}

/** 422 with Polar's `detail` array; also used for business rules on a field. */
export class RequestValidationError extends ApiError {
  constructor(readonly issues: ValidationIssue[]) {
    super("RequestValidationError", 422, issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
  }

  /** A business rule broken by one field, e.g. `fieldError(["body", "slug"], "taken", value)`. */
  static field(loc: (string | number)[], msg: string, input: unknown, type = "value_error") {
    return new RequestValidationError([{ type, loc, msg, input }]);
  }

  override body() {
    return { error: this.error, detail: this.issues };
  }
}

/** 401: no credentials at all. */
export class Unauthorized extends ApiError {
  constructor() {
    super("Unauthorized", 401, "Unauthorized");
  }

  override headers() {
    return { "WWW-Authenticate": "Bearer" };
  }
}

/** 401: a bearer token that is unknown, expired, revoked or malformed (RFC 6750). */
export class InvalidToken extends ApiError {
  constructor() {
    super(
      "invalid_token",
      401,
      "The access token provided is expired, revoked, malformed, or invalid for other reasons.",
    );
  }

  override body() {
    return { error: this.error, error_description: this.detail };
  }

  override headers() {
    return { "WWW-Authenticate": 'Bearer error="invalid_token"' };
  }
}

/** 403: a valid token without the scope the endpoint needs (RFC 6750). */
export class InsufficientScope extends ApiError {
  constructor(readonly required: readonly string[]) {
    super("insufficient_scope", 403, "The token does not have the required scope.");
  }

  override body() {
    return { error: this.error, error_description: this.detail };
  }

  override headers() {
    return { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${this.required.join(" ")}"` };
  }
}

export class TooManyRequests extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super("TooManyRequests", 429, "Rate limit exceeded.");
  }

  override headers() {
    return { "Retry-After": String(this.retryAfterSeconds) };
  }
}
