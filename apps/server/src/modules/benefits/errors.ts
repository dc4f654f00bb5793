import { ResourceNotFound } from "../../kit/api/errors.js";

export class BenefitNotFound extends ResourceNotFound {
  constructor() {
    super("Benefit not found.");
  }
}
