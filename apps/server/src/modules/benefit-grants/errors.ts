import { ResourceNotFound } from "../../kit/api/errors.js";

export class BenefitGrantNotFound extends ResourceNotFound {
  constructor() {
    super("Benefit grant not found.");
  }
}

export class BenefitNotFound extends ResourceNotFound {
  constructor() {
    super("Benefit not found.");
  }
}
