import { RequestValidationError, ResourceNotFound } from "../../kit/api/errors.js";

export class TaxRateNotFound extends ResourceNotFound {
  constructor() {
    super("Tax rate not found.");
  }
}

export class TaxRateCountryTaken extends RequestValidationError {
  constructor(country: string) {
    super([
      {
        type: "value_error",
        loc: ["body", "country"],
        msg: "A tax rate for this country already exists.",
        input: country,
      },
    ]);
  }
}
