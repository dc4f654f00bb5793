import { RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";

export class CustomFieldNotFound extends ResourceNotFound {
  constructor() {
    super("Custom field not found.");
  }
}

export class CustomFieldSlugTaken extends RequestValidationError {
  constructor(slug: string) {
    super([
      {
        type: "value_error",
        loc: ["body", "slug"],
        msg: "A custom field with this slug already exists.",
        input: slug,
      },
    ]);
  }
}
