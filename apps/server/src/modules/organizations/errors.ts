import { RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";

export class OrganizationNotFound extends ResourceNotFound {
  constructor() {
    super("Organization not found.");
  }
}

export class OrganizationSlugTaken extends RequestValidationError {
  constructor(slug: string) {
    super([
      {
        type: "value_error",
        loc: ["body", "slug"],
        msg: "An organization with this slug already exists.",
        input: slug,
      },
    ]);
  }
}
